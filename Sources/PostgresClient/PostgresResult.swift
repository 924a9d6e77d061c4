/// The rows and row count of one statement. Values arrive in PostgreSQL's text form and are converted on access.
public struct PostgresResult: Sendable {
    /// The column names, in order.
    public let columns: [String]
    /// The rows, in the order the server sent them.
    public let rows: [PostgresRow]
    /// Rows the statement inserted, updated or deleted (`PQcmdTuples`), 0 for other statements.
    public let affectedRows: Int

    /// The only row; throws `decoding` when there are none or several.
    public func singleRow() throws(PostgresError) -> PostgresRow {
        guard rows.count == 1, let row = rows.first else {
            throw .decoding(column: columns.first ?? "?", reason: "expected one row, got \(rows.count)")
        }
        return row
    }
}
