/// The name of a signing key: what `livery keys create --id` was given, recorded in the key file and sent as the
/// `keyid` of every signature so apps know which embedded public key to verify with.
///
/// 1–64 characters of `A-Z a-z 0-9 . _ -`: safe in a file name, a header's quoted string and a log line as it is.
public struct KeyID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id as written.
    public let text: String

    /// `nil` unless `text` follows the rule above.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard (1...64).contains(bytes.count), bytes.allSatisfy(Self.isAllowed) else { return nil }
        self.text = String(text)
    }

    /// The rule, for error messages.
    public static let rule = "1-64 characters of A-Z a-z 0-9 . _ -"

    public var description: String { text }

    public static func < (lhs: KeyID, rhs: KeyID) -> Bool { lhs.text < rhs.text }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
