import Foundation
import LiveryJSON

/// A catalog document (`GET /api/v1/catalog?app=&platform=`), parsed from its bytes hostile-first: strict JSON
/// (`JSONValue.parse`: no duplicate keys, depth and UTF-8 checked), then every field checked for its type and range.
/// Fields this version does not know are ignored, so a newer server's additions do not break an older phone.
///
/// Invariants after `parse`: every entry's `startsAt < endsAt`, `rollout` in 0...100, `skinId` 1–64 printable ASCII
/// characters, at most `CatalogDocument.entryLimit` entries; instants are UTC. The document says nothing about its
/// own authenticity: check the `Livery-Signature` over the same bytes before trusting it.
public struct CatalogDocument: Sendable, Equatable {
    public var app: String
    public var platform: String
    /// The store revision the server built the document from.
    public var revision: Int
    /// The document lists every entry that can apply before this instant; decisions at or after it need a new one.
    public var horizonEndsAt: Date
    /// False when the server cut the list at its entry cap: decide by polling per device instead.
    public var complete: Bool
    /// A kill switch is on for the app: no skin and no theme applies.
    public var killed: Bool
    /// Holiday skins and themes, in the order the server listed them (the decision does not rely on it).
    public var skins: [CatalogEntry]
    /// When a signed document stops being valid as an answer from the network; nil when unsigned.
    public var expiresAt: Date?

    public init(
        app: String, platform: String, revision: Int, horizonEndsAt: Date, complete: Bool = true, killed: Bool = false,
        skins: [CatalogEntry], expiresAt: Date? = nil
    ) {
        self.app = app
        self.platform = platform
        self.revision = revision
        self.horizonEndsAt = horizonEndsAt
        self.complete = complete
        self.killed = killed
        self.skins = skins
        self.expiresAt = expiresAt
    }

    /// Most entries a document may hold (`parse` refuses more): far above the server's cap.
    public static let entryLimit = 10_000

    /// Parses and checks a document.
    ///
    /// - Throws: `CatalogDocumentError` naming the JSON pointer of the first bad field and why.
    public static func parse(_ bytes: [UInt8]) throws(CatalogDocumentError) -> CatalogDocument {
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(bytes)
        } catch {
            throw CatalogDocumentError(pointer: "", reason: "not JSON: \(error.message)")
        }
        return try parse(value)
    }

    /// Checks an already parsed document (see `parse(_:)`).
    public static func parse(_ value: JSONValue) throws(CatalogDocumentError) -> CatalogDocument {
        let root = try Fields(value, at: "")
        let entries = try root.array("skins")
        guard entries.count <= entryLimit else {
            throw CatalogDocumentError(pointer: "/skins", reason: "holds more than \(entryLimit) entries")
        }
        var skins: [CatalogEntry] = []
        skins.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            skins.append(try CatalogEntry.parse(entry, at: "/skins/\(index)"))
        }
        return CatalogDocument(
            app: try root.string("app"), platform: try root.string("platform"), revision: try root.integer("revision"),
            horizonEndsAt: try root.instant("horizonEndsAt"), complete: try root.bool("complete"),
            killed: try root.bool("killed"), skins: skins, expiresAt: try root.optionalInstant("expiresAt"))
    }
}

/// One skin or theme of a catalog document.
public struct CatalogEntry: Sendable, Equatable {
    /// Whether the server decides (`holiday`, the poll's answer) or the user picks (`theme`, the theme list).
    public enum Kind: String, Sendable, Equatable {
        case holiday
        case theme
    }

    public var skinId: String
    public var kind: Kind
    /// A theme's place in the list (ascending; nil after every ordered theme).
    public var order: Int?
    /// The half-open window `startsAt ..< endsAt`; a theme without a window has `distantPast ..< distantFuture`
    /// (`null` in the document).
    public var startsAt: Date
    public var endsAt: Date
    public var priority: Int
    /// Platform names as the server writes them (`ios`, `android`, `harmony`, `macos`).
    public var platforms: [String]
    /// Inclusive lower bound of the app version.
    public var minAppVersion: CatalogAppVersion?
    /// Exclusive upper bound of the app version.
    public var maxAppVersion: CatalogAppVersion?
    /// Percentage of devices (0...100) by `CatalogDecision.bucket`.
    public var rollout: Int
    /// A theme's title and description (what a theme store shows); empty for holiday skins.
    public var title: String
    public var description: String
    /// Packages by variant key (`CatalogVariant.key`, such as `@3x-light`).
    public var packages: [String: CatalogPackage]

