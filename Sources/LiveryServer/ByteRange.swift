/// A single byte range requested with `Range: bytes=…` (RFC 9110 §14.1.2), resolved against a length.
public struct ByteRange: Sendable, Equatable {
    /// First byte offset, inclusive.
    public let first: UInt64
    /// Last byte offset, inclusive.
    public let last: UInt64

    public var length: UInt64 { last - first + 1 }

    /// What a `Range` header asks for, given the representation's length.
    public enum Outcome: Sendable, Equatable {
        /// Send the whole representation with 200: no header, a syntax the server ignores (RFC 9110 §14.2 lets a
        /// server ignore an invalid Range), or several ranges (which this server answers in full).
        case full
        /// Send this part with 206.
        case partial(ByteRange)
        /// Send 416 with `Content-Range: bytes */length`.
        case unsatisfiable
    }

    /// Interprets a `Range` header value for a representation of `length` bytes.
    public static func evaluate(_ header: String?, length: UInt64) -> Outcome {
        guard let header else { return .full }
        let trimmed = header.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .full }
        let spec = trimmed.dropFirst("bytes=".count).trimmingSpaces
        if spec.contains(",") { return .full }
        guard let dash = spec.firstIndex(of: "-") else { return .full }
        let firstText = spec[..<dash].trimmingSpaces
        let lastText = spec[spec.index(after: dash)...].trimmingSpaces
        if firstText.isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = digits(lastText) else { return .full }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            let count = min(suffix, length)
            return .partial(ByteRange(first: length - count, last: length - 1))
        }
        guard let first = digits(firstText) else { return .full }
        var last = length == 0 ? 0 : length - 1
        if !lastText.isEmpty {
            guard let requested = digits(lastText) else { return .full }
            guard requested >= first else { return .full }
            last = min(requested, last)
        }
        guard first < length else { return .unsatisfiable }
        return .partial(ByteRange(first: first, last: last))
    }

    /// A non-negative decimal that fits in `UInt64`; `nil` for anything else (signs, spaces, overflow).
    private static func digits(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return UInt64(text)
    }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return Substring(slice)
    }
}
