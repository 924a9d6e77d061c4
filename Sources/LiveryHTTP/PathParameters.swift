/// The values of a route's `:name` segments, percent-decoded, found by name without the colon: what
/// `HTTPRoute.pathParameters` and `HTTPRequest.pathParameters` hold.
///
/// The names are the route's own array, shared by every request it answers, and the values are in the pattern's
/// order, so a match builds no dictionary: a lookup compares the route's one or two names. Compares equal to a value
/// with the same name-value pairs in any order, as a dictionary would.
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// Invariant: `names.count == values.count` and no name appears twice.
    private var names: [String]
    private var values: [String]

    /// No parameters.
    public init() {
        names = []
        values = []
    }

    /// `names` and `values` in the pattern's order; extra values or names (on either side) are left out.
    init(names: [String], values: [String]) {
        if names.count == values.count {
            self.names = names
            self.values = values
        } else {
            let count = min(names.count, values.count)
            self.names = Array(names.prefix(count))
            self.values = Array(values.prefix(count))
        }
    }

    /// A later pair replaces an earlier one with the same name.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init()
        for (name, value) in elements {
            if let index = names.firstIndex(of: name) {
                values[index] = value
            } else {
                names.append(name)
                values.append(value)
            }
        }
    }

    /// The value of the `:name` segment, or nil when the route has none of that name.
    public subscript(name: String) -> String? {
        for index in names.indices where names[index] == name { return values[index] }
        return nil
    }

    /// How many parameters there are.
    public var count: Int { names.count }
    public var isEmpty: Bool { names.isEmpty }

    /// The parameters as a dictionary.
    public var dictionary: [String: String] {
        Dictionary(zip(names, values), uniquingKeysWith: { _, last in last })
    }

    public var description: String { dictionary.description }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.count == rhs.count && lhs.names.indices.allSatisfy { rhs[lhs.names[$0]] == lhs.values[$0] }
    }
}