    public init(
        skinId: String, kind: Kind = .holiday, order: Int? = nil, startsAt: Date, endsAt: Date, priority: Int = 0,
        platforms: [String], minAppVersion: CatalogAppVersion? = nil, maxAppVersion: CatalogAppVersion? = nil,
        rollout: Int = 100, title: String = "", description: String = "", packages: [String: CatalogPackage]
    ) {
        self.skinId = skinId
        self.kind = kind
        self.order = order
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.priority = priority
        self.platforms = platforms
        self.minAppVersion = minAppVersion
        self.maxAppVersion = maxAppVersion
        self.rollout = rollout
        self.title = title
        self.description = description
        self.packages = packages
    }

    /// Whether the window holds `instant` (`startsAt` inclusive, `endsAt` exclusive).
    public func isActive(at instant: Date) -> Bool { startsAt <= instant && instant < endsAt }

    static func parse(_ value: JSONValue, at pointer: String) throws(CatalogDocumentError) -> CatalogEntry {
        let fields = try Fields(value, at: pointer)
        let skinId = try fields.string("skinId")
        guard (1...64).contains(skinId.utf8.count), skinId.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw CatalogDocumentError(pointer: pointer + "/skinId", reason: "must be 1–64 printable ASCII characters")
        }
        guard let kind = Kind(rawValue: try fields.string("kind")) else {
            throw CatalogDocumentError(pointer: pointer + "/kind", reason: "must be holiday or theme")
        }
        let startsAt = try fields.optionalInstant("startsAt") ?? .distantPast
        let endsAt = try fields.optionalInstant("endsAt") ?? .distantFuture
        guard startsAt < endsAt else {
            throw CatalogDocumentError(pointer: pointer + "/endsAt", reason: "must be later than startsAt")
        }
        let rollout = try fields.integer("rollout")
        guard (0...100).contains(rollout) else {
            throw CatalogDocumentError(pointer: pointer + "/rollout", reason: "must be 0 to 100")
        }
        var platforms: [String] = []
        for (index, platform) in try fields.array("platforms").enumerated() {
            guard let name = platform.stringValue else {
                throw CatalogDocumentError(pointer: pointer + "/platforms/\(index)", reason: "must be a string")
            }
            platforms.append(name)
        }
        var packages: [String: CatalogPackage] = [:]
        for member in try fields.object("packages") {
            packages[member.key] = try CatalogPackage.parse(
                member.value, at: pointer + "/packages/" + CatalogDocumentError.escape(member.key))
        }
        return CatalogEntry(
            skinId: skinId, kind: kind, order: try fields.optionalInteger("order"), startsAt: startsAt, endsAt: endsAt,
            priority: try fields.integer("priority"), platforms: platforms,
            minAppVersion: try fields.optionalVersion("minAppVersion"),
            maxAppVersion: try fields.optionalVersion("maxAppVersion"), rollout: rollout,
            title: try fields.optionalString("title") ?? "",
            description: try fields.optionalString("description") ?? "",
            packages: packages)
    }
}

/// One downloadable package of an entry.
public struct CatalogPackage: Sendable, Equatable {
    /// The package's content-derived identity (the poll's `skinSign`).
    public var skinSign: String
    public var packageUrl: String
    /// Lowercase hex SHA-256 of the archive.
    public var sha256: String
    public var size: Int

    public init(skinSign: String, packageUrl: String, sha256: String, size: Int) {
        self.skinSign = skinSign
        self.packageUrl = packageUrl
        self.sha256 = sha256
        self.size = size
    }

