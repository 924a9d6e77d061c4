/// One PostgreSQL connection with a thread of its own: every blocking libpq call runs there, in the order the
/// calls were made, and the async methods suspend until it is done.
///
/// Use one connection per concurrent job (a transaction holds the connection for its whole closure). After
/// `connectionLost` the connection is dead: open a new one.
public final class PostgresConnection: Sendable {
    /// The configuration this connection was opened with (its `description` is redacted).
    public let configuration: PostgresConfiguration
    private let worker: WorkerThread
    /// Touched only by jobs on `worker`, one at a time: that serial thread is what makes this box safe to share.
    private let session: SessionBox

    private final class SessionBox: @unchecked Sendable {
        let session: PostgresSession
        init(_ session: PostgresSession) { self.session = session }
    }

    private init(configuration: PostgresConfiguration, worker: WorkerThread, session: SessionBox) {
        self.configuration = configuration
        self.worker = worker
        self.session = session
    }

    deinit {
        let session = self.session
        worker.submit { session.session.close() }
        worker.finish()
    }

    /// Connects on a new thread of its own.
    ///
    /// - Throws: `invalidConfiguration` (unreadable password file), `connectionFailed` (server unreachable,
    ///   authentication refused); messages never hold the password.
    public static func connect(_ configuration: PostgresConfiguration) async throws(PostgresError) -> PostgresConnection
    {
        let worker = WorkerThread(name: "pg connection")
        do {
            let box = try await worker.run { SessionBox(try PostgresSession(configuration: configuration)) }
            return PostgresConnection(configuration: configuration, worker: worker, session: box)
        } catch {
            worker.finish()
            throw Self.typed(error)
        }
    }

    /// Runs `body` with the blocking session on the connection's thread; nothing else runs on the connection
    /// meanwhile. Errors `body` throws come back as they are.
    public func withSession<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        let session = self.session
        return try await worker.run { try body(session.session) }
    }

    /// `PostgresSession.query` on the connection's thread.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) async throws(PostgresError) -> PostgresResult {
        do {
            return try await withSession { try $0.query(sql, parameters) }
        } catch {
            throw Self.typed(error)
        }
    }

    /// `PostgresSession.execute(script:)` on the connection's thread.
    @discardableResult
    public func execute(script: String) async throws(PostgresError) -> PostgresResult {
        do {
            return try await withSession { try $0.execute(script: script) }
        } catch {
            throw Self.typed(error)
        }
    }

    /// Runs `body` in one transaction on the connection's thread: committed when it returns, rolled back when it
    /// throws (its error is rethrown). See `PostgresSession.transaction`.
    public func transaction<T: Sendable>(
        isolation: IsolationLevel = .readCommitted, _ body: @escaping @Sendable (PostgresSession) throws -> T
    ) async throws -> T {
        try await withSession { try $0.transaction(isolation: isolation, body) }
    }

    /// Runs `body` holding the session-level advisory lock `key` (waiting for it); see
    /// `PostgresSession.withAdvisoryLock`.
    public func withAdvisoryLock<T: Sendable>(
        _ key: Int64, _ body: @escaping @Sendable (PostgresSession) throws -> T
    ) async throws -> T {
        try await withSession { try $0.withAdvisoryLock(key, body) }
    }

    /// Sends `NOTIFY channel, payload` (`pg_notify`): delivered to every listener on `channel` when the current
    /// transaction (or this statement) commits.
    public func notify(_ channel: String, payload: String = "") async throws(PostgresError) {
        try await query("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// False once the connection broke or was closed.
    public var isConnected: Bool {
        get async { (try? await withSession { $0.isConnected }) ?? false }
    }

    /// Closes the connection; later calls throw `closed`.
    public func close() async {
        _ = try? await withSession { $0.close() }
    }

    /// Errors from the worker are `PostgresError` (the session throws nothing else); anything else is a bug.
    static func typed(_ error: any Error) -> PostgresError {
        (error as? PostgresError) ?? .connectionLost("unexpected error: \(error)")
    }
}
