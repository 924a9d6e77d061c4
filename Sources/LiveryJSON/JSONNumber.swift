/// A JSON number kept as its source text, so serialization reproduces exactly what was parsed.
///
/// Invariant: `text` matches the JSON number grammar of RFC 8259 §6
/// (`-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number's JSON text.
    public let text: String

    /// Wraps `text` when it is a valid JSON number, else `nil`.
    public init?(text: String) {
        guard JSONNumber.isValid(Array(text.utf8)) else { return nil }
        self.text = text
    }

    /// The JSON text of an integer.
    public init(_ value: Int) { text = String(value) }

    /// The shortest JSON text that reads back as `value`; `nil` for NaN and infinities, which JSON cannot spell.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int(value))
        } else {
            // Swift prints the shortest round-tripping form; "1e-07" style exponents are valid JSON.
            text = "\(value)"
        }
    }

    init(validatedText: String) { text = validatedText }

    /// The value as a `Double` (possibly rounded; huge exponents give infinity).
    public var doubleValue: Double { Double(text) ?? .nan }

    /// The value as an exact `Int` when it is integral and fits, else `nil` (`1e2` is 100, `1.5` is `nil`).
    public var intValue: Int? {
        if let exact = Int(text) { return exact }
        let value = doubleValue
        guard value.isFinite, value == value.rounded(), abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    public var description: String { text }

    /// Whether `bytes` spell one JSON number and nothing else.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            return scan(buffer, &index) && index == buffer.count
        }
    }

    /// Advances `index` over a JSON number starting there; returns `false` (with `index` at the offending byte)
    /// when the text there is not a valid number.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Bool {
        func digit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digit(index) else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if digit(index) { return false }
        } else {
            while digit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digit(index) else { return false }
            while digit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digit(index) else { return false }
            while digit(index) { index += 1 }
        }
        return true
    }
}
