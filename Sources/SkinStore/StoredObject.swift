import LiveryJSON
import LiveryProtocol

/// A JSON object of a record the store wrote (`state.json`, an `audit.log` line), read member by member with the
/// hostile-first parser's values: a member that is missing or of another kind is named, with the path to it, in a
/// `StoredObject.Fault`. Byte strings are base64 (what the files have always held).
struct StoredObject {
    /// Why a record is not what the store writes.
    struct Fault: Error {
        let text: String
    }

    let members: JSONObject
    /// Where the object is in its record, for messages (`skins[2].release`).
    let path: String

    init(_ value: JSONValue?, path: String) throws(Fault) {
        guard let object = value?.objectValue else {
            throw Fault(text: "\(path.isEmpty ? "the record" : path) is \(value?.kindName ?? "missing"), not an object")
        }
        self.members = object
        self.path = path
    }

    /// Parses `bytes` as one JSON object.
    static func parse(_ bytes: [UInt8]) throws(Fault) -> StoredObject {
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(bytes)
        } catch {
            throw Fault(text: "\(error)")
        }
        return try StoredObject(value, path: "")
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    private func fault(_ key: String, _ wanted: String) -> Fault {
        Fault(text: "\(name(key)) is \(members[key]?.kindName ?? "missing"), not \(wanted)")
    }

    func int(_ key: String) throws(Fault) -> Int {
        guard let value = members[key]?.intValue else { throw fault(key, "a whole number") }
        return value
    }

    func string(_ key: String) throws(Fault) -> String {
        guard let value = members[key]?.stringValue else { throw fault(key, "a string") }
        return value
    }

    func bool(_ key: String) throws(Fault) -> Bool {
        guard case .bool(let value)? = members[key] else { throw fault(key, "true or false") }
        return value
    }

    /// Base64 bytes; nil when the member is absent or null.
    func optionalBytes(_ key: String) throws(Fault) -> [UInt8]? {
        guard let member = members[key], !member.isNull else { return nil }
        guard let text = member.stringValue, let bytes = Base64.decode(text) else { throw fault(key, "base64 bytes") }
        return bytes
    }

    func bytes(_ key: String) throws(Fault) -> [UInt8] {
        guard let bytes = try optionalBytes(key) else { throw fault(key, "base64 bytes") }
        return bytes
    }

    /// A string; nil when the member is absent or null.
    func optionalString(_ key: String) throws(Fault) -> String? {
        guard let member = members[key], !member.isNull else { return nil }
        guard let text = member.stringValue else { throw fault(key, "a string") }
        return text
    }

    func object(_ key: String) throws(Fault) -> StoredObject {
        try StoredObject(members[key], path: name(key))
    }

    /// An object; nil when the member is absent or null.
    func optionalObject(_ key: String) throws(Fault) -> StoredObject? {
        guard let member = members[key], !member.isNull else { return nil }
        return try StoredObject(member, path: name(key))
    }

    /// Each element of the array `key`, as an object.
    func objects(_ key: String) throws(Fault) -> [StoredObject] {
        guard let array = members[key]?.arrayValue else { throw fault(key, "an array") }
        var objects: [StoredObject] = []
        for (index, element) in array.enumerated() {
            objects.append(try StoredObject(element, path: "\(name(key))[\(index)]"))
        }
        return objects
    }
}

extension JSONValue {
    /// Bytes as the stored records hold them: base64.
    static func base64(_ bytes: [UInt8]) -> JSONValue { .string(Base64.encode(bytes)) }

    /// A whole number.
    static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
}
