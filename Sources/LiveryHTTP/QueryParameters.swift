#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The decoded `name=value` pairs of a query string, in order; names may repeat.
///
/// Parsed as `application/x-www-form-urlencoded` (WHATWG URL §5.1): pairs split on `&`, name and value on the
/// first `=`, `+` is a space, `%XX` is decoded, malformed escapes are kept literally. A pair without `=` has the
/// value `""`; empty pairs are skipped. Names compare exactly (case-sensitive), after decoding.
///
/// Decoding is lazy: the type keeps the raw query, and a lookup by name scans its UTF-8 bytes, comparing names
/// without decoding them (unless they contain `%` or `+`) and decoding only the value it returns. A poll looks up
/// a handful of parameters once each, so this costs far less than building every pair as two `String`s up front.
public struct QueryParameters: Sendable, Equatable, Sequence {
    /// One decoded pair.
    public struct Item: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    /// The raw query, without the `?`.
    private let raw: Substring

    /// No parameters.
    public init() { raw = "" }

    /// Keeps a raw query string (the part after `?`, without the `?`) for lookups.
    public init(parsing query: Substring) { raw = query }

    /// Every pair, decoded, in order.
    public var items: [Item] {
        var items: [Item] = []
        Self.withBytes(of: raw) { bytes in
            Self.forEachPair(in: bytes) { name, value, _ in
                items.append(Item(
                    name: PercentEncoding.decodeQueryComponent(name),
                    value: value.map(PercentEncoding.decodeQueryComponent) ?? ""))
                return true
            }
        }
        return items
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        var found: String?
        Self.withBytes(of: raw) { bytes in
            Self.forEachPair(in: bytes) { rawName, value, nameIsEscaped in
                guard Self.matches(rawName, escaped: nameIsEscaped, name: name) else { return true }
                found = value.map(PercentEncoding.decodeQueryComponent) ?? ""
                return false
            }
        }
        return found
    }

    /// Every value for `name`, in order.
    public func values(_ name: String) -> [String] {
        var values: [String] = []
        Self.withBytes(of: raw) { bytes in
            Self.forEachPair(in: bytes) { rawName, value, nameIsEscaped in
                if Self.matches(rawName, escaped: nameIsEscaped, name: name) {
                    values.append(value.map(PercentEncoding.decodeQueryComponent) ?? "")
                }
                return true
            }
        }
        return values
    }

    /// The first value of each of `names`, in their order (nil where absent), found in one pass over the query.
    ///
    /// Meant for handlers that read a fixed set of parameters on every request: it compares raw bytes against
    /// names encoded once, and makes a `String` only for the values it returns.
    public func firstValues(of names: QueryParameterNames) -> [String?] {
        var values = [String?](repeating: nil, count: names.utf8.count)
        var missing = names.utf8.count
        Self.withBytes(of: raw) { bytes in
            Self.forEachPair(in: bytes) { rawName, value, nameIsEscaped in
                guard let index = nameIsEscaped
                    ? names.index(of: Array(PercentEncoding.decodeQueryComponent(rawName).utf8))
                    : names.index(of: rawName)
                else { return true }
                if values[index] == nil {
                    values[index] = value.map(PercentEncoding.decodeQueryComponent) ?? ""
                    missing -= 1
                }
                return missing > 0
            }
        }
        return values
    }

    /// Whether the query holds no pair (only empty pairs count as none).
    public var isEmpty: Bool {
        var empty = true
        Self.withBytes(of: raw) { bytes in
            Self.forEachPair(in: bytes) { _, _, _ in
                empty = false
                return false
            }
        }
        return empty
    }

    public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }

    /// Two queries are equal when they decode to the same pairs in the same order.
    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool { lhs.items == rhs.items }

    // MARK: - Scanning

    private static func withBytes(of text: Substring, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if text.utf8.withContiguousStorageIfAvailable(body) == nil {
            Array(text.utf8).withUnsafeBufferPointer(body)
        }
    }

    /// Calls `body` with each non-empty pair's raw name, raw value (nil without `=`) and whether the name holds
    /// `%` or `+`, until it returns false. `&` and `=` are ASCII, so they never split a UTF-8 sequence.
    private static func forEachPair(
        in bytes: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>?, Bool) -> Bool
    ) {
        var start = 0
        while start < bytes.count {
            var end = start
            var equals = -1
            var nameIsEscaped = false
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "&") { break }
                if equals < 0 {
                    if byte == UInt8(ascii: "=") {
                        equals = end
                    } else if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") {
                        nameIsEscaped = true
                    }
                }
                end += 1
            }
            if end > start {
                let nameEnd = equals < 0 ? end : equals
                let name = UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])
                let value = equals < 0 ? nil : UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end])
                if !body(name, value, nameIsEscaped) { return }
            }
            start = end + 1
        }
    }

    private static func matches(_ rawName: UnsafeBufferPointer<UInt8>, escaped: Bool, name: String) -> Bool {
        if escaped { return PercentEncoding.decodeQueryComponent(rawName) == name }
        guard rawName.count == name.utf8.count else { return false }
        return rawName.elementsEqual(name.utf8)
    }
}

/// A fixed list of query parameter names, encoded once, for `QueryParameters.firstValues(of:)`.
public struct QueryParameterNames: Sendable {
    /// The names' UTF-8 bytes, in the order given.
    let utf8: [[UInt8]]

    public init(_ names: [String]) { utf8 = names.map { Array($0.utf8) } }

    /// The position of the first name equal to `bytes`, or nil.
    func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for (index, name) in utf8.enumerated() where name.count == bytes.count {
            let equal = name.withUnsafeBufferPointer { name in
                name.isEmpty || memcmp(name.baseAddress!, bytes.baseAddress!, name.count) == 0
            }
            if equal { return index }
        }
        return nil
    }

    func index(of bytes: [UInt8]) -> Int? { bytes.withUnsafeBufferPointer { index(of: $0) } }
}
