import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `livery serve --store postgres://…` replicas for the end-to-end tests: each with a data folder of its own (the
/// local caches), the workspace's skins folder and tokens file, and the shared PostgreSQL store.
struct Replicas {
    static let window = #""startsAt": "2000-01-01T00:00:00Z", "endsAt": "2100-01-01T00:00:00Z""#
    static let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.0.0"

    /// A workspace whose skins folder holds one tiny skin `id`, released for app `demo` over `window`.
    static func workspace(releasing id: String) throws -> AdminWorkspace {
        let workspace = try AdminWorkspace()
        try AdminWorkspace.write(
            AdminWorkspace.tinySkin(id: id, marker: id, release: "{\(window)}"), into: workspace.skins + "/" + id)
        return workspace
    }

    /// Starts one replica on a free port of 127.0.0.1 (not waiting for it to be ready).
    static func start(
        store uri: String, workspace: AdminWorkspace, environment: [String: String] = [:]
    ) throws -> LiveryProcess {
        var merged = workspace.environment
        // Each replica keeps its local caches in the data folder LiveryProcess gives it.
        merged["LIVERY_DATA_DIR"] = nil
        merged["LIVERY_STORE"] = uri
        merged.merge(environment) { $1 }
        return try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"], environment: merged)
    }

    /// Uploads a tiny skin `id` through `admin` and releases its new version with `priority`; returns the version.
    @discardableResult
    static func pushAndRelease(_ admin: AdminCall, id: String, marker: String, priority: Int = 1) throws -> Int {
        let archive = try AdminWorkspace.zip(AdminWorkspace.tinySkin(id: id, marker: marker))
        let upload = try admin.send("POST", "/admin/v1/skins", body: archive, contentType: "application/zip")
        guard upload.status == 201,
            let body = try JSONSerialization.jsonObject(with: Data(upload.body)) as? [String: Any],
            let version = body["version"] as? Int
        else { throw E2EError(description: "upload of \(id): \(upload.status) \(upload.text)") }
        let release = #"{"version": \#(version), "priority": \#(priority), \#(window)}"#
        let released = try admin.send(
            "PUT", "/admin/v1/skins/\(id)/release", body: Array(release.utf8), contentType: "application/json")
        guard released.status == 200 else {
            throw E2EError(description: "release of \(id) v\(version): \(released.status) \(released.text)")
        }
        return version
    }

    /// The `skinId` a poll on `port` answers ("" for no skin), or nil when the answer is not a 200.
    static func polledSkin(port: Int) -> String? {
        guard let response = try? TestClient(port: port, timeout: 5).get(poll), response.status == 200,
            let body = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else { return nil }
        return body["skinId"] as? String ?? ""
    }

    /// Polls `port` until it serves `skinID` ("" for no skin), for at most `seconds`; returns the time it took, or
    /// nil if it never did.
    static func timeUntilServed(_ skinID: String, port: Int, within seconds: Double) -> Double? {
        let started = Date()
        while Date().timeIntervalSince(started) < seconds {
            if polledSkin(port: port) == skinID { return Date().timeIntervalSince(started) }
            usleep(5_000)
        }
        return nil
    }

    /// A role that must log in with `password`, allowed to create the store's tables in `database`; returns the
    /// URI with the password in it.
    static func passwordURI(_ server: PostgresServer, database: String, password: String) async throws -> String {
        let role = "replica_\(database)"
        try await server.psql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE \(PostgresServer.passwordRole)")
        try await server.psql("GRANT ALL ON SCHEMA public TO \(role)", database: database)
        return server.uri(database: database, role: role, password: password)
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (for a child that cannot be told to pick one itself).
    static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw E2EError(description: "socket: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw E2EError(description: "bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// HAProxy from Debian in front of replicas, on 127.0.0.1 only: round robin, `/readyz` health checks every 200 ms,
/// a failed connection retried on another server. Stopped (SIGKILL) when the value goes away.
final class LoadBalancer: @unchecked Sendable {
    // Invariant: set once in `init`, never changed.
    private let process: SpawnedProcess
    private let folder: ScratchDirectory
    let port: Int

    init(backends: [Int]) throws {
        folder = try ScratchDirectory(prefix: "livery-haproxy")
        port = try Replicas.freeLoopbackPort()
        let servers = backends.enumerated().map { index, backend in
            "    server replica\(index) 127.0.0.1:\(backend) check inter 200ms fall 2 rise 1"
        }.joined(separator: "\n")
        let configuration = """
            global
                maxconn 512
            defaults
                mode http
                timeout connect 2s
                timeout client 10s
                timeout server 10s
                retries 3
                option redispatch
            frontend livery
                bind 127.0.0.1:\(port)
                default_backend replicas
            backend replicas
                balance roundrobin
                option httpchk GET /readyz
            \(servers)

            """
        let path = folder.path("haproxy.cfg")
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: path))
        process = try SpawnedProcess.launch("/usr/sbin/haproxy", ["-db", "-f", path])
        // Up once it answers a poll through a ready replica.
        guard AdminServeTests.eventually(seconds: 20, { Replicas.polledSkin(port: port) != nil }) else {
            throw E2EError(description: "haproxy did not come up on 127.0.0.1:\(port)")
        }
    }
}
