import Foundation
import LiveryCatalog
import LiveryJSON
import SkinModel

/// A package an answer names: what to download, how to check it, and when it applies.
///
/// Invariants: `sign` is 1–128 characters of `A-Z a-z 0-9 - _ .` (it names a folder); `sha256` is 64 lowercase hex
/// digits; `size` is positive. Holiday skins have both `startsAt` and `endsAt`; a theme has neither.
struct PackageEntry: Sendable, Equatable {
    var sign: String
    /// The skin's id (a holiday skin's `skinId`, a theme's `id`).
    var skinID: String
    /// As the answer wrote it: absolute (`https://cdn…`) or a path on the server (`/api/v1/packages/…`).
    var packageURL: String
    var sha256: String
    var size: Int64
    var startsAt: Date?
    var endsAt: Date?

    /// Whether the entry applies at `instant`: always for a theme, inside `[startsAt, endsAt)` for a skin.
    func applies(at instant: Date) -> Bool {
        guard let startsAt, let endsAt else { return true }
        return startsAt <= instant && instant < endsAt
    }

    /// Reads an entry from an answer object whose sign member is `signKey` (`skinSign` in polls, `sign` in theme
    /// lists) and id member `idKey`.
    static func read(
        _ object: JSONObject, signKey: String, idKey: String, windowed: Bool
    ) throws(LiveryError) -> PackageEntry {
        func text(_ key: String) throws(LiveryError) -> String {
            guard let value = object[key]?.stringValue else {
                throw LiveryError(.server, "the answer has no string \"\(key)\"")
            }
            return value
        }
        let sign = try text(signKey)
        let sha256 = try text("sha256")
        try check(sign: sign, signKey: signKey, sha256: sha256)
        guard let size = object["size"]?.intValue, size > 0 else {
            throw LiveryError(.server, "the answer has no positive \"size\"")
        }
        var entry = PackageEntry(
            sign: sign, skinID: try text(idKey), packageURL: try text("packageUrl"), sha256: sha256, size: Int64(size))
        if windowed {
            guard let starts = ISO8601Instant.parse(try text("startsAt")),
                let ends = ISO8601Instant.parse(try text("endsAt"))
            else {
                throw LiveryError(.server, "the answer's startsAt or endsAt is not an ISO 8601 instant")
            }
            entry.startsAt = starts
            entry.endsAt = ends
        }
        return entry
    }

    private static func check(sign: String, signKey: String, sha256: String) throws(LiveryError) {
        guard isSafeSign(sign) else {
            throw LiveryError(.server, "the answer's \(signKey) \"\(sign.prefix(40))\" is not a package sign")
        }
        guard sha256.utf8.count == 64,
            sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw LiveryError(.server, "the answer's sha256 is not 64 lowercase hex digits")
        }
    }

    /// Signs name folders and files: only `A-Z a-z 0-9 - _ .`, not starting with a dot, 1–128 characters.
    static func isSafeSign(_ sign: String) -> Bool {
        let bytes = Array(sign.utf8)
        guard (1...128).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }
}

// In an extension, so the memberwise initializer stays.
extension PackageEntry {
    /// The entry a catalog names for one variant, checked as a poll answer's is; a theme without a window has no
    /// `startsAt`/`endsAt`.
    ///
    /// - Throws: `server` naming the skin when its sign, SHA-256 or size cannot be a package's.
    init(catalog entry: CatalogEntry, package: CatalogPackage) throws(LiveryError) {
        do throws(LiveryError) {
            try Self.check(sign: package.skinSign, signKey: "skinSign", sha256: package.sha256)
            guard package.size > 0 else { throw LiveryError(.server, "the answer has no positive \"size\"") }
        } catch {
            throw LiveryError(.server, "the catalog's entry \(entry.skinId): \(error.message)")
        }
        self.init(
            sign: package.skinSign, skinID: entry.skinId, packageURL: package.packageUrl, sha256: package.sha256,
            size: Int64(package.size))
        if entry.startsAt != .distantPast || entry.endsAt != .distantFuture {
            startsAt = entry.startsAt
            endsAt = entry.endsAt
        }
    }

    /// The package a catalog decision chose; nil when the choice has no package (or one `init(catalog:package:)`
    /// refuses; a stored catalog was checked with it when it arrived).
    init?(_ choice: CatalogChoice) {
        guard let package = choice.package, let entry = try? PackageEntry(catalog: choice.entry, package: package)
        else {
            return nil
        }
        self = entry
    }
}

/// A poll answer (`GET /api/v1/skin`) once read: the skin that applies now (nil when `skinSign` is `""`: no skin,
/// or the kill switch) and the one that applies next.
struct PollAnswer: Sendable, Equatable {
    var current: PackageEntry?
    var next: PackageEntry?

    static func read(_ document: JSONValue) throws(LiveryError) -> PollAnswer {
        guard let object = document.objectValue else { throw LiveryError(.server, "the answer is not a JSON object") }
        guard let sign = object["skinSign"]?.stringValue else {
            throw LiveryError(.server, "the answer has no string \"skinSign\"")
        }
        var answer = PollAnswer()
        if !sign.isEmpty {
            answer.current = try PackageEntry.read(object, signKey: "skinSign", idKey: "skinId", windowed: true)
        }
        if let next = object["next"] {
            guard let nextObject = next.objectValue else {
                throw LiveryError(.server, "the answer's \"next\" is not an object")
            }
            answer.next = try PackageEntry.read(nextObject, signKey: "skinSign", idKey: "skinId", windowed: true)
        }
        return answer
    }
}

/// One theme a theme list offers (`GET /api/v1/themes`), verified like a poll answer.
public struct Theme: Sendable, Equatable, Identifiable {
    /// The theme's skin id.
    public let id: String
    /// The title the theme store shows (the skin's `title`).
    public let title: String
    /// The theme's description, `""` when it has none.
    public let description: String
    /// The preview image's URL (resolved against the server URL), if the theme has one.
    public let previewURL: URL?
    /// The sign of the package this device would download.
    public var sign: String { entry.sign }
    let entry: PackageEntry

    static func readList(_ document: JSONValue, server: URL) throws(LiveryError) -> [Theme] {
        guard let themes = document.objectValue?["themes"]?.arrayValue else {
            throw LiveryError(.server, "the theme list has no \"themes\" array")
        }
        var result: [Theme] = []
        for value in themes {
            guard let object = value.objectValue else { throw LiveryError(.server, "a theme is not an object") }
            let entry = try PackageEntry.read(object, signKey: "sign", idKey: "id", windowed: false)
            let preview = object["previewUrl"]?.stringValue.flatMap { URL(string: $0, relativeTo: server)?.absoluteURL }
            result.append(
                Theme(
                    id: entry.skinID, title: object["title"]?.stringValue ?? entry.skinID,
                    description: object["description"]?.stringValue ?? "", previewURL: preview, entry: entry))
        }
        return result
    }
}
