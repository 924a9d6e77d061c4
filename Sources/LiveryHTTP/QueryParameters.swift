/// The decoded `name=value` pairs of a query string, in order; names may repeat.
///
/// Parsed as `application/x-www-form-urlencoded` (WHATWG URL §5.1): pairs split on `&`, name and value on the
/// first `=`, `+` is a space, `%XX` is decoded, malformed escapes are kept literally. A pair without `=` has the
/// value `""`; empty pairs are skipped. Names compare exactly (case-sensitive).
public struct QueryParameters: Sendable, Equatable, Sequence {
    /// One decoded pair.
    public struct Item: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    public let items: [Item]

    /// No parameters.
    public init() { items = [] }

    /// Parses a raw query string (the part after `?`, without the `?`).
    public init(parsing query: Substring) {
        guard !query.isEmpty else {
            items = []
            return
        }
        items = query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                Item(
                    name: PercentEncoding.decodeQueryComponent(pair[..<equals]),
                    value: PercentEncoding.decodeQueryComponent(pair[pair.index(after: equals)...])
                )
            } else {
                Item(name: PercentEncoding.decodeQueryComponent(pair), value: "")
            }
        }
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// Every value for `name`, in order.
    public func values(_ name: String) -> [String] {
        items.compactMap { $0.name == name ? $0.value : nil }
    }

    public var isEmpty: Bool { items.isEmpty }

    public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }
}
