/// A validated route pattern: `/`-separated segments, each a literal or a `:name` parameter.
///
/// `/api/v1/packages/:sign` has three literals and one parameter. Literals match a path segment after
/// percent-decoding, exactly (case-sensitive). `/` alone is the root. A trailing `/` is a segment of its own
/// (empty literal), so `/a/` and `/a` are different routes. Parameter names are unique within a pattern.
struct RoutePattern: Hashable, CustomStringConvertible {
    enum Segment: Hashable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]
    let description: String

    /// Parses a pattern; nil if it does not start with `/`, has an empty or repeated parameter name, or a
    /// literal that contains `%`, `?` or `#` (patterns are written decoded).
    init?(_ text: String) {
        guard text.hasPrefix("/") else { return nil }
        var segments: [Segment] = []
        var names = Set<String>()
        if text != "/" {
            for part in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
                if part.hasPrefix(":") {
                    let name = String(part.dropFirst())
                    guard !name.isEmpty, names.insert(name).inserted else { return nil }
                    segments.append(.parameter(name))
                } else {
                    guard !part.contains(where: { $0 == "%" || $0 == "?" || $0 == "#" }) else { return nil }
                    segments.append(.literal(String(part)))
                }
            }
        }
        self.segments = segments
        self.description = text
    }

    /// `prefix` followed by `self` (for route groups); `/` as prefix or pattern adds nothing.
    static func join(_ prefix: String, _ pattern: String) -> String {
        let trimmedPrefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        if pattern == "/" { return trimmedPrefix.isEmpty ? "/" : trimmedPrefix }
        return trimmedPrefix + pattern
    }
}
