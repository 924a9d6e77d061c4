/// The one JSON writer every Livery target uses to turn values into JSON bytes: HTTP error bodies, API answers,
/// `skin.json`/`config.json` serialization, audit records and log lines.
///
/// **The escaping rule** (RFC 8259 §7, the minimum it requires, applied byte for byte to UTF-8):
/// - `"` and `\` are written as `\"` and `\\`;
/// - the control characters U+0000–U+001F are written as `\b`, `\t`, `\n`, `\f`, `\r` where JSON has a short
///   form, and as `\u00xx` (lowercase hex) otherwise;
/// - every other character is written as its UTF-8 bytes, unchanged. That includes DEL (U+007F), the C1
///   controls (U+0080–U+009F) and `/`: JSON does not require escaping them, and `config.json` inside packages has
///   always been written this way, so escaping them would change the bytes of existing packages and with them
///   their signs, which must stay stable across versions of Livery.
///
/// Values are appended to `bytes` in order; the writer does not check that they form one document (callers
/// write separators and nesting themselves, or use ``object(_:)`` and ``array(_:)`` for fragments).
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public var bytes: [UInt8]

    /// An empty writer, with room for `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` as a JSON string literal, quotes included.
    public mutating func string(_ text: some StringProtocol) {
        Self.appendString(text, to: &bytes)
    }

    /// Appends bytes that are already JSON (or punctuation such as `{`, `,` or `":"`), unchanged.
    public mutating func raw(_ fragment: some Sequence<UInt8>) {
        bytes.append(contentsOf: fragment)
    }

    /// Appends an integer.
    public mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends `true` or `false`.
    public mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Appends `null`.
    public mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    // MARK: - Fragments as values

    /// `text` as a JSON string literal, quotes included.
    public static func string(_ text: some StringProtocol) -> [UInt8] {
        var out: [UInt8] = []
        appendString(text, to: &out)
        return out
    }

    /// `text` as a JSON string literal, quotes included, as a `String` (for answers assembled as text).
    public static func quoted(_ text: some StringProtocol) -> String {
        String(decoding: string(text), as: UTF8.self)
    }

    /// An integer as JSON.
    public static func number(_ value: Int) -> [UInt8] { Array(String(value).utf8) }

    /// `true` or `false`.
    public static func bool(_ value: Bool) -> [UInt8] { Array((value ? "true" : "false").utf8) }

    /// `null`.
    public static let null: [UInt8] = Array("null".utf8)

    /// `{"key":value,…}` in the given order; values are JSON fragments, keys are escaped.
    public static func object(_ members: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, (key, value)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: value)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `[a,b,…]` of JSON fragments.
    public static func array(_ elements: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: element)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// Appends `text` to `output` as a JSON string literal by the rule above.
    public static func appendString(_ text: some StringProtocol, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `text` escaped by the rule above, without the quotes (a piece of a string literal).
    public static func appendEscaped(_ text: some StringProtocol, to output: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x00..<0x20:
                output.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]
                ])
            default: output.append(byte)
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
