/// One step of a schema: applied once, in version order, never edited after release (add a new step instead).
public struct Migration: Sendable {
    /// Positive, and increasing along the list handed to `Migrator`.
    public var version: Int
    /// SQL run with the simple query protocol, so one step may hold several statements.
    public var sql: String

    public init(version: Int, sql: String) {
        self.version = version
        self.sql = sql
    }
}
