/// What went wrong talking to PostgreSQL, split by what the caller can do about it.
///
/// - `server`: the statement failed and the connection is fine (retry a serialization failure, report a unique
///   violation as a conflict, ...). Carries the SQLSTATE.
/// - `connectionLost` / `connectionFailed`: the server is unreachable or went away; reconnect with backoff.
/// - `invalidConfiguration`, `invalidParameter`, `decoding`: a bug or bad input on this side; retrying will not help.
///
/// No case ever holds the connection URI's password (messages are scrubbed of it; see `PostgresConfiguration`).
public enum PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration cannot be used: not a `postgres://` / `postgresql://` URI, unreadable password file.
    case invalidConfiguration(String)
    /// No connection could be made (server down, socket missing, authentication refused). libpq's message.
    case connectionFailed(String)
    /// An established connection broke (server stopped, killed, network gone). Open a new one.
    case connectionLost(String)
    /// The server refused the statement; the connection stays usable.
    case server(ServerError)
    /// A parameter cannot be sent (position 1-based, as in `$1`): a text with a NUL byte, which PostgreSQL's text
    /// cannot hold and C strings would silently cut.
    case invalidParameter(position: Int, reason: String)
    /// A result value is not what the caller asked for (NULL where a value was required, not an integer, ...).
    case decoding(column: String, reason: String)
    /// The connection was closed by this side; nothing more can be sent on it.
    case closed

    /// True for errors that mean the server is unreachable: reconnect (with backoff) and try again.
    public var isConnectionProblem: Bool {
        switch self {
        case .connectionFailed, .connectionLost, .closed: true
        default: false
        }
    }

    /// The SQLSTATE of a server error, nil for every other case.
    public var sqlState: SQLState? {
        if case .server(let error) = self { return error.sqlState }
        return nil
    }

    public var description: String {
        switch self {
        case .invalidConfiguration(let message): "invalid PostgreSQL configuration: \(message)"
        case .connectionFailed(let message): "could not connect to PostgreSQL: \(message)"
        case .connectionLost(let message): "lost the PostgreSQL connection: \(message)"
        case .server(let error): error.description
        case .invalidParameter(let position, let reason): "parameter $\(position): \(reason)"
        case .decoding(let column, let reason): "column \(column): \(reason)"
        case .closed: "the PostgreSQL connection is closed"
        }
    }
}

/// An error the server reported for a statement (libpq's error fields of a failed result).
public struct ServerError: Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE code.
    public var sqlState: SQLState
    /// The primary message.
    public var message: String
    /// The detail line, when the server sent one (for a unique violation: which key).
    public var detail: String?
    /// The constraint that failed, when there is one.
    public var constraint: String?

    public init(sqlState: SQLState, message: String, detail: String? = nil, constraint: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }

    public var description: String {
        "PostgreSQL error \(sqlState.rawValue): \(message)" + (detail.map { " (\($0))" } ?? "")
    }
}

/// A SQLSTATE code (PostgreSQL manual, appendix A). The constants name the ones callers branch on.
public struct SQLState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// 40001: a serializable or repeatable-read transaction lost a race; run it again.
    public static let serializationFailure = SQLState(rawValue: "40001")
    /// 40P01: chosen as the victim of a deadlock; run the transaction again.
    public static let deadlockDetected = SQLState(rawValue: "40P01")
    /// 23505: a unique index or primary key already holds the value.
    public static let uniqueViolation = SQLState(rawValue: "23505")
    /// 23503: a foreign key points at nothing.
    public static let foreignKeyViolation = SQLState(rawValue: "23503")
    /// 23502: NULL into a NOT NULL column.
    public static let notNullViolation = SQLState(rawValue: "23502")
    /// 23514: a CHECK constraint failed.
    public static let checkViolation = SQLState(rawValue: "23514")
    /// 42P01: no such table.
    public static let undefinedTable = SQLState(rawValue: "42P01")
    /// 42601: the SQL does not parse.
    public static let syntaxError = SQLState(rawValue: "42601")
    /// 55P03: `NOWAIT` or `lock_timeout` gave up on a lock.
    public static let lockNotAvailable = SQLState(rawValue: "55P03")
    /// 57014: `statement_timeout` or a cancel request ended the statement.
    public static let queryCanceled = SQLState(rawValue: "57014")
    /// 57P01: the server is shutting down (an administrator stopped it).
    public static let adminShutdown = SQLState(rawValue: "57P01")
    /// 28P01: wrong password.
    public static let invalidPassword = SQLState(rawValue: "28P01")

    /// True when running the whole transaction again may succeed (serialization failure, deadlock).
    public var isTransient: Bool { self == .serializationFailure || self == .deadlockDetected }

    public var description: String { rawValue }
}
