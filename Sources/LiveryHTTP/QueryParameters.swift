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
    ///
    /// Works on UTF-8 code units: `&` and `=` are ASCII, so they always fall on scalar boundaries and splitting
    /// there needs none of `String`'s grapheme handling (which cost more than the rest of a poll request).
    public init(parsing query: Substring) {
        guard !query.isEmpty else {
            items = []
            return
        }
        var items: [Item] = []
        let utf8 = query.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            var end = start
            var equals: String.Index?
            while end < utf8.endIndex {
                let byte = utf8[end]
                if byte == UInt8(ascii: "&") { break }
                if byte == UInt8(ascii: "="), equals == nil { equals = end }
                end = utf8.index(after: end)
            }
            if end > start {
                if let equals {
                    items.append(Item(
                        name: PercentEncoding.decodeQueryComponent(query[start..<equals]),
                        value: PercentEncoding.decodeQueryComponent(query[utf8.index(after: equals)..<end])))
                } else {
                    items.append(Item(name: PercentEncoding.decodeQueryComponent(query[start..<end]), value: ""))
                }
            }
            start = end < utf8.endIndex ? utf8.index(after: end) : end
        }
        self.items = items
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
