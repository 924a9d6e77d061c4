import SkinModel

/// The role of Livery's durable state, as the admin API and the catalog use it: a published snapshot, changes
/// checked against a revision (the admin API's `If-Match`), content-addressed files, the audit log and the kill
/// switches.
///
/// `FileSkinStore` (one directory on local disk) is the first implementation; a network store (PostgreSQL) is the
/// next. Every implementation must pass the conformance suite in `Tests/SkinStoreConformance`, which specifies
/// what this documentation promises.
///
/// ## Promises every implementation keeps
/// - **Revisions.** Each committed change increments `snapshot.revision` by one and appends audit entry number
///   `revision`. A skin's revision (`StoreSnapshot.revision(ofSkin:)`) is the store revision of its last change,
///   the revision of its deletion once deleted, or 0 if it never existed. A mutator given an `expectedRevision`
///   that is no longer current changes nothing and throws `revisionMismatch(current:)`.
/// - **Content addressing.** File bytes are stored under their SHA-256; reading them back checks the address, so
///   bytes damaged in storage are refused with `corruptFile` naming where they are, never returned as good.
/// - **Durability.** A mutator returns only once its change survives a crash and a reopen; `close()` then a new
///   store over the same storage shows every acknowledged change.
/// - **Atomic snapshots.** `snapshot` is an immutable value published after each commit: readers see a change
///   entirely or not at all, and never wait for a writer.
///
/// ## Concurrency
/// Every method that may touch storage is `async`: implementations keep blocking work (disk I/O with fsync, a
/// network round trip) off Swift's cooperative pool themselves, so callers simply `await`. Only `snapshot` is
/// synchronous, because it is read on hot paths and must be an in-memory value.
public protocol SkinStore: AnyObject, Sendable {
    /// The state after the last committed change. O(1); never waits for a writer or for storage.
    var snapshot: StoreSnapshot { get }

    /// Decides and makes one change on the store's current state: `rule` runs with the state as it is at that
    /// moment, with every other change held off until this one is committed (the file store's writer lock; with
    /// PostgreSQL, inside the transaction that locks the revision row, the state reloaded there if another replica
    /// committed), so what it decides (existence, `If-Match`, which version, a merge) can never be overtaken by a
    /// change it did not see. `rule` must be a pure function of the state: it may run more than once (a
    /// transaction retried after a serialization failure), and must not wait on anything.
    ///
    /// - Parameters:
    ///   - actor: who makes the change, for the audit log.
    ///   - upload: the files `StoreEdit.addUpload` adds, if the rule may choose it; stored before the rule runs.
    ///   - rule: the state → the edit to commit (nil: none) and a value for the caller, or a refusal.
    /// - Returns: the rule's refusal, or its value with the state after the change.
    /// - Throws: what the chosen edit's mutator throws (`unknownSkin`, `invalidName`, …), `closed`, `io`,
    ///   `unavailable`; the rule's own refusals come back as the result's failure.
    func change<Value: Sendable, Refusal: Error>(
        actor: String, upload: StoreUpload?,
        _ rule: @escaping @Sendable (StoreSnapshot) throws(Refusal) -> StoreDecision<Value>
    ) async throws(StoreError) -> Swift.Result<StoreOutcome<Value>, Refusal>

    /// A snapshot at least as new as the store's revision at the moment of the call: the published one for a
    /// store only this process writes, the state reloaded when another replica committed since for a shared
    /// store. What admin reads answer from, so a read sent after an acknowledged change (through any replica)
    /// sees it.
    ///
    /// - Throws: `unavailable` when a shared store cannot be reached to learn its revision.
    func currentSnapshot() async throws(StoreError) -> StoreSnapshot

    /// Adds a new version of `skinID` (creating the skin if it does not exist or was deleted), numbered one more
    /// than the highest number the skin ever had (1 for a new skin), optionally releasing it in the same change.
    ///
    /// - Parameters:
    ///   - files: relative path → bytes, stored content-addressed. May be empty.
    ///   - metadata: what is kept with the version (stored as a blob, `VersionMetadata.encoded()`).
    ///   - expectedRevision: nil, or the skin revision the change requires (0: the skin must never have existed).
    ///   - release: nil, or the plan to release the new version with.
    ///   - actor: who makes the change, for the audit log.
    /// - Throws: `invalidName`, `invalidPath`, `revisionMismatch`, `closed`, `io`.
    @discardableResult
    func addVersion(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int?,
        release: ReleasePlan?, actor: String
    ) async throws(StoreError) -> SkinVersion

