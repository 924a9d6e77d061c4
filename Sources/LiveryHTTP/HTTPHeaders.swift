/// An ordered list of header fields: names compare case-insensitively, a name may repeat, order is kept.
///
/// Lookups are linear in the number of fields, which is small (the server accepts at most
/// `HTTPServer.Configuration.maxHeaderCount`, 100 by default). Names keep the case they were added with.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One field line.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    @usableFromInline var fields: [Field] {
        didSet { wire = nil }
    }

    /// The fields as the server sends them (`name: value` CRLF each, fields the server owns left out), validated;
    /// set only by `encodedForReuse()` and dropped by any change, so it always matches `fields`.
    private(set) var wire: [UInt8]?

    /// Empty headers.
    public init() { fields = [] }

    /// Headers from `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of field lines.
    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        for field in fields where HTTPGrammar.equalsIgnoringCase(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every value of `name` (case-insensitive), in order; empty when absent.
    public func values(_ name: String) -> [String] {
        fields.compactMap { HTTPGrammar.equalsIgnoringCase($0.name, name) ? $0.value : nil }
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPGrammar.equalsIgnoringCase($0.name, name) }
    }

    /// Appends a field line, keeping any existing ones with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field carrying `value`, or appends it.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPGrammar.equalsIgnoringCase($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Field names considered secret: `description` never prints their values, so headers can be logged safely.
    static let redactedNames = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// One `name: value` line per field, with the values of `Authorization`, `Proxy-Authorization`, `Cookie` and
    /// `Set-Cookie` replaced by `<redacted>`.
    public var description: String {
        fields.map { field in
            let secret = Self.redactedNames.contains { HTTPGrammar.equalsIgnoringCase($0, field.name) }
            return "\(field.name): \(secret ? "<redacted>" : field.value)"
        }.joined(separator: "\n")
    }

    /// These headers with their wire form validated and encoded now, for a response sent many times: the server
    /// then copies the bytes instead of checking and encoding every field on every send. Changing the copy drops
    /// the encoding. Headers with an invalid field are returned unencoded, so sending them fails as it would have.
    public func encodedForReuse() -> HTTPHeaders {
        let buffer = OutputBuffer(capacity: 256)
        guard (try? ResponseEncoder.encodeFields(self, into: buffer)) != nil else { return self }
        var encoded = self
        encoded.wire = Array(buffer.bytes)
        return encoded
    }

    /// Two header lists are equal when their fields are, in order (whether either is encoded does not matter).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool { lhs.fields == rhs.fields }

    /// Makes room for `count` fields, so adding them does not grow the storage more than once.
    public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }
}
