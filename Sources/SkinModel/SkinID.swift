import LiveryJSON

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
        guard (1...64).contains(bytes.count), !text.includes("..") else { return false }
        func lowerAlnum(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
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

extension SkinID {
    /// An id made from free text such as a file name (`Theme 0` → `theme-0`): lowercased, every character outside
    /// the rule replaced by `-`, runs of `.` shortened, leading characters that may not start an id dropped, cut
    /// to 64 characters; `nil` when nothing usable is left.
    public init?(deriving text: String) {
        var bytes: [UInt8] = []
        for byte in text.lowercased().utf8 {
            let allowed =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            let next = allowed ? byte : UInt8(ascii: "-")
            if next == UInt8(ascii: "."), bytes.last == UInt8(ascii: ".") { continue }
            if bytes.isEmpty, !(next >= UInt8(ascii: "a") && next <= UInt8(ascii: "z")),
                !(next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9"))
            {
                continue
            }
            bytes.append(next)
        }
        guard let id = SkinID(String(decoding: bytes.prefix(64), as: UTF8.self)) else { return nil }
        self = id
    }
}
