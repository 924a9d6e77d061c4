import CLibPQ
import Foundation

/// An open libpq connection used with blocking calls: only on the `PostgresConnection`'s own thread (inside
/// `withSession` / `transaction`) or the listener's thread. Never share one across threads or keep it past the
/// closure it was handed to.
public final class PostgresSession {
    private var connection: OpaquePointer?
    private let redactor: Redactor

    /// Connects (blocking). Throws `connectionFailed` with libpq's message, scrubbed of the password.
    init(configuration: PostgresConfiguration) throws(PostgresError) {
        let (keywords, values, secrets) = try configuration.connectionParameters()
        redactor = Redactor(secrets: secrets)
        let keywordPointers = keywords.map { strdup($0) } + [nil]
        let valuePointers = values.map { strdup($0) } + [nil]
        defer {
            keywordPointers.forEach { free($0) }
            valuePointers.forEach { free($0) }
        }
        let connection = keywordPointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywords in
            valuePointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                PQconnectdbParams(keywords.baseAddress, values.baseAddress, 1)
            }
        }
        guard let connection else { throw .connectionFailed("libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(of: connection)
            PQfinish(connection)
            throw redactor.scrub(.connectionFailed(message))
        }
        // Notices (such as "relation already exists, skipping") would go to standard error; they are not errors.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        self.connection = connection
    }

    deinit { close() }

    /// Closes the connection; later calls throw `closed`.
    func close() {
        if let connection { PQfinish(connection) }
        connection = nil
    }

    /// False once the connection broke or was closed.
    public var isConnected: Bool { connection.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// True while a transaction is open on the connection (begun and not yet committed or rolled back).
    public var isInTransaction: Bool { connection.map { PQtransactionStatus($0) != PQTRANS_IDLE } ?? false }

    /// The server process serving this connection (`pg_backend_pid()`), 0 when closed.
    public var serverProcessID: Int32 { connection.map { PQbackendPID($0) } ?? 0 }

    /// Runs one statement with `$1`, `$2`, … bound to `parameters` (never spliced into the SQL) and returns its
    /// rows.
    ///
    /// - Throws: `server` with the SQLSTATE when the statement fails, `connectionLost` when the connection broke,
    ///   `invalidParameter` for a text holding a NUL byte.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let connection = try open()
        var values: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var types: [Oid] = []
        defer { values.forEach { free($0) } }
        for (index, parameter) in parameters.enumerated() {
            switch parameter {
            case .null:
                values.append(nil)
                lengths.append(0)
                formats.append(0)
                types.append(0)
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw .invalidParameter(position: index + 1, reason: "text holds a NUL byte")
                }
                values.append(strdup(text))
                lengths.append(0)
                formats.append(0)
                types.append(0)
            case .bytes(let bytes):
                guard let length = Int32(exactly: bytes.count), let copy = malloc(max(bytes.count, 1)) else {
                    throw .invalidParameter(position: index + 1, reason: "bytea of \(bytes.count) bytes is over 2 GiB")
                }
                bytes.withUnsafeBytes { raw in
                    if let source = raw.baseAddress { copy.copyMemory(from: source, byteCount: raw.count) }
                }
                values.append(copy.assumingMemoryBound(to: CChar.self))
                lengths.append(length)
                formats.append(1)
                types.append(17)  // BYTEAOID
            }
        }
        let result = values.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
            PQexecParams(
                connection, sql, Int32(parameters.count), types, values.baseAddress, lengths, formats, 0)
        }
        return try consume(result, of: connection)
    }

    /// Runs `script`, which may hold several statements and no parameters (the simple query protocol); returns the
    /// last statement's result. For migrations and other trusted SQL, never for anything built from input.
    @discardableResult
    public func execute(script: String) throws(PostgresError) -> PostgresResult {
        let connection = try open()
        guard !script.utf8.contains(0) else { throw .invalidParameter(position: 0, reason: "script holds a NUL byte") }
        return try consume(PQexec(connection, script), of: connection)
    }

    /// Runs `body` in a transaction at `isolation`: commits when it returns, rolls back when it throws (and
    /// rethrows its error). A statement that failed inside `body` (even if `body` caught the error) makes the
    /// commit fail with `server` SQLSTATE 25P02 instead of silently rolling back.
    public func transaction<T>(
        isolation: IsolationLevel = .readCommitted, _ body: (PostgresSession) throws -> T
    ) throws -> T {
        let connection = try open()
        guard PQtransactionStatus(connection) == PQTRANS_IDLE else {
            throw PostgresError.server(
                ServerError(
                    sqlState: SQLState(rawValue: "25001"), message: "a transaction is already open on this connection"))
        }
        try query("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
        let value: T
        do {
            value = try body(self)
        } catch {
            if isConnected { _ = try? query("ROLLBACK") }
            throw error
        }
        if PQtransactionStatus(connection) == PQTRANS_INERROR {
            _ = try? query("ROLLBACK")
            throw PostgresError.server(
                ServerError(
                    sqlState: SQLState(rawValue: "25P02"),
                    message: "a statement in the transaction failed; it was rolled back"))
        }
        try query("COMMIT")
        return value
    }

    /// Takes the session-level advisory lock `key`, waiting for it (`pg_advisory_lock`), runs `body`, and
    /// releases it whether `body` returns or throws. Other sessions calling this with the same key wait meanwhile.
    public func withAdvisoryLock<T>(_ key: Int64, _ body: (PostgresSession) throws -> T) throws -> T {
        try query("SELECT pg_advisory_lock($1)", [.int(key)])
        defer { _ = try? query("SELECT pg_advisory_unlock($1)", [.int(key)]) }
        return try body(self)
    }

    /// Takes the session-level advisory lock `key` if it is free (`pg_try_advisory_lock`); true when taken.
    public func tryAdvisoryLock(_ key: Int64) throws(PostgresError) -> Bool {
        try query("SELECT pg_try_advisory_lock($1)", [.int(key)]).singleRow().bool(0)
    }

    /// Releases the session-level advisory lock `key`; false when this session did not hold it.
    @discardableResult
    public func advisoryUnlock(_ key: Int64) throws(PostgresError) -> Bool {
        try query("SELECT pg_advisory_unlock($1)", [.int(key)]).singleRow().bool(0)
    }

    /// The raw connection for the listener's poll loop.
    func open() throws(PostgresError) -> OpaquePointer {
        guard let connection else { throw .closed }
        return connection
    }

    /// `error`, scrubbed of the password.
    func scrubbed(_ error: PostgresError) -> PostgresError { redactor.scrub(error) }

    /// libpq's current error message for `connection`, trimmed.
    static func message(of connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown libpq error" }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "unknown libpq error" : message
    }

    /// Turns a libpq result into a `PostgresResult` or the matching error, and frees it (and any further results).
    private func consume(_ result: OpaquePointer?, of connection: OpaquePointer) throws(PostgresError) -> PostgresResult
    {
        guard let result else {
            throw redactor.scrub(.connectionLost(Self.message(of: connection)))
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            let columnCount = Int(PQnfields(result))
            let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
            let rows = (0..<PQntuples(result)).map { row in
                PostgresRow(
                    columns: columns,
                    values: (0..<Int32(columnCount)).map { column in
                        guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else {
                            return nil
                        }
                        let length = Int(PQgetlength(result, row, column))
                        return [UInt8](UnsafeRawBufferPointer(start: value, count: length))
                    })
            }
            let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
            return PostgresResult(columns: columns, rows: rows, affectedRows: affected)
        default:
            let field = { (code: Character) -> String? in
                guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else {
                    return nil
                }
                return String(cString: value)
            }
            let message = field("M") ?? Self.message(of: connection)
            if PQstatus(connection) != CONNECTION_OK {
                throw redactor.scrub(.connectionLost(message))
            }
            throw redactor.scrub(
                .server(
                    ServerError(
                        sqlState: SQLState(rawValue: field("C") ?? "XX000"), message: message, detail: field("D"),
                        constraint: field("n"))))
        }
    }
}
