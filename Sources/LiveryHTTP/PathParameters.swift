/// The values of a route's `:name` segments, percent-decoded, found by name without the colon: what
/// `HTTPRoute.pathParameters` and `HTTPRequest.pathParameters` hold.
///
/// The names are the route's own array, shared by every request it answers, and the values are in the pattern's
/// order, so a match builds no dictionary: a lookup compares the route's one or two names. Compares equal to a value
/// with the same name-value pairs in any order, as a dictionary would.
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// Invariant: `first` holds the value of `names[0]` and `rest` those of `names[1...]` (`rest.count ==
    /// max(0, names.count - 1)`); no name appears twice.
    private var names: [String]
    /// The value of `names[0]` (empty without names): kept out of an array, so a route with one parameter (most)
    /// allocates nothing for it.
    private var first: Substring
    /// The values of `names[1...]`, in order.
    private var rest: [Substring]

    /// No parameters.
    public init() {
        names = []
        first = ""
        rest = []
    }

    /// `names` and `values` in the pattern's order; extra values or names (on either side) are left out.
    init(names: [String], values: [String]) {
        let count = min(names.count, values.count)
        self.names = names.count == count ? names : Array(names.prefix(count))
        first = count > 0 ? Substring(values[0]) : ""
        rest = count > 1 ? values[1..<count].map { Substring($0) } : []
    }

    /// A route's one parameter, `name`, with `value` (a slice of the request's target when it needed no decoding).
    init(names: [String], only value: Substring) {
        self.names = names.isEmpty ? [] : names.count == 1 ? names : [names[0]]
        first = names.isEmpty ? "" : value
        rest = []
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
