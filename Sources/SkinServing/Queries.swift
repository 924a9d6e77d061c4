import Foundation
import SkinStore

/// The admin API's reads, as queries of the serving core, beside the writes of `Changes`: the admin handlers read
/// the request, call one of these and render what it returns with `AdminJSON`; every refusal or failure is one
/// `ChangeError`, which the server maps to HTTP in one place.
///
/// A read that answers from the state first learns the store's revision (`SkinStore.currentSnapshot`) and answers
/// from a state at least that new, so a read sent after an acknowledged change (through any replica) sees it.
/// Store failures are logged here (the client sees only a 5xx).
public struct Queries: Sendable {
    let changes: Changes

    public init(changes: Changes) {
        self.changes = changes
    }

    /// The store's state, at least as new as its revision now.
    public func state(requestID: String) async throws(ChangeError) -> StoreSnapshot {
        try await changes.currentState(requestID: requestID)
    }

    /// The live skin `id`, from a state at least as new as the store's revision now.
    ///
    /// - Throws: `unknownSkin` naming `id`; store failures.
    public func skin(_ id: String, requestID: String) async throws(ChangeError) -> SkinState {
        try ChangeRules.skin(id, in: await state(requestID: requestID))
    }

    /// The damaged versions of `skin`: those the store found damaged (`SkinVersion.damage`), and released ones the
    /// last catalog build found damaged (their files do not match their address), by number.
    public func damagedVersions(of skin: SkinState) -> [DamagedVersion] {
        var damaged = skin.versions.compactMap { version in
            version.damage.map { DamagedVersion(skinID: skin.id, version: version.number, reason: $0) }
        }
        for found in changes.catalog.damaged
        where found.skinID == skin.id && !damaged.contains(where: { $0.version == found.version }) {
            damaged.append(found)
        }
        return damaged.sorted { $0.version < $1.version }
    }

    /// Version `number` of `skin`, which must be sound.
    ///
    /// - Throws: `unknownVersion` (field `n`), `versionDamaged`.
    public static func version(_ number: Int, of skin: SkinState) throws(ChangeError) -> SkinVersion {
        guard let version = skin.version(number) else {
            throw .unknownVersion(skinID: skin.id, version: number, field: "n")
        }
        if version.damage != nil { throw .versionDamaged(skinID: skin.id, version: number) }
        return version
    }

    /// The file at `path` of version `number` of `skin`: a local file holding exactly its bytes, checked against
    /// its content address just now (on a thread of its own), and its record.
    ///
    /// - Throws: what `version` throws; `unknownFile` (field `path`); `storedFileCorrupt` when the stored copy does
    ///   not hold what its address names; store failures.
    public func file(
        at path: String, version number: Int, of skin: SkinState, requestID: String
    ) async throws(ChangeError) -> (path: String, file: StoredFile) {
        let version = try Self.version(number, of: skin)
        guard let stored = version.file(at: path) else {
            throw .unknownFile(skinID: skin.id, version: number, path: path, field: "path")
        }
        do throws(StoreError) {
            return (try await changes.store.verifiedFilePath(of: stored, skinID: skin.id, version: number), stored)
        } catch {
            let mapped = changes.failure(error, field: "path", requestID: requestID)
            if case .corruptFile = error { throw .storedFileCorrupt(path: path) }
            throw mapped
        }
    }

    /// The audit cursor a `since` parameter names: a sequence number (entries after it) or an ISO 8601 instant
    /// (entries at or after it); nil for none.
    ///
    /// - Throws: `invalidField` naming `since` for anything else.
    public static func auditCursor(since text: String?) throws(ChangeError) -> AuditCursor? {
        guard let text, !text.isEmpty else { return nil }
        if let sequence = Int(text), sequence >= 0 { return .afterSequence(sequence) }
        if let date = AdminJSON.parseInstant(text) { return .time(date) }
        throw .invalidField(
            field: "since",
            reason: "must be a sequence number (such as 42) or an ISO 8601 instant (such as 2027-02-05T00:00:00Z)")
    }

    /// Audit entries after `cursor`, oldest first, at most `limit`.
    public func audit(
        since cursor: AuditCursor?, limit: Int, requestID: String
    ) async throws(ChangeError)
        -> [AuditEntry]
    {
        do throws(StoreError) {
            return try await changes.store.audit(since: cursor, limit: limit)
        } catch {
            throw changes.failure(error, requestID: requestID)
        }
    }

    /// What phones reported about the live skin `id`, per version, newest first, with the skin.
    ///
    /// - Throws: `unknownSkin`; store failures.
    public func health(
        of id: String, requestID: String
    ) async throws(ChangeError) -> (skin: SkinState, versions: [SkinHealth.Version]) {
        let skin = try await skin(id, requestID: requestID)
        do throws(StoreError) {
            return (skin, try await changes.store.reports.health(skinID: id))
        } catch {
            throw changes.failure(error, requestID: requestID)
        }
    }

    /// The version released of skin `id` in the published snapshot, if any: what a preview names beside the
    /// catalog it reads.
    public func releasedVersion(of id: String) -> Int? {
        changes.store.snapshot.skins[id]?.release?.version
    }

    /// Refuses an `app` the server has never seen (a typo at 2 a.m.), unless `force`, on the published snapshot.
    ///
    /// - Throws: `unknownApp` naming `field` and the known apps.
    public func checkKnownApp(_ app: String, field: String, force: Bool) throws(ChangeError) {
        try ChangeRules.checkKnownApp(app, field: field, force: force, state: changes.store.snapshot)
    }
}
