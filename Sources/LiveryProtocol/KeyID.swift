/// The name of a signing key: what `livery keys create --id` was given, recorded in the key file and sent as the
/// `keyid` of every signature so apps know which embedded public key to verify with.
///
/// A `PlainName`: 1–64 characters of `A-Z a-z 0-9 . _ -`, safe in a file name, a header's quoted string and a log
/// line as it is.
public struct KeyID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id as written.
    public let text: String

    /// `nil` unless `text` follows the rule above.
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        guard PlainName.isValid(text) else { return nil }
        self.text = text
    }

    /// The rule, for error messages.
    public static let rule = PlainName.rule

    public var description: String { text }

    public static func < (lhs: KeyID, rhs: KeyID) -> Bool { lhs.text < rhs.text }
}
