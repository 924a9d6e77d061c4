/// A JSON object that keeps its members in insertion (source) order and holds each key at most once.
///
/// Lookup by key is O(1) through an index; iteration follows member order.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// One member of an object.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order. Keys are unique.
    public private(set) var members: [Member]
    private var positions: [String: Int]

    /// An empty object.
    public init() {
        members = []
        positions = [:]
    }

    /// An object with `members` in order; when a key repeats, the first position is kept with the last value.
    public init(_ members: [Member]) {
        self.init()
        for member in members { self[member.key] = member.value }
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    /// The keys in member order.
    public var keys: [String] { members.map(\.key) }

    /// The value for `key`, or `nil` when absent. Setting `nil` removes the member; setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { positions[key].map { members[$0].value } }
        set {
            if let newValue {
                if let position = positions[key] {
                    members[position].value = newValue
                } else {
                    positions[key] = members.count
                    members.append(Member(key: key, value: newValue))
                }
            } else if let position = positions.removeValue(forKey: key) {
                members.remove(at: position)
                for index in position..<members.count { positions[members[index].key] = index }
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }
}
