/// Builds the small JSON documents the store writes as audit `before`/`after` values.
///
/// Values are JSON fragments as bytes, so an opaque document the caller gave (already checked to be JSON) is
/// embedded as it is, not re-encoded.
enum AuditJSON {
    /// `{"key": value, …}` in the given order.
    static func object(_ members: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, (key, value)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += string(key)
            out.append(UInt8(ascii: ":"))
            out += value
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `[a, b, …]`.
    static func array(_ elements: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += element
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// A JSON string literal, escaping quotes, backslashes and control characters.
    static func string(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20:
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// A JSON number.
    static func number(_ value: Int) -> [UInt8] { Array(String(value).utf8) }

    /// `true` or `false`.
    static func bool(_ value: Bool) -> [UInt8] { Array((value ? "true" : "false").utf8) }

    /// `null`.
    static let null: [UInt8] = Array("null".utf8)
}
