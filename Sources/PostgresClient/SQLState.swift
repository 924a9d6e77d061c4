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
