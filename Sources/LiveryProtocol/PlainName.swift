/// The one rule for plain names (app ids, key ids, admin token names): 1–64 characters of `A-Z a-z 0-9 . _ -`.
///
/// Such a name is safe as it is in a file name, a URL path segment or query value, a header's quoted string and a
/// log line, so it is checked once with this rule and then used without escaping.
public enum PlainName {
    /// The rule, for error messages.
    public static let rule = "1-64 characters of A-Z a-z 0-9 . _ -"

    /// The most UTF-8 bytes a plain name holds.
    public static let maximumLength = 64

    /// Whether `byte` is one of `A-Z a-z 0-9 . _ -`.
    @inlinable
    public static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// Whether `text` follows the rule. Reads the bytes in place when they are contiguous (as they are for strings
    /// made from request bytes), so it costs one pass over at most 64 bytes.
    @inlinable
    public static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...maximumLength).contains(utf8.count) else { return false }
        return utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isAllowed) } ?? utf8.allSatisfy(isAllowed)
    }

    /// Whether `text` follows the rule.
    @inlinable
    public static func isValid(_ text: Substring) -> Bool {
        let utf8 = text.utf8
        guard (1...maximumLength).contains(utf8.count) else { return false }
        return utf8.allSatisfy(isAllowed)
    }
}
