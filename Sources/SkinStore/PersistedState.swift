import Foundation

/// The on-disk form of the state record (`state.json`). Blob contents (file bytes, version metadata) are not
/// in here, only their digests; release documents are small and kept inline (base64).
///
/// Field names are the file format: renaming one needs a new `format` number and a migration.
struct PersistedState: Codable, Equatable {
    /// The format this code writes and reads.
    static let currentFormat = 1

    var format: Int
    var revision: Int
    /// Every skin ever created, live or deleted, sorted by id.
    var skins: [Skin]
    var killSwitches: KillSwitchRecords

    struct Skin: Codable, Equatable {
        var id: String
        var revision: Int
        var lastVersion: Int
        var deleted: Bool
        var versions: [Version]
        var release: ReleaseRecord?
    }

    struct Version: Codable, Equatable {
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

    struct File: Codable, Equatable {
        var path: String
        var size: Int
        var sha256: String
    }

    struct ReleaseRecord: Codable, Equatable {
        var version: Int
        var document: Data
        var releasedAt: Int64
        var actor: String
    }

    struct KillSwitchRecords: Codable, Equatable {
        var revision: Int
        var global: KillSwitchRecord?
        var apps: [AppKillSwitchRecord]
    }

    struct KillSwitchRecord: Codable, Equatable {
        var enabled: Bool
        var reason: String
        var actor: String
        var changedAt: Int64
    }

    struct AppKillSwitchRecord: Codable, Equatable {
        var app: String
        var setting: KillSwitchRecord
    }
}

extension PersistedState {
    /// The record of `snapshot` (metadata bytes become their digests).
    init(_ snapshot: StoreSnapshot) {
        var skins = [Skin]()
        for (id, skin) in snapshot.skins {
            skins.append(Skin(
                id: id, revision: skin.revision, lastVersion: skin.versions.last?.number ?? 0, deleted: false,
                versions: skin.versions.map { version in
                    Version(
                        number: version.number, createdAt: StoreTime.millis(version.createdAt), actor: version.actor,
                        metadata: version.metadataDigest, metadataSize: version.metadataSize, digest: version.digest,
                        files: version.files.map { File(path: $0.path, size: $0.size, sha256: $0.sha256) },
                        scrubDamage: version.scrubDamage)
                },
                release: skin.release.map {
                    ReleaseRecord(
                        version: $0.version, document: Data($0.document), releasedAt: StoreTime.millis($0.releasedAt),
                        actor: $0.actor)
                }))
        }
        for (id, tombstone) in snapshot.tombstones {
            skins.append(Skin(
                id: id, revision: tombstone.revision, lastVersion: tombstone.lastVersion, deleted: true, versions: [],
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings, integers and Data cannot fail.
        guard let data = try? encoder.encode(self) else { return [] }
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// Decodes and checks `bytes` read from `path`; every inconsistency is `corruptFile` naming `path`.
    static func decode(_ bytes: [UInt8], path: String) throws(StoreError) -> PersistedState {
        let state: PersistedState
        do {
            state = try JSONDecoder().decode(PersistedState.self, from: Data(bytes))
        } catch {
            throw .corruptFile(path: path, reason: "not a state record: \(error)")
        }
        do {
            try state.check()
        } catch let reason {
            throw .corruptFile(path: path, reason: reason.text)
        }
        return state
    }

    /// The invariants every state the store writes satisfies.
    private func check() throws(Inconsistency) {
        func require(_ condition: Bool, _ text: @autoclosure () -> String) throws(Inconsistency) {
            if !condition { throw Inconsistency(text: text()) }
        }
        try require(format == Self.currentFormat, "unsupported format \(format) (this build reads \(Self.currentFormat))")
        try require(revision >= 0, "negative revision")
        var previousID: String?
        for skin in skins {
            try require((try? StoreNames.checkName(skin.id)) != nil, "invalid skin id \(skin.id)")
            if let previousID {
                try require(previousID.utf8.lexicographicallyPrecedes(skin.id.utf8), "skins not sorted or duplicated at \(skin.id)")
            }
            previousID = skin.id
            try require(skin.revision >= 1 && skin.revision <= revision, "skin \(skin.id): revision out of range")
            try require(skin.deleted == skin.versions.isEmpty, "skin \(skin.id): deleted flag disagrees with its versions")
            try require(!skin.deleted || skin.release == nil, "skin \(skin.id): deleted but released")
            var previousNumber = 0
            for version in skin.versions {
                try require(version.number > previousNumber, "skin \(skin.id): version numbers not ascending")
                previousNumber = version.number
                try require((try? StoreNames.checkDigest(version.metadata)) != nil, "skin \(skin.id) v\(version.number): bad metadata digest")
                try require(version.metadataSize >= 0, "skin \(skin.id) v\(version.number): bad metadata size")
                var previousPath: String?
                for file in version.files {
                    try require((try? StoreNames.checkPath(file.path)) != nil, "skin \(skin.id) v\(version.number): invalid path \(file.path)")
                    try require((try? StoreNames.checkDigest(file.sha256)) != nil, "skin \(skin.id) v\(version.number): bad digest for \(file.path)")
                    try require(file.size >= 0, "skin \(skin.id) v\(version.number): negative size for \(file.path)")
                    if let previousPath {
                        try require(previousPath.utf8.lexicographicallyPrecedes(file.path.utf8), "skin \(skin.id) v\(version.number): files not sorted at \(file.path)")
                    }
                    previousPath = file.path
                }
                let files = version.files.map { StoredFile(path: $0.path, size: $0.size, sha256: $0.sha256) }
                try require(
                    SkinVersion.digest(files: files, metadataDigest: version.metadata) == version.digest,
                    "skin \(skin.id) v\(version.number): version digest does not match its files")
            }
            try require(skin.lastVersion >= previousNumber && skin.lastVersion >= 1, "skin \(skin.id): lastVersion too small")
            if let release = skin.release {
                try require(skin.versions.contains { $0.number == release.version }, "skin \(skin.id): released version \(release.version) does not exist")
            }
        }
        try require(killSwitches.revision >= 0 && killSwitches.revision <= revision, "kill switches: revision out of range")
        var previousApp: String?
        for entry in killSwitches.apps {
            try require((try? StoreNames.checkName(entry.app)) != nil, "kill switches: invalid app id \(entry.app)")
            if let previousApp {
                try require(previousApp.utf8.lexicographicallyPrecedes(entry.app.utf8), "kill switches: apps not sorted at \(entry.app)")
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
    init(_ setting: KillSwitch) {
        self.init(enabled: setting.enabled, reason: setting.reason, actor: setting.actor, changedAt: StoreTime.millis(setting.changedAt))
    }

    var killSwitch: KillSwitch {
        KillSwitch(enabled: enabled, reason: reason, actor: actor, changedAt: StoreTime.date(changedAt))
    }
}
