import Foundation
import LiveryJSON

/// The on-disk form of the state record (`state.json`). Blob contents (file bytes, version metadata) are not
/// in here, only their digests; release documents are small and kept inline (base64).
///
/// Field names are the file format: renaming one needs a new `format` number and a migration. Written by
/// `encoded()` and read by `decode(_:path:)` with LiveryJSON (keys sorted, byte strings base64, absent optionals
/// left out: the bytes `JSONEncoder` with sorted keys wrote before, which both read).
struct PersistedState: Equatable {
    /// The format this code writes and reads.
    static let currentFormat = 1

    var format: Int
    var revision: Int
    /// Every skin ever created, live or deleted, sorted by id.
    var skins: [Skin]
    var killSwitches: KillSwitchRecords

    struct Skin: Equatable {
        var id: String
        var revision: Int
        var lastVersion: Int
        var deleted: Bool
        var versions: [Version]
        var release: ReleaseRecord?
    }

    struct Version: Equatable {
        var number: Int
        var createdAt: Int64
        var actor: String
        var metadata: String
        var metadataSize: Int
        var digest: String
        var files: [File]
        /// What the last scrub that found the version damaged said (`SkinVersion.scrubDamage`); absent when none.
        /// Optional, so records written before it read as before.
        var scrubDamage: String?
    }

    struct File: Equatable {
        var path: String
        var size: Int
        var sha256: String
    }

    struct ReleaseRecord: Equatable {
        var version: Int
        var document: Data
        var releasedAt: Int64
        var actor: String
    }

    struct KillSwitchRecords: Equatable {
        var revision: Int
        var global: KillSwitchRecord?
        var apps: [AppKillSwitchRecord]
    }

    struct KillSwitchRecord: Equatable {
        var enabled: Bool
        var reason: String
        var actor: String
        var changedAt: Int64
    }

    struct AppKillSwitchRecord: Equatable {
        var app: String
        var setting: KillSwitchRecord
    }
}

extension PersistedState {
    /// The record of `snapshot` (metadata bytes become their digests).
    init(_ snapshot: StoreSnapshot) {
        var skins = [Skin]()
        for (id, skin) in snapshot.skins {
            skins.append(
                Skin(
                    id: id, revision: skin.revision, lastVersion: skin.versions.last?.number ?? 0, deleted: false,
                    versions: skin.versions.map { version in
                        Version(
                            number: version.number, createdAt: StoreTime.millis(version.createdAt),
                            actor: version.actor,
                            metadata: version.metadataDigest, metadataSize: version.metadataSize,
                            digest: version.digest,
                            files: version.files.map { File(path: $0.path, size: $0.size, sha256: $0.sha256) },
                            scrubDamage: version.scrubDamage)
                    },
                    release: skin.release.map {
                        ReleaseRecord(
                            version: $0.version, document: Data($0.document),
                            releasedAt: StoreTime.millis($0.releasedAt),
                            actor: $0.actor)
                    }))
        }
        for (id, tombstone) in snapshot.tombstones {
            skins.append(
                Skin(
                    id: id, revision: tombstone.revision, lastVersion: tombstone.lastVersion, deleted: true,
                    versions: [],
                    release: nil))
        }
        skins.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        let switches = snapshot.killSwitches
        self.init(
            format: Self.currentFormat, revision: snapshot.revision, skins: skins,
            killSwitches: KillSwitchRecords(
                revision: switches.revision, global: switches.global.map(KillSwitchRecord.init),
                apps: switches.apps.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap { app in
                    switches.apps[app].map { AppKillSwitchRecord(app: app, setting: KillSwitchRecord($0)) }
                }))
    }

    /// Encodes the record as the bytes of `state.json` (sorted keys, so equal states give equal bytes).
    func encoded() -> [UInt8] {
        jsonValue.serialized(.compact) + [UInt8(ascii: "\n")]
    }

    /// Decodes and checks `bytes` read from `path`; every inconsistency is `corruptFile` naming `path`.
    static func decode(_ bytes: [UInt8], path: String) throws(StoreError) -> PersistedState {
        let state: PersistedState
        do throws(StoredObject.Fault) {
            state = try parse(bytes)
        } catch {
            throw .corruptFile(path: path, reason: "not a state record: \(error.text)")
        }
        do {
            try state.check()
        } catch let reason {
            throw .corruptFile(path: path, reason: reason.text)
        }
        return state
    }

