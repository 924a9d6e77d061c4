/// An RFC 6901 JSON pointer such as `/home_tabbar/colors/color_background`, naming one place in a JSON document.
///
/// The empty pointer names the whole document. Tokens are escaped on output (`~` → `~0`, `/` → `~1`).
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens, outermost first.
    public let tokens: [String]

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) { self.tokens = tokens }

    /// Reads the escaped RFC 6901 text ``description`` writes; `nil` unless it is empty or starts with `/`.
    public init?(parsing text: String) {
        guard text.isEmpty || text.hasPrefix("/") else { return nil }
        tokens = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            .map { String($0).replacingAll("~1", with: "/").replacingAll("~0", with: "~") }
    }

    /// This pointer with `token` appended (an object key, or an array index written in decimal).
    public func appending(_ token: String) -> JSONPointer { JSONPointer(tokens: tokens + [token]) }

    /// This pointer with an array index appended.
    public func appending(_ index: Int) -> JSONPointer { appending(String(index)) }

    /// The escaped RFC 6901 text; `""` for the root.
    public var description: String {
        tokens.map { "/" + $0.replacingAll("~", with: "~0").replacingAll("/", with: "~1") }.joined()
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (Foundation-free).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
