/// A JSON value as parsed by ``JSONValue/parse(_:)``: objects keep their members in source order.
///
/// Equality is structural and order-sensitive for objects (two objects with the same members in a different
/// order are different values), which is what byte-deterministic serialization needs.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string payload, or `nil` for any other kind of value.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The object payload, or `nil` for any other kind of value.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The array payload, or `nil` for any other kind of value.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value as an exact integer, or `nil` when it is not a number with an integral value that fits `Int`.
    public var intValue: Int? {
        if case .number(let number) = self { return number.intValue }
        return nil
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind for messages: "null", "boolean", "number", "string", "array", "object".
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }

    /// Builds an object in the literal's order; a repeated key keeps its first position and takes the last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