    static func parse(_ value: JSONValue, at pointer: String) throws(CatalogDocumentError) -> CatalogPackage {
        let fields = try Fields(value, at: pointer)
        let size = try fields.integer("size")
        guard size >= 0 else { throw CatalogDocumentError(pointer: pointer + "/size", reason: "must not be negative") }
        let sign = try fields.string("skinSign")
        guard !sign.isEmpty else {
            throw CatalogDocumentError(pointer: pointer + "/skinSign", reason: "must not be empty")
        }
        return CatalogPackage(
            skinSign: sign, packageUrl: try fields.string("packageUrl"), sha256: try fields.string("sha256"), size: size
        )
    }
}

/// What is wrong with a catalog document: the JSON pointer of the field (`""` for the whole document) and why.
public struct CatalogDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    public let pointer: String
    public let reason: String

    public init(pointer: String, reason: String) {
        self.pointer = pointer
        self.reason = reason
    }

    public var description: String { pointer.isEmpty ? "catalog: \(reason)" : "catalog \(pointer): \(reason)" }

    /// A key as a JSON pointer token (RFC 6901).
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

/// Typed reads of an object's members, each failing with the member's pointer.
private struct Fields {
    let object: JSONObject
    let pointer: String

    init(_ value: JSONValue, at pointer: String) throws(CatalogDocumentError) {
        guard let object = value.objectValue else {
            throw CatalogDocumentError(pointer: pointer, reason: "must be an object, not \(value.kindName)")
        }
        self.object = object
        self.pointer = pointer
    }

    private func fail(_ key: String, _ reason: String) -> CatalogDocumentError {
        CatalogDocumentError(pointer: pointer + "/" + CatalogDocumentError.escape(key), reason: reason)
    }

    private func required(_ key: String) throws(CatalogDocumentError) -> JSONValue {
        guard let value = object[key] else { throw fail(key, "is missing") }
        return value
    }

    /// nil for an absent member or `null`.
    private func optional(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws(CatalogDocumentError) -> String {
        guard let text = try required(key).stringValue else { throw fail(key, "must be a string") }
        return text
    }

    func optionalString(_ key: String) throws(CatalogDocumentError) -> String? {
        guard let value = optional(key) else { return nil }
        guard let text = value.stringValue else { throw fail(key, "must be a string or null") }
        return text
    }

    func integer(_ key: String) throws(CatalogDocumentError) -> Int {
        guard let number = try required(key).intValue else { throw fail(key, "must be an integer") }
        return number
    }

    func optionalInteger(_ key: String) throws(CatalogDocumentError) -> Int? {
        guard let value = optional(key) else { return nil }
        guard let number = value.intValue else { throw fail(key, "must be an integer or null") }
        return number
    }

    func bool(_ key: String) throws(CatalogDocumentError) -> Bool {
        guard case .bool(let flag) = try required(key) else { throw fail(key, "must be true or false") }
        return flag
    }

    func array(_ key: String) throws(CatalogDocumentError) -> [JSONValue] {
        guard let elements = try required(key).arrayValue else { throw fail(key, "must be an array") }
        return elements
    }

    func object(_ key: String) throws(CatalogDocumentError) -> JSONObject {
        guard let members = try required(key).objectValue else { throw fail(key, "must be an object") }
        return members
    }

    func instant(_ key: String) throws(CatalogDocumentError) -> Date {
        guard let instant = try optionalInstant(key) else { throw fail(key, "is missing") }
        return instant
    }

    func optionalInstant(_ key: String) throws(CatalogDocumentError) -> Date? {
        guard let text = try optionalString(key) else { return nil }
        guard let instant = CatalogInstant.parse(text) else {
            throw fail(key, "must be a UTC instant such as 2026-12-24T16:00:00Z")
        }
        return instant
    }

    func optionalVersion(_ key: String) throws(CatalogDocumentError) -> CatalogAppVersion? {
        guard let text = try optionalString(key) else { return nil }
        guard let version = CatalogAppVersion(text) else {
            throw fail(key, "must be 1 to 4 dot-separated numbers of 1 to 9 digits")
        }
        return version
    }
}
