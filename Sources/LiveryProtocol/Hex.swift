/// Lowercase hexadecimal encoding and strict decoding.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`, two characters per byte.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex (either case); `nil` for odd length or any non-hex character.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// Whether `byte` is one of `0-9a-f`.
    public static func isLowerHexDigit(_ byte: UInt8) -> Bool { lowerNibble(byte) != nil }

    /// The value of `byte` as a lowercase hex digit (`0-9a-f`), or nil.
    @inlinable
    public static func lowerNibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        default: nil
        }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        if let value = lowerNibble(c) { return value }
        return (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(c) ? c - UInt8(ascii: "A") + 10 : nil
    }
}
