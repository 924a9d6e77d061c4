import LiveryCrypto
import LiveryProtocol

/// One result row. Accessors take a column position or name and throw `PostgresError.decoding` when the value is
/// NULL (use the `optional…` forms where NULL is allowed) or does not convert.
public struct PostgresRow: Sendable {
    /// The column names, shared by the rows of one result.
    public let columns: [String]
    /// Each value's text form as sent by the server, nil for NULL.
    public let values: [[UInt8]?]

    public init(columns: [String], values: [[UInt8]?]) {
        self.columns = columns
        self.values = values
    }

    /// True when the value at `column` is NULL.
    public func isNull(_ column: Int) throws(PostgresError) -> Bool { try raw(column) == nil }

    /// The text at `column`; NULL is an error.
    public func string(_ column: Int) throws(PostgresError) -> String {
        guard let text = try optionalString(column) else { throw nullError(column) }
        return text
    }

    /// The text at `column`, nil for NULL.
    public func optionalString(_ column: Int) throws(PostgresError) -> String? {
        try raw(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The integer at `column` (any integer type's text form); NULL or anything else is an error.
    public func int(_ column: Int) throws(PostgresError) -> Int {
        guard let value = try optionalInt(column) else { throw nullError(column) }
        return value
    }

    /// The integer at `column`, nil for NULL.
    public func optionalInt(_ column: Int) throws(PostgresError) -> Int? {
        guard let text = try optionalString(column) else { return nil }
        guard let value = Int(text) else {
            throw .decoding(column: name(column), reason: "not an integer: \(text.prefix(40))")
        }
        return value
    }

    /// The boolean at `column` (`t` / `f`); NULL or anything else is an error.
    public func bool(_ column: Int) throws(PostgresError) -> Bool {
        switch try string(column) {
        case "t": true
        case "f": false
        case let other: throw .decoding(column: name(column), reason: "not a boolean: \(other.prefix(40))")
        }
    }

    /// The bytes of the `bytea` at `column`; NULL is an error.
    public func bytes(_ column: Int) throws(PostgresError) -> [UInt8] {
        guard let value = try optionalBytes(column) else { throw nullError(column) }
        return value
    }

    /// The bytes of the `bytea` at `column`, nil for NULL. Reads the hex output format (`\x0a1b…`, the default
    /// since PostgreSQL 9.0); the legacy escape format is refused as a decoding error rather than misread.
    public func optionalBytes(_ column: Int) throws(PostgresError) -> [UInt8]? {
        guard let text = try raw(column) else { return nil }
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"),
            let bytes = Hex.decode(String(decoding: text.dropFirst(2), as: UTF8.self))
        else { throw .decoding(column: name(column), reason: "not a bytea in hex format") }
        return bytes
    }

    /// The position of the column called `name`.
    public func column(_ name: String) throws(PostgresError) -> Int {
        guard let index = columns.firstIndex(of: name) else { throw .decoding(column: name, reason: "no such column") }
        return index
    }

    private func raw(_ column: Int) throws(PostgresError) -> [UInt8]? {
        guard values.indices.contains(column) else {
            throw .decoding(column: "#\(column)", reason: "the row has \(values.count) columns")
        }
        return values[column]
    }

    private func name(_ column: Int) -> String { columns.indices.contains(column) ? columns[column] : "#\(column)" }

    private func nullError(_ column: Int) -> PostgresError { .decoding(column: name(column), reason: "is NULL") }
}
