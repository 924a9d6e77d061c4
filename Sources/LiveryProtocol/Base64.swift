/// Standard base64 (RFC 4648 §4: `A-Z a-z 0-9 + /`, `=` padding) with canonical, strict decoding.
///
/// Decoding refuses anything a canonical encoder would not write: whitespace, the URL-safe alphabet, missing or
/// extra padding, and non-zero bits in the last character's unused low bits. So each byte string has exactly one
/// accepted spelling, which matters for values that are compared or signed.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 255 for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// The padded base64 text of `bytes`.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or `nil` unless `text` is canonical padded base64 (see the type's notes).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 4 * 3)
        var index = 0
        while index < utf8.count {
            let isLast = index + 4 == utf8.count
            let padding =
                isLast ? (utf8[index + 3] == UInt8(ascii: "=") ? (utf8[index + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            var group: UInt32 = 0
            for offset in 0..<4 {
                let value = offset < 4 - padding ? values[Int(utf8[index + offset])] : 0
                guard value != 255 else { return nil }
                group = group << 6 | UInt32(value)
            }
            out.append(UInt8(group >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(group >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(group & 0xFF)) }
            // Canonical: the bits the padding leaves unused must be zero.
            if padding == 2 && group & 0xFFFF != 0 { return nil }
            if padding == 1 && group & 0xFF != 0 { return nil }
            index += 4
        }
        return out
    }
}
