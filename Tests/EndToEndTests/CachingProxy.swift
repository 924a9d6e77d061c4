import Foundation
import HTTPTestSupport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's nginx with `proxy_cache` in front of one origin, on 127.0.0.1 only, configured as deploy/README.md tells
/// a CDN to be: the catalog cached under path + `app` + `platform` alone, `Cache-Control` honoured, concurrent misses
/// collapsed into one origin request, stale copies served on origin errors, `Livery-Signature` and `ETag` passed
/// through. Every request that reached the origin is one access-log line with an upstream address. Runs in the
/// foreground without a master process (so as the invoking user, all files in its scratch folder); killed with
/// SIGKILL when the value goes away.
final class CachingProxy: @unchecked Sendable {
    // Invariant: set once in `init`, never changed.
    static let executable = "/usr/sbin/nginx"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// Killed and reaped when this value goes away.
    private let process: SpawnedProcess
    let folder: ScratchDirectory
    let port: Int

    /// The `location` block of the catalog, as deploy/README.md shows it.
    static func catalogLocation(origin: Int) -> String {
        """
            location = /api/v1/catalog {
                proxy_pass http://127.0.0.1:\(origin);
                proxy_http_version 1.1;
                proxy_set_header Connection "";
                proxy_cache catalog;
                proxy_cache_key "$uri?app=$arg_app&platform=$arg_platform";
                proxy_cache_lock on;
                proxy_cache_revalidate on;
                proxy_cache_use_stale error timeout updating http_500 http_502 http_503 http_504;
                add_header X-Cache-Status $upstream_cache_status always;
            }
        """
    }

    init(origin: Int) throws {
        folder = try ScratchDirectory(prefix: "livery-nginx")
        port = try Replicas.freeLoopbackPort()
        let root = folder.path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log warn;
            events { worker_connections 512; }
            http {
                log_format origin '$uri $upstream_cache_status $upstream_addr $status';
                access_log \(root)/access.log origin;
                client_body_temp_path \(root)/body;
                proxy_temp_path \(root)/proxy;
                fastcgi_temp_path \(root)/fastcgi;
                uwsgi_temp_path \(root)/uwsgi;
                scgi_temp_path \(root)/scgi;
                proxy_cache_path \(root)/cache levels=1:2 keys_zone=catalog:1m max_size=64m inactive=10m use_temp_path=off;
                server {
                    listen 127.0.0.1:\(port);
            \(Self.catalogLocation(origin: origin))
                    location / {
                        proxy_pass http://127.0.0.1:\(origin);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                    }
                }
            }

            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: folder.path("nginx.conf")))
        process = try SpawnedProcess.launch(
            Self.executable, ["-p", root, "-e", folder.path("error.log"), "-c", folder.path("nginx.conf")])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let client = try? TestClient(port: port), (try? client.get("/readyz"))?.status == 200 { return }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: folder.path("error.log"), encoding: .utf8)) ?? ""
        throw E2EError(description: "nginx did not come up on 127.0.0.1:\(port): \(log)")
    }

    /// Requests for `path` the cache passed on to the origin, as its access log counts them (each line whose
    /// upstream address is set), and all requests for `path`.
    func originRequests(path: String = "/api/v1/catalog") throws -> (origin: Int, total: Int) {
        let log = try String(contentsOfFile: folder.path("access.log"), encoding: .utf8)
        let lines = log.split(separator: "\n").map { $0.split(separator: " ") }.filter {
            $0.first.map(String.init) == path
        }
        return (lines.filter { $0.count > 2 && $0[2] != "-" }.count, lines.count)
    }
}
