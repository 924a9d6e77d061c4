/// The values of a route's `:name` segments, percent-decoded, found by name without the colon: what
/// `HTTPRoute.pathParameters` and `HTTPRequest.pathParameters` hold.
///
/// The names are the route's own array, shared by every request it answers, and the values are in the pattern's
/// order, so a match builds no dictionary: a lookup compares the route's one or two names. Compares equal to a value
/// with the same name-value pairs in any order, as a dictionary would.
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// Invariant: the value of `names[0]` is the UTF-8 of `firstBase` from byte `firstOffset` on, and `rest` holds
    /// those of `names[1...]` (`rest.count == max(0, names.count - 1)`); no name appears twice.
    @usableFromInline var names: [String]
    /// Holds the value of `names[0]` (empty without names), from byte `firstOffset` on: kept out of an array, so a
    /// route with one parameter (most) allocates nothing for it, and kept as the raw path it ends, so a match makes
    /// no slice of it (a slice of a string is made only when `value(_:)` asks, `withUTF8(_:_:)` reads it in place).
    @usableFromInline var firstBase: Substring
    @usableFromInline var firstOffset: Int
    /// The values of `names[1...]`, in order.
    @usableFromInline var rest: [Substring]

    /// No parameters.
    public init() {
        names = []
        firstBase = ""
        firstOffset = 0
        rest = []
    }

    /// `names` and `values` in the pattern's order; extra values or names (on either side) are left out.
    init(names: [String], values: [String]) {
        let count = min(names.count, values.count)
        self.names = names.count == count ? names : Array(names.prefix(count))
        firstBase = count > 0 ? Substring(values[0]) : ""
        firstOffset = 0
        rest = count > 1 ? values[1..<count].map { Substring($0) } : []
    }

    /// A route's one parameter, `name`: the bytes of `path` (the raw path, its own decoded form) from byte `offset`
    /// on, the last segment.
    init(names: [String], only path: Substring, from offset: Int) {
        self.names = names.isEmpty ? [] : names.count == 1 ? names : [names[0]]
        firstBase = names.isEmpty ? "" : path
        firstOffset = names.isEmpty ? 0 : min(max(0, offset), path.utf8.count)
        rest = []
    }

    /// The value of `names[0]`.
    @usableFromInline var first: Substring {
        guard firstOffset > 0 else { return firstBase }
        let utf8 = firstBase.utf8
        return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: firstOffset)...])
    }

    /// A later pair replaces an earlier one with the same name.
    public init(dictionaryLiteral elements: (String, String)...) {
        var names: [String] = []
        var values: [String] = []
        for (name, value) in elements {
            if let index = names.firstIndex(of: name) {
                values[index] = value
            } else {
                names.append(name)
                values.append(value)
            }
        }
        self.init(names: names, values: values)
    }

    /// The value of the `:name` segment, or nil when the route has none of that name.
    public subscript(name: String) -> String? { value(name).map { String($0) } }

    /// The value of the `:name` segment without copying it, or nil when the route has none of that name.
    public func value(_ name: String) -> Substring? {
        guard let index = names.firstIndex(of: name) else { return nil }
        return index == 0 ? first : rest[index - 1]
    }

    /// Calls `body` with the UTF-8 of the `:name` segment's value, read in place where it can be; nil when the
    /// route has no parameter of that name.
    @inlinable
    public func withUTF8<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard let index = names.firstIndex(of: name) else { return nil }
        if index == 0 {
            let offset = firstOffset
            if let result = firstBase.utf8.withContiguousStorageIfAvailable({
                body(UnsafeBufferPointer(rebasing: $0[offset...]))
            }) {
                return result
            }
        }
        var value = String(index == 0 ? first : rest[index - 1])
        return value.withUTF8(body)
    }

    /// How many parameters there are.
    public var count: Int { names.count }
    public var isEmpty: Bool { names.isEmpty }

    /// The parameters as a dictionary.
    public var dictionary: [String: String] {
        var dictionary: [String: String] = [:]
        for name in names { dictionary[name] = self[name] }
        return dictionary
    }

    public var description: String { dictionary.description }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.count == rhs.count && lhs.names.allSatisfy { rhs.value($0) == lhs.value($0) }
    }
}