    /// The record in `bytes`, unchecked.
    static func parse(_ bytes: [UInt8]) throws(StoredObject.Fault) -> PersistedState {
        let root = try StoredObject.parse(bytes)
        var skins: [Skin] = []
        for skin in try root.objects("skins") {
            var versions: [Version] = []
            for version in try skin.objects("versions") {
                var files: [File] = []
                for file in try version.objects("files") {
                    files.append(
                        File(
                            path: try file.string("path"), size: try file.int("size"), sha256: try file.string("sha256")
                        ))
                }
                versions.append(
                    Version(
                        number: try version.int("number"), createdAt: Int64(try version.int("createdAt")),
                        actor: try version.string("actor"), metadata: try version.string("metadata"),
                        metadataSize: try version.int("metadataSize"), digest: try version.string("digest"),
                        files: files,
                        scrubDamage: try version.optionalString("scrubDamage")))
            }
            var release: ReleaseRecord?
            if let record = try skin.optionalObject("release") {
                release = ReleaseRecord(
                    version: try record.int("version"), document: Data(try record.bytes("document")),
                    releasedAt: Int64(try record.int("releasedAt")), actor: try record.string("actor"))
            }
            skins.append(
                Skin(
                    id: try skin.string("id"), revision: try skin.int("revision"),
                    lastVersion: try skin.int("lastVersion"),
                    deleted: try skin.bool("deleted"), versions: versions, release: release))
        }
        let switches = try root.object("killSwitches")
        var apps: [AppKillSwitchRecord] = []
        for app in try switches.objects("apps") {
            apps.append(
                AppKillSwitchRecord(app: try app.string("app"), setting: try KillSwitchRecord(app.object("setting"))))
        }
        return PersistedState(
            format: try root.int("format"), revision: try root.int("revision"), skins: skins,
            killSwitches: KillSwitchRecords(
                revision: try switches.int("revision"),
                global: try switches.optionalObject("global").map(KillSwitchRecord.init),
                apps: apps))
    }

    /// The record as JSON, every object's keys in sorted order; an absent optional is left out.
    var jsonValue: JSONValue {
        var switches = JSONObject()
        switches["apps"] = .array(killSwitches.apps.map { ["app": .string($0.app), "setting": $0.setting.jsonValue] })
        if let global = killSwitches.global { switches["global"] = global.jsonValue }
        switches["revision"] = .int(killSwitches.revision)
        return [
            "format": .int(format), "killSwitches": .object(switches), "revision": .int(revision),
            "skins": .array(skins.map(\.jsonValue))
        ]
    }

