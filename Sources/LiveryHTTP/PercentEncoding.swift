/// Percent-decoding (RFC 3986 §2.1) for paths and query strings.
enum PercentEncoding {
    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Whether `byte` is a hex digit (RFC 3986 `HEXDIG`, either case).
    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    /// Strictly decodes a path segment or path: nil if a `%` is not followed by two hex digits, if the result is
    /// not valid UTF-8, or if it contains NUL. Text without `%` is returned as is, without copying.
    static func decodePath(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                let decoded = high << 4 | low
                guard decoded != 0 else { return nil }
                bytes.append(decoded)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Leniently decodes a query component as browsers do: `+` is a space, `%XX` a byte, a malformed `%` stays
    /// literal, and invalid UTF-8 becomes U+FFFD.
    static func decodeQueryComponent(_ text: Substring) -> String {
        if let decoded = text.utf8.withContiguousStorageIfAvailable(decodeQueryComponent) { return decoded }
        return Array(text.utf8).withUnsafeBufferPointer(decodeQueryComponent)
    }

    /// `decodeQueryComponent` on raw UTF-8 bytes (invalid sequences become U+FFFD).
    static func decodeQueryComponent(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
            index += 1
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
