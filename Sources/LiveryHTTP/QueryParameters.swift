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
                items.append(
                    Item(
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
    /// names encoded once and only notes where each value lies; a value is decoded when it is read, and
    /// `FirstQueryValues.withBytes` reads one without making a `String`.
    public func firstValues(of names: QueryParameterNames) -> FirstQueryValues {
        // Positions are kept as 32-bit offsets; no request line comes near this, and a query that did would
        // simply have none of the values.
        guard raw.utf8.count < Int32.max else { return FirstQueryValues(raw: raw, count: names.count) }
        // The names' storage is opened once for the whole query, not once per pair (each opening retains and
        // releases arrays that every event loop shares).
        let bounds = names.withMatcher { matcher in
            Self.withBytes(of: raw) { bytes in
                var bounds = FirstQueryValues.Bounds()
                var missing = names.count
                Self.forEachPair(in: bytes) { rawName, value, nameIsEscaped in
                    guard
                        let index = nameIsEscaped
                            ? Array(PercentEncoding.decodeQueryComponent(rawName).utf8).withUnsafeBufferPointer({
                                matcher.index(of: $0)
                            })
                            : matcher.index(of: rawName)
                    else { return true }
                    if !bounds.isPresent(index) {
                        let start = value.map { bytes.baseAddress!.distance(to: $0.baseAddress!) } ?? 0
                        bounds.set(index, start: start, end: start + (value?.count ?? 0))
                        missing -= 1
                    }
                    return missing > 0
                }
                return bounds
            }
        }
        return FirstQueryValues(raw: raw, count: names.count, bounds: bounds)
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

    static func withBytes<R>(of text: Substring, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// Calls `body` with each non-empty pair's raw name, raw value (nil without `=`) and whether the name holds
    /// `%` or `+`, until it returns false. `&` and `=` are ASCII, so they never split a UTF-8 sequence.
    private static func forEachPair(
        in bytes: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>?, Bool) -> Bool
    ) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            // The pair ends at the next `&` (found with memchr); only its name is scanned byte by byte.
            let end =
                memchr(base + start, Int32(UInt8(ascii: "&")), bytes.count - start)
                .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
            var nameEnd = start
            var nameIsEscaped = false
            while nameEnd < end {
                let byte = bytes[nameEnd]
                if byte == UInt8(ascii: "=") { break }
                if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") { nameIsEscaped = true }
                nameEnd += 1
            }
            if end > start {
                let name = UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])
                let value = nameEnd < end ? UnsafeBufferPointer(rebasing: bytes[(nameEnd + 1)..<end]) : nil
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

/// The first values of a `QueryParameterNames` list, as `QueryParameters.firstValues(of:)` found them: positions
/// in the raw query, decoded only when read. Element `i` is the value of the list's name `i` (nil when absent).
public struct FirstQueryValues: RandomAccessCollection, Sendable {
    /// Where each value lies in the raw query: `(start + 1) << 32 | end` in UTF-8 offsets, 0 when absent. Eight
    /// words in place (`QueryParameterNames.maximumCount`), so finding the values allocates nothing.
    struct Bounds {
        private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

        func isPresent(_ index: Int) -> Bool { word(index) != 0 }

        /// The UTF-8 offsets of value `index`; only for a present value.
        func range(_ index: Int) -> Range<Int> {
            let word = word(index)
            return Int(word >> 32) - 1..<Int(word & 0xFFFF_FFFF)
        }

        mutating func set(_ index: Int, start: Int, end: Int) {
            precondition(index >= 0 && index < 8)
            withUnsafeMutableBytes(of: &words) { words in
                words.storeBytes(of: UInt64(start + 1) << 32 | UInt64(end), toByteOffset: index * 8, as: UInt64.self)
            }
        }

        private func word(_ index: Int) -> UInt64 {
            precondition(index >= 0 && index < 8)
            return withUnsafeBytes(of: words) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
        }
    }

    /// The raw query the positions point into.
    private let raw: Substring
    private let bounds: Bounds
    public let count: Int

    init(raw: Substring, count: Int, bounds: Bounds = Bounds()) {
        self.raw = raw
        self.count = count
        self.bounds = bounds
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// Value `index`, decoded, or nil when absent.
    public subscript(index: Int) -> String? {
        var value: String?
        visitBytes(index) { value = String(decoding: $0, as: UTF8.self) }
        return value
    }

    /// Calls `body` with the decoded UTF-8 bytes of value `index` (valid only during the call) and returns its
    /// result, or returns nil when the value is absent. A value without `%` or `+` is passed in place, uncopied.
    @inlinable
    public func withBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        var result: R?
        visitBytes(index) { result = body($0) }
        return result
    }

    /// Calls `body` with the index and decoded UTF-8 bytes (valid only during the call) of every present value, in
    /// index order, reaching the query's storage once for all of them (`withBytes` reaches it once per value).
    public func visitPresent(_ body: (_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Void) {
        QueryParameters.withBytes(of: raw) { bytes in
            for index in 0..<count where bounds.isPresent(index) {
                let value = UnsafeBufferPointer(rebasing: bytes[bounds.range(index)])
                if value.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
                    Array(PercentEncoding.decodeQueryComponent(value).utf8).withUnsafeBufferPointer { body(index, $0) }
                } else {
                    body(index, value)
                }
            }
        }
    }

    /// `withBytes` without generics, so callers in other modules get a specialized `withBytes` around it.
    @usableFromInline
    func visitBytes(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard index >= 0 && index < count, bounds.isPresent(index) else { return }
        let range = bounds.range(index)
        QueryParameters.withBytes(of: raw) { bytes in
            let value = UnsafeBufferPointer(rebasing: bytes[range])
            guard value.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
                return body(value)
            }
            Array(PercentEncoding.decodeQueryComponent(value).utf8).withUnsafeBufferPointer(body)
        }
    }
}

/// A fixed list of at most 8 query parameter names, encoded once, for `QueryParameters.firstValues(of:)`.
public struct QueryParameterNames: Sendable {
    /// The most names a list may hold.
    public static let maximumCount = 8

    /// Every name's UTF-8 bytes, one after another, in the order given.
    private let bytes: [UInt8]
    /// Where each name starts in `bytes`; one more entry than there are names (the end of the last).
    private let starts: [Int]

    /// How many names there are.
    var count: Int { starts.count - 1 }

    /// - Precondition: `names.count <= maximumCount`.
    public init(_ names: [String]) {
        precondition(names.count <= Self.maximumCount, "at most \(Self.maximumCount) query parameter names")
        var bytes: [UInt8] = []
        var starts = [0]
        for name in names {
            bytes += name.utf8
            starts.append(bytes.count)
        }
        self.bytes = bytes
        self.starts = starts
    }

    /// The names' bytes opened for matching many candidates.
    struct Matcher {
        let bytes: UnsafeBufferPointer<UInt8>
        let starts: UnsafeBufferPointer<Int>

        /// The position of the first name equal to `candidate`, or nil.
        func index(of candidate: UnsafeBufferPointer<UInt8>) -> Int? {
            for index in 0..<(starts.count - 1) where starts[index + 1] - starts[index] == candidate.count {
                if candidate.isEmpty
                    || memcmp(bytes.baseAddress! + starts[index], candidate.baseAddress!, candidate.count) == 0
                {
                    return index
                }
            }
            return nil
        }
    }

    /// Calls `body` with a matcher over the names, valid only during the call.
    func withMatcher<R>(_ body: (Matcher) -> R) -> R {
        bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in body(Matcher(bytes: bytes, starts: starts)) }
        }
    }

    /// The position of the first name equal to `candidate`, or nil.
    func index(of candidate: UnsafeBufferPointer<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                for index in 0..<(starts.count - 1) where starts[index + 1] - starts[index] == candidate.count {
                    if candidate.isEmpty
                        || memcmp(bytes.baseAddress! + starts[index], candidate.baseAddress!, candidate.count) == 0
                    {
                        return index
                    }
                }
                return nil
            }
        }
    }

    func index(of candidate: [UInt8]) -> Int? { candidate.withUnsafeBufferPointer { index(of: $0) } }
}