    /// The invariants every state the store writes satisfies.
    private func check() throws(Inconsistency) {
        func require(_ condition: Bool, _ text: @autoclosure () -> String) throws(Inconsistency) {
            if !condition { throw Inconsistency(text: text()) }
        }
        try require(
            format == Self.currentFormat, "unsupported format \(format) (this build reads \(Self.currentFormat))")
        try require(revision >= 0, "negative revision")
        var previousID: String?
        for skin in skins {
            try require((try? StoreNames.checkName(skin.id)) != nil, "invalid skin id \(skin.id)")
            if let previousID {
                try require(
                    previousID.utf8.lexicographicallyPrecedes(skin.id.utf8),
                    "skins not sorted or duplicated at \(skin.id)")
            }
            previousID = skin.id
            try require(skin.revision >= 1 && skin.revision <= revision, "skin \(skin.id): revision out of range")
            try require(
                skin.deleted == skin.versions.isEmpty, "skin \(skin.id): deleted flag disagrees with its versions")
            try require(!skin.deleted || skin.release == nil, "skin \(skin.id): deleted but released")
            var previousNumber = 0
            for version in skin.versions {
                try require(version.number > previousNumber, "skin \(skin.id): version numbers not ascending")
                previousNumber = version.number
                try require(
                    (try? StoreNames.checkDigest(version.metadata)) != nil,
                    "skin \(skin.id) v\(version.number): bad metadata digest")
                try require(version.metadataSize >= 0, "skin \(skin.id) v\(version.number): bad metadata size")
                var previousPath: String?
                for file in version.files {
                    try require(
                        (try? StoreNames.checkPath(file.path)) != nil,
                        "skin \(skin.id) v\(version.number): invalid path \(file.path)")
                    try require(
                        (try? StoreNames.checkDigest(file.sha256)) != nil,
                        "skin \(skin.id) v\(version.number): bad digest for \(file.path)")
                    try require(file.size >= 0, "skin \(skin.id) v\(version.number): negative size for \(file.path)")
                    if let previousPath {
                        try require(
                            previousPath.utf8.lexicographicallyPrecedes(file.path.utf8),
                            "skin \(skin.id) v\(version.number): files not sorted at \(file.path)")
                    }
                    previousPath = file.path
                }
                let files = version.files.map { StoredFile(path: $0.path, size: $0.size, sha256: $0.sha256) }
                try require(
                    SkinVersion.digest(files: files, metadataDigest: version.metadata) == version.digest,
                    "skin \(skin.id) v\(version.number): version digest does not match its files")
            }
            try require(
                skin.lastVersion >= previousNumber && skin.lastVersion >= 1, "skin \(skin.id): lastVersion too small")
            if let release = skin.release {
                try require(
                    skin.versions.contains { $0.number == release.version },
                    "skin \(skin.id): released version \(release.version) does not exist")
            }
        }
        try require(
            killSwitches.revision >= 0 && killSwitches.revision <= revision, "kill switches: revision out of range")
        var previousApp: String?
        for entry in killSwitches.apps {
            try require((try? StoreNames.checkName(entry.app)) != nil, "kill switches: invalid app id \(entry.app)")
            if let previousApp {
                try require(
                    previousApp.utf8.lexicographicallyPrecedes(entry.app.utf8),
                    "kill switches: apps not sorted at \(entry.app)")
            }
            previousApp = entry.app
        }
    }

    /// A broken invariant, described for the operator.
    struct Inconsistency: Error {
        var text: String
    }
}

extension PersistedState.KillSwitchRecord {
    init(_ record: StoredObject) throws(StoredObject.Fault) {
        self.init(
            enabled: try record.bool("enabled"), reason: try record.string("reason"), actor: try record.string("actor"),
            changedAt: Int64(try record.int("changedAt")))
    }

    var jsonValue: JSONValue {
        [
            "actor": .string(actor), "changedAt": .int(Int(changedAt)), "enabled": .bool(enabled),
            "reason": .string(reason)
        ]
    }

    init(_ setting: KillSwitch) {
        self.init(
            enabled: setting.enabled, reason: setting.reason, actor: setting.actor,
            changedAt: StoreTime.millis(setting.changedAt))
    }

    var killSwitch: KillSwitch {
        KillSwitch(enabled: enabled, reason: reason, actor: actor, changedAt: StoreTime.date(changedAt))
    }
}

extension PersistedState.Skin {
    var jsonValue: JSONValue {
        var object = JSONObject()
        object["deleted"] = .bool(deleted)
        object["id"] = .string(id)
        object["lastVersion"] = .int(lastVersion)
        if let release {
            object["release"] = [
                "actor": .string(release.actor), "document": .base64(Array(release.document)),
                "releasedAt": .int(Int(release.releasedAt)), "version": .int(release.version)
            ]
        }
        object["revision"] = .int(revision)
        object["versions"] = .array(
            versions.map { version in
                var record = JSONObject()
                record["actor"] = .string(version.actor)
                record["createdAt"] = .int(Int(version.createdAt))
                record["digest"] = .string(version.digest)
                record["files"] = .array(
                    version.files.map { file in
                        ["path": .string(file.path), "sha256": .string(file.sha256), "size": .int(file.size)]
                    })
                record["metadata"] = .string(version.metadata)
                record["metadataSize"] = .int(version.metadataSize)
                record["number"] = .int(version.number)
                // Absent when none, so a store without scrub marks writes the same bytes as before them.
                if let scrubDamage = version.scrubDamage { record["scrubDamage"] = .string(scrubDamage) }
                return .object(record)
            })
        return .object(object)
    }
}
