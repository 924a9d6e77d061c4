import Foundation
import PostgresTestSupport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// PgBouncer from Debian (`/usr/sbin/pgbouncer`) in front of a test `PostgresServer`: listening on 127.0.0.1 (a
/// port picked free) and on a Unix socket in a temporary folder, trusting every client (`postgres` is in its users
/// file), in the pool mode asked for. Run as the unprivileged `postgres` user when the tests run as root (PgBouncer
/// refuses root), through `setpriv`, which execs it so its process id is PgBouncer's. Killed when the value goes away.
final class PgBouncer: @unchecked Sendable {
    // Invariant: set once in `init`, never changed.
    private let process: SpawnedProcess
    let folder: ScratchDirectory
    let port: Int

    /// - Parameters:
    ///   - poolMode: `session`, `transaction` or `statement`.
    ///   - poolSize: server connections per database and user.
    init(in front: PostgresServer, poolMode: String, poolSize: Int = 8) throws {
        folder = try ScratchDirectory(prefix: "livery-pgbouncer")
        port = try Replicas.freeLoopbackPort()
        let configuration = """
            [databases]
            * = host=\(front.socketDirectory) port=5432
            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir = \(folder.path)
            auth_type = trust
            auth_file = \(folder.path("users.txt"))
            pool_mode = \(poolMode)
            default_pool_size = \(poolSize)
            max_client_conn = 200
            server_reset_query =
            ignore_startup_parameters = extra_float_digits
            logfile = \(folder.path("pgbouncer.log"))
            pidfile = \(folder.path("pgbouncer.pid"))

            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: folder.path("pgbouncer.ini")))
        try Data(#""postgres" """#.utf8 + [0x0A]).write(to: URL(fileURLWithPath: folder.path("users.txt")))
        let (executable, arguments): (String, [String])
        if geteuid() == 0 {
            guard let account = getpwnam("postgres") else { throw E2EError(description: "no user postgres") }
            for path in [folder.path, folder.path("pgbouncer.ini"), folder.path("users.txt")] {
                guard chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                    throw E2EError(description: "chown \(path): \(errno)")
                }
            }
            executable = "/usr/bin/setpriv"
            arguments = [
                "--reuid=postgres", "--regid=postgres", "--init-groups", "/usr/sbin/pgbouncer",
                folder.path("pgbouncer.ini")
            ]
        } else {
            (executable, arguments) = ("/usr/sbin/pgbouncer", [folder.path("pgbouncer.ini")])
        }
        process = try SpawnedProcess.launch(executable, arguments)
        let deadline = Date().addingTimeInterval(20)
        while !Self.accepts(port: port) {
            guard Date() < deadline, process.isRunning else {
                throw E2EError(description: "pgbouncer did not come up on 127.0.0.1:\(port): \(log)")
            }
            usleep(20_000)
        }
    }

    /// A URI reaching `database` through PgBouncer over TCP on 127.0.0.1.
    func tcpURI(database: String) -> String { "postgresql://postgres@127.0.0.1:\(port)/\(database)" }

    /// A URI reaching `database` through PgBouncer's Unix socket.
    func socketURI(database: String) -> String { "postgresql://postgres@/\(database)?host=\(folder.path)&port=\(port)" }

    /// PgBouncer's log so far.
    var log: String { (try? String(contentsOfFile: folder.path("pgbouncer.log"), encoding: .utf8)) ?? "" }

    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
