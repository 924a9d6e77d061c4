/// A JSON object that keeps its members in insertion (source) order and holds each key at most once.
///
/// Lookup by key is O(1) through an index for objects of more than `indexThreshold` members, and a scan of at
/// most that many keys below it; iteration follows member order. Small objects carry no index because config
/// files are made of thousands of them: an index per object used to cost more memory than the members.
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

    /// Objects with more members than this get an index from key to position.
    static let indexThreshold = 8

    /// The members in order. Keys are unique.
    public private(set) var members: [Member]
    /// Key → position in `members`; nil while there are at most `indexThreshold` members.
    private var positions: [String: Int]?

    /// An empty object.
    public init() {
        members = []
        positions = nil
    }

    /// An object with `members` in order; when a key repeats, the first position is kept with the last value.
    public init(_ members: [Member]) {
        self.init()
        for member in members { self[member.key] = member.value }
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    /// An object of `members`, whose keys the caller knows are unique (a parser that refused duplicates).
    init(uniqueMembers members: [Member]) {
        self.members = members
        positions = nil
        if members.count > Self.indexThreshold {
            var index = [String: Int](minimumCapacity: members.count)
            for (position, member) in members.enumerated() { index[member.key] = position }
            positions = index
        }
    }

    /// The keys in member order.
    public var keys: [String] { members.map(\.key) }

    /// The position of `key` in `members`, or nil.
    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return members.firstIndex { $0.key == key }
    }

    /// The value for `key`, or `nil` when absent. Setting `nil` removes the member; setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let newValue {
                if let position = position(of: key) {
                    members[position].value = newValue
                } else {
                    append(key: key, value: newValue)
                }
            } else if let position = position(of: key) {
                members.remove(at: position)
                positions?[key] = nil
                if positions != nil {
                    for index in position..<members.count { positions?[members[index].key] = index }
                }
            }
        }
    }

    /// Appends a member whose key is not present yet.
    private mutating func append(key: String, value: JSONValue) {
        members.append(Member(key: key, value: value))
        if positions != nil {
            positions?[key] = members.count - 1
        } else if members.count > Self.indexThreshold {
            var index = [String: Int](minimumCapacity: members.count * 2)
            for (position, member) in members.enumerated() { index[member.key] = position }
            positions = index
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }
}
