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
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard (1...9).contains(piece.utf8.count),
                piece.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let number = Int(piece)
            else { return nil }
            parts.append(number)
        }
        self.parts = parts
        self.text = text
    }

    /// The parts with trailing zeros removed: the identity used for equality and hashing.
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
