/// An app version of 1 to 4 dot-separated decimal numbers (`7`, `7.0`, `7.10.2`, `7.0.0.1234`).
///
/// Missing trailing parts count as zero, so `7.0 == 7.0.0` (equality and hashing use the normalized parts);
/// comparison is numeric part by part, so `7.10 > 7.9`. Each part has at most 9 digits.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The parts as written (1 to 4 of them).
    public let parts: [Int]
    /// The text as given.
    public let text: String

    /// Parses `text`; `nil` unless it is 1 to 4 dot-separated runs of 1 to 9 ASCII digits.
    public init?(_ text: String) {
        // One pass over the UTF-8 bytes (this runs on every poll): dotted groups of 1–9 ASCII digits, 1–4 groups.
        var parts: [Int] = []
        parts.reserveCapacity(4)
        var current = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, parts.count < 3 else { return nil }
                parts.append(current)
                current = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 9 {
                current = current * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        parts.append(current)
        self.parts = parts
        self.text = text
    }

    private var normalized: ArraySlice<Int> {
        var end = parts.count
        while end > 0, parts[end - 1] == 0 { end -= 1 }
        return parts[0..<end]
    }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.normalized == rhs.normalized }
    public func hash(into hasher: inout Hasher) { hasher.combine(Array(normalized)) }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        for position in 0..<4 {
            let left = position < lhs.parts.count ? lhs.parts[position] : 0
            let right = position < rhs.parts.count ? rhs.parts[position] : 0
            if left != right { return left < right }
        }
        return false
    }

    public var description: String { text }
}
