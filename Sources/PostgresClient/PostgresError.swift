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
