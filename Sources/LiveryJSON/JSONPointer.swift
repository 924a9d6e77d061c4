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
    /// Every occurrence of `target` replaced by `replacement`, scanning left to right and comparing `Character`s, as
    /// `split(separator:)` with a string separator does; written out because those string algorithms of
    /// `_StringProcessing` need iOS 16 / macOS 13, and this target builds for iOS 15 (and imports no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        let needle = Array(target)
        guard let first = needle.first else { return self }
        let characters = Array(self)
        guard characters.contains(first) else { return self }
        var output = ""
        output.reserveCapacity(utf8.count)
        var index = 0
        while index < characters.count {
            if index + needle.count <= characters.count, characters[index..<index + needle.count].elementsEqual(needle)
            {
                output += replacement
                index += needle.count
            } else {
                output.append(characters[index])
                index += 1
            }
        }
        return output
    }

    /// Whether `needle`'s UTF-8 bytes occur in this string's (an empty needle always does): for ASCII needles such as
    /// `".."` in text already known to be ASCII. Portable down to iOS 15, unlike `Collection.contains(_:)` of
    /// `_StringProcessing`.
    package func includes(_ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard !needle.isEmpty else { return true }
        let bytes = Array(utf8)
        guard needle.count <= bytes.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}
