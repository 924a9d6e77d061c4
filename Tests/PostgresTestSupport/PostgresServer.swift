import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL server for tests: Debian's `postgresql` binaries (`/usr/lib/postgresql/<newest>/bin`), a
/// cluster made with `initdb` in a scratch folder, listening only on a Unix socket inside that folder (no TCP).
///
/// Tests run as root (in CI) and PostgreSQL refuses to, so then the cluster belongs to an unprivileged user
/// (`postgres`, which Debian's package creates, else `nobody`) and every server command runs as that user through
/// `runuser`. Run by any other user, the server runs as that user.
/// Superuser `postgres` connects without a password (`trust`); members of the role `password_login` must give
/// theirs (`scram-sha-256`), for tests of password handling.
///
/// `stop()` / `start()` / `kill()` let a test take the server away and bring it back. `shutdown()` ends it for
/// good and should be called at the end (the `.postgresServer` suite trait does, also when tests fail); a server
/// still running when the value goes away is killed with SIGKILL, so no test leaves a stray server behind.
public final class PostgresServer: Sendable {
    /// Why the server could not be prepared, started or stopped.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The role whose members log in with a password (`scram-sha-256`); everyone else is trusted.
    public static let passwordRole = "password_login"

    /// The folder holding the cluster (`data/`), the socket folder (`socket/`) and the server log (`server.log`).
    public let folder: ScratchDirectory
    /// The folder of the Unix socket (`.s.PGSQL.5432`): the `host` of a connection URI.
    public var socketDirectory: String { folder.path("socket") }
    private var dataDirectory: String { folder.path("data") }
    private let binaries: String
    /// The unprivileged user the server runs as when the tests run as root; nil otherwise (no `runuser`).
    private let user: String?
    /// The postmaster's process id while it runs (it leads its own process group), nil when stopped.
    private let postmaster = Mutex<pid_t?>(nil)
    private let databaseCounter = Atomic<Int>(0)

    /// Creates a cluster and starts it (a few seconds on a loaded machine).
    ///
    /// A cluster that fails to come up is removed and a fresh one is made, up to three times: a whole test
    /// suite starts a dozen clusters at once on two cores, and one of them once failed where nobody could see
    /// why. Each failed attempt is written to standard error with the server's log, so a retry is never silent;
    /// the error thrown after the third names all three.
    public static func start() async throws -> PostgresServer {
        var failures: [String] = []
        for attempt in 1...3 {
            let server = try PostgresServer()
            do {
                try await server.initialize()
                try await server.start()
                try await server.psql("CREATE ROLE \(passwordRole) NOLOGIN")
                return server
            } catch {
                let failure = "PostgreSQL for tests, attempt \(attempt) of 3 failed: \(error)\n\(server.log)"
                try? FileHandle.standardError.write(contentsOf: Data((failure + "\n").utf8))
                failures.append(failure)
                await server.shutdown()
            }
        }
        throw Failure(description: failures.joined(separator: "\n"))
    }

