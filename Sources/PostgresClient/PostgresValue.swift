/// A query parameter: NULL, a value in PostgreSQL's text form (the server infers its type from the statement), or
/// bytes sent in binary as `bytea` (any byte sequence, NUL included).
public enum PostgresValue: Sendable, Hashable {
    case null
    case text(String)
    case bytes([UInt8])

    /// An integer, in its text form.
    public static func int(_ value: some BinaryInteger) -> PostgresValue { .text(String(value)) }
    /// A boolean, in its text form.
    public static func bool(_ value: Bool) -> PostgresValue { .text(value ? "true" : "false") }
    /// `value`, or NULL when it is nil.
    public static func optional(_ value: String?) -> PostgresValue { value.map(PostgresValue.text) ?? .null }
}

extension PostgresValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral,
    ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