    /// `addVersion` without a release, except when `files` are exactly the files of the skin's latest version
    /// (same paths, same bytes): then nothing changes (no version, no audit entry, no revision) and the latest
    /// version is returned with `added` false, so a retried upload makes no duplicate. `expectedRevision` is
    /// checked first either way; the metadata is not compared.
    func addVersionUnlessUnchanged(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int?, actor: String
    ) async throws(StoreError) -> (version: SkinVersion, added: Bool)

    /// Releases version `version` of `skinID` with `plan` (stored as its release document, `Release`), replacing
    /// any current release; `action` is the audit action recorded (`AuditAction.setRelease` unless the caller
    /// names another).
    ///
    /// - Throws: `unknownSkin`, `unknownVersion`, `damagedVersion`, `revisionMismatch`, `invalidName`, `closed`,
    ///   `io`.
    @discardableResult
    func setRelease(
        skinID: String, version: Int, plan: ReleasePlan, expectedRevision: Int?, actor: String, action: String
    ) async throws(StoreError) -> SkinState

    /// Removes the release of `skinID`. A skin that is not released is left alone (no change, no audit entry).
    ///
    /// - Throws: `unknownSkin`, `revisionMismatch`, `invalidName`, `closed`, `io`.
    @discardableResult
    func clearRelease(skinID: String, expectedRevision: Int?, actor: String) async throws(StoreError) -> SkinState

    /// Sets the global kill switch (`app` nil) or one app's; `expectedRevision` is checked against
    /// `killSwitches.revision`.
    ///
    /// - Throws: `invalidName`, `invalidText`, `revisionMismatch`, `closed`, `io`.
    @discardableResult
    func setKillSwitch(
        app: String?, enabled: Bool, reason: String, expectedRevision: Int?, actor: String
    ) async throws(StoreError) -> KillSwitches

    /// Deletes `skinID` (refused with `skinReleased` while released unless `force`). Its version numbers and
    /// revision keep increasing if it is uploaded again.
    ///
    /// - Returns: the store revision of the deletion.
    /// - Throws: `unknownSkin`, `skinReleased`, `revisionMismatch`, `invalidName`, `closed`, `io`.
    @discardableResult
    func deleteSkin(skinID: String, force: Bool, expectedRevision: Int?, actor: String) async throws(StoreError) -> Int

    /// Audit entries in sequence order (oldest first), at most `max(0, limit)` of them, starting after `since`
    /// (nil: from the first entry).
    func audit(since: AuditCursor?, limit: Int) async throws(StoreError) -> [AuditEntry]

    /// The bytes of the file at `path` in version `version` of `skinID` (current snapshot), checked against
    /// their content address.
    ///
    /// - Throws: `unknownSkin`, `unknownVersion`, `unknownFile`; `corruptFile` naming the stored copy if it is
    ///   missing or damaged.
    func fileBytes(skinID: String, version: Int, path: String) async throws(StoreError) -> [UInt8]

    /// The path of a local file holding exactly the bytes of `file` (of version `version` of `skinID`), checked
    /// against its content address just now, so callers can stream or pack large files from disk. The path stays
    /// valid while the store is open.
    ///
    /// - Throws: `corruptFile` naming the stored copy if it is missing, has another size or another digest;
    ///   `invalidDigest`; `io`.
    func verifiedFilePath(of file: StoredFile, skinID: String, version: Int) async throws(StoreError) -> String

    /// What phones reported about skins, kept by this store apart from its state (recording never changes the
    /// revision, the audit log or the snapshot).
    var reports: any ReportLedger { get }

    /// Stops accepting changes (they throw `closed`) and releases the storage for another store; `snapshot` keeps
    /// answering with the last state. Calling it again does nothing.
    func close() async
}
