import Foundation
import LiveryCrypto
import LiveryJSON
import SkinModel

/// A change computed from the current snapshot: the next snapshot, its audit entry, and what the mutator returns.
/// `snapshot` nil means "nothing to change".
///
/// Every `SkinStore` implementation computes its changes with `StoreChanges` (so the rules of revisions, numbers,
/// tombstones and audit entries live in one place) and only persists the result its own way.
package struct StoreChange<Result: Sendable>: Sendable {
    package var snapshot: StoreSnapshot?
    package var actor = ""
    package var action = ""
    package var skinID: String?
    package var before: [UInt8]?
    package var after: [UInt8]?
    package var result: Result

    static func unchanged(_ result: Result) -> StoreChange {
        StoreChange(snapshot: nil, result: result)
    }

    /// The audit entry this change appends as entry number `sequence` at `time`.
    package func auditEntry(sequence: Int, time: Date) -> AuditEntry {
        AuditEntry(
            sequence: sequence, time: time, actor: actor, action: action, skinID: skinID, before: before, after: after)
    }
}

/// The files of an upload, hashed and sorted: what a store writes as blobs and refers to from the version.
package struct PreparedUpload: Sendable {
    /// The files, sorted by the UTF-8 bytes of their paths.
    package let files: [StoredFile]
    /// Digest → bytes of every file (the metadata is not included).
    package let fileBlobs: [String: [UInt8]]
    package let metadata: VersionMetadata
    /// `metadata` encoded: the blob the version refers to.
    package let metadataBytes: [UInt8]
    package let metadataDigest: String
    /// The version digest (`SkinVersion.digest(files:metadataDigest:)`).
    package let digest: String

    /// Checks the names and paths of an `addVersion` call, encodes its metadata and hashes its files.
    ///
    /// - Throws: `invalidName`, `invalidPath`.
    package init(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, actor: String
    ) throws(StoreError) {
        try StoreNames.checkName(skinID)
        try StoreNames.checkName(actor)
        for path in files.keys { try StoreNames.checkPath(path) }
        var stored = [StoredFile]()
        var blobs = [String: [UInt8]]()
        for (path, bytes) in files {
            let digest = SHA256.hexHash(bytes)
            stored.append(StoredFile(path: path, size: bytes.count, sha256: digest))
            blobs[digest] = bytes
        }
        stored.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        self.files = stored
        self.fileBlobs = blobs
        self.metadata = metadata
        self.metadataBytes = metadata.encoded()
        self.metadataDigest = SHA256.hexHash(metadataBytes)
        self.digest = SkinVersion.digest(files: stored, metadataDigest: metadataDigest)
    }
}