    private init() throws {
        guard
            let version = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")
                .compactMap(Int.init).max()
        else {
            throw Failure(description: "no PostgreSQL under /usr/lib/postgresql: install Debian's postgresql package")
        }
        binaries = "/usr/lib/postgresql/\(version)/bin"
        folder = try ScratchDirectory(prefix: "livery-postgres")
        try FileManager.default.createDirectory(atPath: folder.path("socket"), withIntermediateDirectories: true)
        // Run by an ordinary user (a developer's machine), the server simply runs as that user.
        guard geteuid() == 0 else {
            user = nil
            return
        }
        let name = getpwnam("postgres") != nil ? "postgres" : "nobody"
        user = name
        guard let account = getpwnam(name) else { throw Failure(description: "no user \(name)") }
        for path in [folder.path, folder.path("socket")] {
            guard chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw Failure(description: "chown \(path) to \(name): \(String(cString: strerror(errno)))")
            }
        }
    }

    deinit {
        if let pid = postmaster.withLock({ $0 }) {
            Self.killGroup(pid, dataDirectory: dataDirectory, socketDirectory: socketDirectory)
        }
    }

    /// A `postgresql://` URI reaching `database` over the Unix socket as `role` (with `password` in the URI when
    /// given).
    public func uri(database: String = "postgres", role: String = "postgres", password: String? = nil) -> String {
        let credentials =
            password.map { "\(role):\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" } ?? role
        return "postgresql://\(credentials)@/\(database)?host=\(socketDirectory)"
    }

    /// Creates a fresh database (named `test_<n>`) so a test shares nothing with the suite's others; returns its
    /// name.
    public func createDatabase() async throws -> String {
        let name = "test_\(databaseCounter.add(1, ordering: .relaxed).newValue)"
        try await psql("CREATE DATABASE \(name)")
        return name
    }

    /// Runs `sql` with `psql` as superuser `postgres` in `database`; returns what it printed (unaligned, tuples
    /// only). Throws when psql fails.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        let output = try await ExternalProcess.run(
            binaries + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-U", "postgres", "-d",
                database,
                "-c", sql
            ])
        guard output.status == 0 else { throw Failure(description: "psql `\(sql)`: \(output.transcript)") }
        return output.standardOutput
    }

    /// True while the postmaster this harness started is running.
    public var isRunning: Bool { postmaster.withLock { $0 != nil } }

    /// The postmaster's process id (also its process group's) while it runs.
    public var processID: pid_t? { postmaster.withLock { $0 } }

    /// Starts a server, runs `body` with it and shuts the server down afterwards, also when `body` throws: for a
    /// test that stops or kills its server and so cannot share the suite's.
    public static func withServer<T: Sendable>(_ body: (PostgresServer) async throws -> T) async throws -> T {
        let server = try await start()
        do {
            let value = try await body(server)
            await server.shutdown()
            return value
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// Starts the server (again) and waits until it accepts connections (`pg_ctl start -w`).
    public func start() async throws {
        try await asServerUser(
            "pg_ctl", ["-D", dataDirectory, "-l", folder.path("server.log"), "-w", "-t", "60", "start"])
        let pidFile = try String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let line = pidFile.split(separator: "\n").first, let pid = pid_t(line) else {
            throw Failure(description: "unreadable postmaster.pid: \(pidFile.prefix(80))")
        }
        postmaster.withLock { $0 = pid }
    }

    /// Stops the server, ending every session (`pg_ctl stop -m fast -w`), and waits until it is gone.
    public func stop() async throws {
        guard isRunning else { return }
        try await asServerUser("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"])
        postmaster.withLock { $0 = nil }
    }

    /// Kills the server and all its processes with SIGKILL, as a crash would, and waits until they are dead.
    /// `start()` brings it back (running crash recovery).
    public func kill() async throws {
        guard let pid = postmaster.withLock({ $0 }) else { return }
        let (dataDirectory, socketDirectory) = (self.dataDirectory, self.socketDirectory)
        try await blocking { Self.killGroup(pid, dataDirectory: dataDirectory, socketDirectory: socketDirectory) }
        postmaster.withLock { $0 = nil }
    }

    /// Ends the server for good: a fast stop, or SIGKILL when that fails; then removes its folder. Safe to call
    /// more than once.
    public func shutdown() async {
        do {
            try await stop()
        } catch {
            try? await kill()
        }
        try? FileManager.default.removeItem(atPath: folder.path)
    }

    /// The server log so far, for failure messages.
    public var log: String { (try? String(contentsOfFile: folder.path("server.log"), encoding: .utf8)) ?? "" }

    private func initialize() async throws {
        try await asServerUser(
            "initdb", ["-D", dataDirectory, "-U", "postgres", "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync"])
        let settings = """

            # Livery tests: Unix socket in the test's folder only, small and fast (durability against a process
            # crash needs no fsync: the kernel keeps what was written).
            listen_addresses = ''
            unix_socket_directories = '\(socketDirectory)'
            fsync = off
            full_page_writes = off
            shared_buffers = 16MB
            max_connections = 50
            log_min_messages = warning

            """
        let configuration = try FileHandle(forWritingAtPath: dataDirectory + "/postgresql.conf").unwrap(
            "cannot open postgresql.conf")
        try configuration.seekToEnd()
        try configuration.write(contentsOf: Data(settings.utf8))
        try configuration.close()
        let access = "local all +\(Self.passwordRole) scram-sha-256\nlocal all all trust\n"
        try Data(access.utf8).write(to: URL(fileURLWithPath: dataDirectory + "/pg_hba.conf"))
    }

    private func asServerUser(_ program: String, _ arguments: [String]) async throws {
        let command = [binaries + "/" + program] + arguments
        let (executable, argv) =
            user.map { ("/usr/sbin/runuser", ["-u", $0, "--"] + command) } ?? (command[0], Array(command.dropFirst()))
        let output = try await ExternalProcess.run(executable, argv, timeout: .seconds(120))
        guard output.status == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")): \(output.transcript)\n\(log)")
        }
    }

    /// SIGKILL to the postmaster's process group, then waits (bounded) until no process of the group is alive,
    /// and removes the lock files naming its process id (`postmaster.pid`, the socket's `.lock`): where nobody
    /// reaps orphans (a container's init may not), the dead postmaster stays a zombie whose id a later start would
    /// take for a running server.
    private static func killGroup(_ pid: pid_t, dataDirectory: String, socketDirectory: String) {
        Glibc.kill(-pid, SIGKILL)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && groupIsAlive(pid) { usleep(10_000) }
        try? FileManager.default.removeItem(atPath: dataDirectory + "/postmaster.pid")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: socketDirectory)) ?? [] {
            try? FileManager.default.removeItem(atPath: socketDirectory + "/" + name)
        }
    }

    /// True while some process of process group `group` runs (zombies, which only wait to be reaped, do not count).
    public static func groupIsAlive(_ group: pid_t) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { entry in
            guard Int32(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return false }
            // After "(comm)": state, ppid, pgrp.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && fields[0] != "X" && pid_t(fields[2]) == group
        }
    }
}

extension Optional {
    fileprivate func unwrap(_ message: String) throws -> Wrapped {
        guard let self else { throw PostgresServer.Failure(description: message) }
        return self
    }
}
