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