/// The rules of every change, as pure functions of (current snapshot, time, next revision).
package enum StoreChanges {
    /// Longest accepted free text (a kill switch's reason), in UTF-8 bytes.
    package static let maximumTextLength = 4096

    /// `addVersion` / `addVersionUnlessUnchanged`.
    package static func addVersion(
        skinID: String, upload: PreparedUpload, expectedRevision: Int?, release plan: ReleasePlan?,
        actor: String, unlessUnchanged: Bool, current: StoreSnapshot, now: Date, revision: Int
    ) throws(StoreError) -> StoreChange<(version: SkinVersion, added: Bool)> {
        let skinRevision = current.revision(ofSkin: skinID)
        if let expectedRevision, expectedRevision != skinRevision {
            throw .revisionMismatch(current: skinRevision)
        }
        let existing = current.skins[skinID]
        // A damaged latest version is never "unchanged": the upload makes a sound one.
        if unlessUnchanged, let latest = existing?.versions.last, latest.damage == nil, latest.files == upload.files {
            return .unchanged((latest, false))
        }
        let lastNumber = existing?.versions.last?.number ?? current.tombstones[skinID]?.lastVersion ?? 0
        let version = SkinVersion(
            skinID: skinID, number: lastNumber + 1, createdAt: now, actor: actor, files: upload.files,
            metadata: upload.metadata, metadataBytes: upload.metadataBytes, metadataDigest: upload.metadataDigest,
            digest: upload.digest, damage: nil, metadataSize: upload.metadataBytes.count)
        let release = plan.map { Release(version: version.number, plan: $0, releasedAt: now, actor: actor) }
        var skins = current.skins
        skins[skinID] = SkinState(
            id: skinID, revision: revision, versions: (existing?.versions ?? []) + [version],
            release: release ?? existing?.release)
        var tombstones = current.tombstones
        tombstones[skinID] = nil
        var summary = [
            ("version", JSONWriter.number(version.number)), ("digest", JSONWriter.string(upload.digest)),
            ("files", JSONWriter.number(upload.files.count)), ("size", JSONWriter.number(version.totalSize))
        ]
        if let release { summary.append(("release", auditJSON(release))) }
        return StoreChange(
            snapshot: StoreSnapshot(
                revision: revision, skins: skins, killSwitches: current.killSwitches, tombstones: tombstones),
            actor: actor, action: AuditAction.addVersion, skinID: skinID, before: nil,
            after: JSONWriter.object(summary), result: (version, true))
    }

    /// Checks the arguments of `setRelease`.
    package static func checkSetRelease(skinID: String, actor: String, action: String) throws(StoreError) {
        try StoreNames.checkName(skinID)
        try StoreNames.checkName(actor)
        try StoreNames.checkName(action)
    }

    /// `setRelease`.
    package static func setRelease(
        skinID: String, version: Int, plan: ReleasePlan, expectedRevision: Int?, actor: String, action: String,
        current: StoreSnapshot, now: Date, revision: Int
    ) throws(StoreError) -> StoreChange<SkinState> {
        let skin = try liveSkin(skinID, expectedRevision: expectedRevision, in: current)
        guard let stored = skin.version(version) else { throw .unknownVersion(skinID: skinID, version: version) }
        if let damage = stored.damage { throw .damagedVersion(skinID: skinID, version: version, reason: damage) }
        let release = Release(version: version, plan: plan, releasedAt: now, actor: actor)
        return releaseChange(skin, release: release, actor: actor, action: action, current: current, revision: revision)
    }

    /// `clearRelease`.
    package static func clearRelease(
        skinID: String, expectedRevision: Int?, actor: String, current: StoreSnapshot, revision: Int
    ) throws(StoreError) -> StoreChange<SkinState> {
        let skin = try liveSkin(skinID, expectedRevision: expectedRevision, in: current)
        guard skin.release != nil else { return .unchanged(skin) }
        return releaseChange(
            skin, release: nil, actor: actor, action: AuditAction.clearRelease, current: current, revision: revision)
    }

    /// `skin` with `release` (nil: none) in place of its current one, as change number `revision`.
    private static func releaseChange(
        _ skin: SkinState, release: Release?, actor: String, action: String, current: StoreSnapshot, revision: Int
    ) -> StoreChange<SkinState> {
        let updated = SkinState(id: skin.id, revision: revision, versions: skin.versions, release: release)
        var skins = current.skins
        skins[skin.id] = updated
        return StoreChange(
            snapshot: StoreSnapshot(
                revision: revision, skins: skins, killSwitches: current.killSwitches, tombstones: current.tombstones),
            actor: actor, action: action, skinID: skin.id, before: skin.release.map(auditJSON),
            after: release.map(auditJSON), result: updated)
    }

    /// Checks the arguments of `setKillSwitch`.
    package static func checkKillSwitch(app: String?, reason: String, actor: String) throws(StoreError) {
        if let app { try StoreNames.checkName(app) }
        try StoreNames.checkName(actor)
        try checkText(reason, field: "reason")
    }

    /// Refuses free text longer than `maximumTextLength` bytes or holding NUL, naming `field`.
    package static func checkText(_ text: String, field: String) throws(StoreError) {
        guard text.utf8.count <= maximumTextLength else {
            throw .invalidText(field: field, reason: "longer than \(maximumTextLength) bytes")
        }
        guard !text.utf8.contains(0) else { throw .invalidText(field: field, reason: "contains NUL") }
    }

    /// `setKillSwitch`.
    package static func setKillSwitch(
        app: String?, enabled: Bool, reason: String, expectedRevision: Int?, actor: String,
        current: StoreSnapshot, now: Date, revision: Int
    ) throws(StoreError) -> StoreChange<KillSwitches> {
        let switches = current.killSwitches
        if let expectedRevision, expectedRevision != switches.revision {
            throw .revisionMismatch(current: switches.revision)
        }
        let setting = KillSwitch(enabled: enabled, reason: reason, actor: actor, changedAt: now)
        let previous: KillSwitch?
        let updated: KillSwitches
        if let app {
            previous = switches.apps[app]
            var apps = switches.apps
            apps[app] = setting
            updated = KillSwitches(global: switches.global, apps: apps, revision: revision)
        } else {
            previous = switches.global
            updated = KillSwitches(global: setting, apps: switches.apps, revision: revision)
        }
        func describe(_ setting: KillSwitch) -> [UInt8] {
            JSONWriter.object([
                ("app", app.map(JSONWriter.string) ?? JSONWriter.null), ("enabled", JSONWriter.bool(setting.enabled)),
                ("reason", JSONWriter.string(setting.reason))
            ])
        }
        return StoreChange(
            snapshot: StoreSnapshot(
                revision: revision, skins: current.skins, killSwitches: updated, tombstones: current.tombstones),
            actor: actor, action: AuditAction.setKillSwitch, skinID: nil, before: previous.map(describe),
            after: describe(setting), result: updated)
    }

    /// `deleteSkin`.
    package static func deleteSkin(
        skinID: String, force: Bool, expectedRevision: Int?, actor: String, current: StoreSnapshot, revision: Int
    ) throws(StoreError) -> StoreChange<Int> {
        let skin = try liveSkin(skinID, expectedRevision: expectedRevision, in: current)
        if let release = skin.release, !force {
            throw .skinReleased(skinID: skinID, version: release.version)
        }
        var skins = current.skins
        skins[skinID] = nil
        var tombstones = current.tombstones
        tombstones[skinID] = Tombstone(revision: revision, lastVersion: skin.versions.last?.number ?? 0)
        let before = JSONWriter.object([
            ("versions", JSONWriter.array(skin.versions.map { JSONWriter.number($0.number) })),
            ("release", skin.release.map(auditJSON) ?? JSONWriter.null)
        ])
        return StoreChange(
            snapshot: StoreSnapshot(
                revision: revision, skins: skins, killSwitches: current.killSwitches, tombstones: tombstones),
            actor: actor, action: AuditAction.deleteSkin, skinID: skinID, before: before, after: nil,
            result: revision)
    }

    /// `StoreEdit.markScrubDamage`: the skin's versions with `marks` as their scrub marks, as change number
    /// `revision` (the skin's revision too: its versions' state changed); unchanged when they already are.
    package static func markScrubDamage(
        skinID: String, marks: [Int: String], actor: String, current: StoreSnapshot, revision: Int
    ) throws(StoreError) -> StoreChange<SkinState> {
        let skin = try liveSkin(skinID, expectedRevision: nil, in: current)
        let versions = skin.versions.map { $0.marked(marks[$0.number]) }
        guard versions != skin.versions else { return .unchanged(skin) }
        let updated = SkinState(id: skin.id, revision: revision, versions: versions, release: skin.release)
        var skins = current.skins
        skins[skin.id] = updated
        func describe(_ versions: [SkinVersion]) -> [UInt8] {
            JSONWriter.object([
                (
                    "damaged",
                    JSONWriter.array(
                        versions.compactMap { version in
                            version.scrubDamage.map {
                                JSONWriter.object([
                                    ("version", JSONWriter.number(version.number)), ("reason", JSONWriter.string($0))
                                ])
                            }
                        })
                )
            ])
        }
        return StoreChange(
            snapshot: StoreSnapshot(
                revision: revision, skins: skins, killSwitches: current.killSwitches, tombstones: current.tombstones),
            actor: actor, action: AuditAction.markScrubDamage, skinID: skin.id, before: describe(skin.versions),
            after: describe(versions), result: updated)
    }

    /// The live skin `skinID` of `current`, checked against the caller's revision.
    ///
    /// - Throws: `unknownSkin`, `revisionMismatch`.
    private static func liveSkin(
        _ skinID: String, expectedRevision: Int?, in current: StoreSnapshot
    ) throws(StoreError) -> SkinState {
        guard let skin = current.skins[skinID] else { throw .unknownSkin(skinID) }
        if let expectedRevision, expectedRevision != skin.revision {
            throw .revisionMismatch(current: skin.revision)
        }
        return skin
    }

    /// The stored file at `path` of version `version` of `skinID` in `snapshot`.
    ///
    /// - Throws: `unknownSkin`, `unknownVersion`, `unknownFile`.
    package static func storedFile(
        in snapshot: StoreSnapshot, skinID: String, version: Int, path: String
    ) throws(StoreError) -> StoredFile {
        guard let skin = snapshot.skins[skinID] else { throw .unknownSkin(skinID) }
        guard let stored = skin.version(version) else { throw .unknownVersion(skinID: skinID, version: version) }
        if let damage = stored.damage { throw .damagedVersion(skinID: skinID, version: version, reason: damage) }
        guard let file = stored.file(at: path) else {
            throw .unknownFile(skinID: skinID, version: version, path: path)
        }
        return file
    }

    /// Why stored bytes are refused: they do not hold what their content address promises.
    package static func mismatch(skinID: String, version: Int, file: StoredFile) -> String {
        "blob of \(skinID) v\(version) \(file.path) does not match its content address (\(file.size) bytes, sha256 \(file.sha256)): "
            + "the stored copy was changed (on disk or in the database); restore it from a backup"
    }

    /// Release as audit JSON: `{"version": n, "document": <document>}`; a damaged release's document, when it is
    /// not JSON, as a string.
    static func auditJSON(_ release: Release) -> [UInt8] {
        var document = release.document
        if release.damage != nil {
            do throws(JSONParseError) {
                try JSONValue.validateSyntax(document)
            } catch {
                document = JSONWriter.string(String(decoding: document, as: UTF8.self))
            }
        }
        return JSONWriter.object([("version", JSONWriter.number(release.version)), ("document", document)])
    }
}
