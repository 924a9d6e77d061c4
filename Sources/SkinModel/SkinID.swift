/// A skin's identifier, checked once: `^[a-z0-9][a-z0-9._-]{0,63}$` and never containing `..`.
///
/// The rule makes an id safe as a file name, a URL path segment and a log value without further escaping.
public struct SkinID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id text; always matches the rule above.
    public let rawValue: String

    /// Checks `text` against the id rule; `nil` when it does not match.
    public init?(_ text: String) {
        guard SkinID.isValid(text) else { return nil }
        rawValue = text
    }

    public var description: String { rawValue }

    public static func < (lhs: SkinID, rhs: SkinID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether `text` matches `^[a-z0-9][a-z0-9._-]{0,63}$` and does not contain `..`.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...64).contains(bytes.count), !text.contains("..") else { return false }
        func lowerAlnum(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard lowerAlnum(bytes[0]) else { return false }
        return bytes.dropFirst().allSatisfy {
            lowerAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// The sentence used in reports and fixes to state the rule.
    static let ruleDescription =
        "1 to 64 characters: lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, without '..'"
}
