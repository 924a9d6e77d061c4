import Foundation
import LiveryCrypto
import LiveryJSON
import SkinModel
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Livery's durable state: skin versions, releases, kill switches and the audit log, in one directory.
///
/// ## On-disk layout
/// ```
/// <directory>/lock                 flock'd while a FileSkinStore has the directory open (one process at a time)
/// <directory>/blobs/ab/cdef…       content-addressed bytes (file contents and version metadata), named by
///                                  lowercase hex SHA-256: the first two characters are the subdirectory
/// <directory>/state.json           the state record: every skin, its versions (file lists by digest), its
///                                  release, tombstones of deleted skins, kill switches, and the revision
/// <directory>/audit.log            append-only audit log, one JSON line per committed change
/// <directory>/reports.log, .key    what phones reported (`FileReportLedger`), apart from the state
/// <directory>/**/.tmp-*            temporary files; only a crash leaves them, and opening removes them
/// ```
///
/// ## Why a crash leaves either the old or the new state
/// There is exactly one commit point per change: the `rename` of a fully written and fsync'd temporary file
/// over `state.json`, followed by an fsync of the directory. Everything a new state refers to is made durable
/// before it:
/// 1. *Blobs* (for `addVersion`) are written the same way (temporary file, fsync, rename, directory fsync).
///    Writing a blob that nobody references yet changes nothing visible; a crash leaves at worst an
///    unreferenced blob, which is harmless because blobs are named by their content.
/// 2. *The audit entry* is written at the committed end of `audit.log` and fsync'd. Entry N describes the
///    change that produces revision N. Until `state.json` says revision N, that line is not committed: on open,
///    a line beyond the state's revision (or a torn line with no newline) is cut off. Any other mismatch
///    between the log and the state is reported as `StoreError.corruptFile`, never repaired silently.
/// 3. *The state record* is replaced atomically. Before its rename the store is in the old state, after it in
///    the new one; the directory fsync makes the rename itself survive a power loss. Only then does the
///    mutator return, so an acknowledged change survives `kill -9` and restart.
///
/// A failure before the rename leaves the store unchanged (the uncommitted audit line is overwritten by the
/// next change). If only the final directory fsync fails, the change is applied (snapshots show it) but the
/// mutator throws `io`: the caller must not report success, as the change may not survive a power loss.
///
/// A single state file keeps the design obvious at Livery's scale (tens of skins, hundreds of versions: a
/// state record of some kilobytes, rewritten once per admin change). File bytes and metadata are blobs, so the
/// record holds digests, not content.
///
/// ## Concurrency
/// Mutators are serialized by a mutex and run their disk I/O while holding it (blob writes, which need no
/// ordering, happen before it is taken). Readers never wait for disk: `snapshot` returns the immutable
/// `StoreSnapshot` published after the last commit, swapped under a second, short-held lock. All methods block
/// on disk I/O; call them from a thread or queue of your own, not from Swift's cooperative pool. In the
/// `SkinStore` role (`FileSkinStore+SkinStore.swift`) the same methods are async and run on the store's own
/// queues.
///
/// ## Names
/// Skin ids, app ids, actor names and file paths are validated by the caller; the store checks them again with
/// `StoreNames` and rejects what could not be a safe path component.
public final class FileSkinStore: Sendable {
    /// The store's directory, absolute.
    public let directory: String
    /// What phones reported, in `reports.log` beside the state (see `FileReportLedger`).
    public let reportLedger: FileReportLedger

    private let clock: @Sendable () -> Date
    private let writer: Mutex<Writer>
    private let published: Mutex<Published>
    /// Set by `close()`; lets `addVersion` refuse before writing blobs without waiting for the writer lock.
    private let isClosed = Atomic<Bool>(false)
    /// Where the `SkinStore` role's async methods run the blocking ones: changes on one serial queue, reads of
    /// blobs on another, so a long hash never waits behind an fsync. Serial Dispatch queues are "overcommit": they
    /// get a thread even when every core is busy, so a job never waits behind the cooperative pool.
    private let changeQueue = DispatchQueue(label: "livery.store")
    private let readQueue = DispatchQueue(label: "livery.store.read")

    /// What only the (single) writer touches.
    private struct Writer {
        /// nil once closed.
        var audit: AuditLog?
        var lockFD: Int32
    }

    /// What readers take.
    private struct Published {
        var snapshot: StoreSnapshot
        var audit: [AuditEntry]
        var onChange: (@Sendable (StoreSnapshot) -> Void)?
    }

    /// Longest accepted free-text field (kill switch reason), in UTF-8 bytes.
    public static let maximumTextLength = StoreChanges.maximumTextLength

    /// Opens the store in `directory`, creating the directory if needed.
    ///
    /// An empty or missing directory gives an empty store (revision 0), whose state record is written at once: a
    /// directory that holds blobs or audit entries but no `state.json` lost its state and is refused
    /// (`corruptFile`), never opened empty. A directory left by a crashed process
    /// opens in the last committed state: leftover temporary files are removed and an uncommitted audit tail is
    /// cut off. Version metadata blobs are read and checked against their digests; file blobs are checked only by
    /// `verify()`.
    ///
    /// - Parameters:
    ///   - directory: where the store lives, for example `<data-dir>/store`. Relative paths are resolved
    ///     against the current directory once, here.
    ///   - clock: the time recorded for changes (versions, releases, kill switches, audit entries); kept with
    ///     millisecond precision.
    /// - Throws: `StoreError.locked` if another store keeps the directory open for `lockWait` (1 s); `corruptFile` naming the file if
    ///   `state.json`, `audit.log` or a metadata blob does not hold what the store wrote; `io` for system errors.
    public init(directory: String, clock: @escaping @Sendable () -> Date = { Date() }) throws(StoreError) {
        let root = try Self.absolutePath(directory)
        try FileIO.makeDirectory(root)
        let lockPath = root + "/lock"
        let lockFD = try FileIO.openFile(lockPath, O_RDWR | O_CREAT)
        do throws(StoreError) {
            guard try Self.lock(lockFD, path: lockPath) else { throw .locked(path: root) }
            try FileIO.makeDirectory(root + "/blobs")
            try Self.removeTemporaryFiles(root)
            let statePath = root + "/state.json"
            var state = PersistedState(StoreSnapshot.empty)
            if let bytes = try FileIO.readIfExists(statePath) {
                state = try PersistedState.decode(bytes, path: statePath)
            } else {
                try Self.createStateRecord(statePath, root: root, empty: state)
            }
            let (audit, entries) = try AuditLog.open(path: root + "/audit.log", revision: state.revision)
            let snapshot = try Self.snapshot(of: state, blobs: root + "/blobs")
            self.reportLedger = try FileReportLedger(directory: root, clock: clock)
            self.directory = root
            self.clock = clock
            self.writer = Mutex(Writer(audit: audit, lockFD: lockFD))
            self.published = Mutex(Published(snapshot: snapshot, audit: entries, onChange: nil))
        } catch {
            FileIO.closeFile(lockFD)
            throw error
        }
    }

    deinit {
        close()
    }

    /// Stops accepting changes and releases the directory (another `FileSkinStore` may open it afterwards).
    /// Reads keep working on the last snapshot. Calling it again does nothing.
    public func close() {
        writer.withLock { writer in
            guard writer.audit != nil else { return }
            isClosed.store(true, ordering: .releasing)
            reportLedger.close()
            writer.audit = nil
            FileIO.closeFile(writer.lockFD)
        }
    }

    // MARK: Reading

    /// The state after the last committed change. O(1); never waits for a writer's disk I/O.
    public var snapshot: StoreSnapshot {
        published.withLock { $0.snapshot }
    }

    /// Called with the new snapshot after each committed change, in commit order, on the writer's thread while
    /// writes are still serialized: use it to rebuild derived data (the catalog). It must not call the store's
    /// mutators (that would deadlock); reading is fine. nil by default.
    public var onChange: (@Sendable (StoreSnapshot) -> Void)? {
        get { published.withLock { $0.onChange } }
        set { published.withLock { $0.onChange = newValue } }
    }

    /// The absolute path of the blob holding the bytes with SHA-256 `digest`, so callers can stream large
    /// files from disk. The path stays valid while the store is open (blobs are never deleted).
    ///
    /// - Throws: `invalidDigest` unless `digest` is 64 lowercase hex characters. Does not check existence.
    public func blobPath(digest: String) throws(StoreError) -> String {
        try StoreNames.checkDigest(digest)
        return Self.blobPath(digest: digest, in: directory + "/blobs")
    }

    /// The absolute blob path of the file at `path` in version `version` of `skinID` (current snapshot).
    ///
    /// - Throws: `unknownSkin`, `unknownVersion`, `unknownFile`.
    public func blobPath(skinID: String, version: Int, path: String) throws(StoreError) -> String {
        try blobPath(digest: storedFile(skinID: skinID, version: version, path: path).sha256)
    }

    /// The bytes of the file at `path` in version `version` of `skinID` (current snapshot).
    ///
    /// - Throws: `unknownSkin`, `unknownVersion`, `unknownFile`; `corruptFile` if the blob is missing or does
    ///   not hold the bytes its content address names.
    func fileBytes(skinID: String, version: Int, path: String) throws(StoreError) -> [UInt8] {
        let file = try storedFile(skinID: skinID, version: version, path: path)
        let blob = Self.blobPath(digest: file.sha256, in: directory + "/blobs")
        guard let bytes = try FileIO.readIfExists(blob) else {
            throw .corruptFile(path: blob, reason: "blob of \(skinID) v\(version) \(path) is missing")
        }
        guard bytes.count == file.size, SHA256.hexHash(bytes) == file.sha256 else {
            throw .corruptFile(path: blob, reason: Self.mismatch(skinID: skinID, version: version, file: file))
        }
        return bytes
    }

    /// Audit entries in sequence order (oldest first), at most `limit` of them.
    ///
    /// - Parameters:
    ///   - since: where to start; nil for the first entry. `.afterSequence(n)` pages forward from entry n;
    ///     `.time(t)` selects entries made at or after `t`.
    ///   - limit: maximum number of entries returned; values below 0 count as 0.
    public func audit(since: AuditCursor? = nil, limit: Int = 100) -> [AuditEntry] {
        let limit = max(0, limit)
        return published.withLock { published in
            let entries = published.audit
            switch since {
            case nil:
                return Array(entries.prefix(limit))
            case .afterSequence(let sequence):
                // Entry n sits at index n - 1.
                let start = min(max(0, sequence), entries.count)
                return Array(entries[start...].prefix(limit))
            case .time(let time):
                let from = StoreTime.date(StoreTime.millis(time))
                return Array(entries.lazy.filter { $0.time >= from }.prefix(limit))
            }
        }
    }

    private func storedFile(skinID: String, version: Int, path: String) throws(StoreError) -> StoredFile {
        try StoreChanges.storedFile(in: snapshot, skinID: skinID, version: version, path: path)
    }

    // MARK: Changing

    /// Adds a new version of `skinID` (creating the skin if it does not exist or was deleted).
    ///
    /// The file bytes and `metadata` are stored as blobs (each distinct content once, shared with every other
    /// version) and made durable before the version record is committed. The version gets the next number for
    /// this skin: 1 for a new skin, otherwise one more than the highest number it ever had, deleted or not.
    ///
    /// - Parameters:
    ///   - files: relative path → bytes. May be empty.
    ///   - metadata: what is kept with the version (where it came from, its `skin.json`, its report).
    ///   - expectedRevision: if given, the change happens only if `snapshot.revision(ofSkin:)` still equals it
    ///     (0 means "the skin must never have existed").
    ///   - release: if given, the new version is also released with this plan, in the same change (so importing
    ///     a skin "released as its skin.json says" cannot be half done by a crash).
    ///   - actor: who is making the change, for the audit log.
    /// - Returns: the committed version.
    /// - Throws: `invalidName`, `invalidPath`, `revisionMismatch`, `closed`, `io`.
    @discardableResult
    func addVersion(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int? = nil,
        release plan: ReleasePlan? = nil, actor: String
    ) throws(StoreError) -> SkinVersion {
        try addVersion(
            skinID: skinID, files: files, metadata: metadata, expectedRevision: expectedRevision,
            release: plan, actor: actor, unlessUnchanged: false
        ).version
    }

    /// `addVersion`, except when `files` are exactly the files of the skin's latest version (same paths, same
    /// bytes): then nothing is written (no version, no audit entry, no revision) and the latest version is
    /// returned with `added` false, so a retried upload does not make a duplicate. `expectedRevision` is checked
    /// first either way. The metadata is not compared: it describes the upload (its archive, its report), not
    /// the content.
    func addVersionUnlessUnchanged(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int? = nil,
        actor: String
    ) throws(StoreError) -> (version: SkinVersion, added: Bool) {
        try addVersion(
            skinID: skinID, files: files, metadata: metadata, expectedRevision: expectedRevision, release: nil,
            actor: actor, unlessUnchanged: true)
    }

    private func addVersion(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int?,
        release plan: ReleasePlan?, actor: String, unlessUnchanged: Bool
    ) throws(StoreError) -> (version: SkinVersion, added: Bool) {
        let upload = try PreparedUpload(skinID: skinID, files: files, metadata: metadata, actor: actor)
        try checkOpen()
        var blobs = upload.fileBlobs
        // A likely unchanged upload writes no metadata blob (its file blobs are present, so writing them costs a
        // size check each); should the skin change before the commit, the commit writes it.
        let metadataPending = unlessUnchanged && snapshot.skins[skinID]?.versions.last?.files == upload.files
        if !metadataPending { blobs[upload.metadataDigest] = upload.metadataBytes }
        // Outside the writer lock: content-addressed writes are idempotent, and nothing refers to these blobs
        // until the version record below is committed.
        try writeBlobs(blobs)

        return try commit { (current, now, revision) throws(StoreError) in
            let change = try StoreChanges.addVersion(
                skinID: skinID, upload: upload, expectedRevision: expectedRevision, release: plan,
                actor: actor, unlessUnchanged: unlessUnchanged, current: current, now: now, revision: revision)
            if metadataPending, change.snapshot != nil {
                try writeBlobs([upload.metadataDigest: upload.metadataBytes])
            }
            return change
        }
    }

    /// Releases version `version` of `skinID` with `plan` (schedule, targeting, rollout), replacing any current
    /// release. Use it also to change only the plan (for example the rollout).
    ///
    /// - Parameters:
    ///   - expectedRevision: if given, the change happens only if the skin's revision still equals it.
    ///   - action: the audit action recorded; `AuditAction.setRelease` unless the caller names a more specific
    ///     one (for example `"release.rollback"`). Must pass `StoreNames.checkName`.
    /// - Returns: the skin after the change.
    /// - Throws: `unknownSkin`, `unknownVersion`, `damagedVersion`, `revisionMismatch`, `invalidName`, `closed`,
    ///   `io`.
    @discardableResult
    func setRelease(
        skinID: String, version: Int, plan: ReleasePlan, expectedRevision: Int? = nil, actor: String,
        action: String = AuditAction.setRelease
    ) throws(StoreError) -> SkinState {
        try StoreChanges.checkSetRelease(skinID: skinID, actor: actor, action: action)
        return try commit { (current, now, revision) throws(StoreError) in
            try StoreChanges.setRelease(
                skinID: skinID, version: version, plan: plan, expectedRevision: expectedRevision,
                actor: actor, action: action, current: current, now: now, revision: revision)
        }
    }

    /// Stops serving `skinID`: removes its release. A skin that is not released is left alone (no change, no
    /// audit entry, same revision), so repeating the call is harmless.
    ///
    /// - Returns: the skin after the call.
    /// - Throws: `unknownSkin`, `revisionMismatch`, `invalidName`, `closed`, `io`.
    @discardableResult
    func clearRelease(skinID: String, expectedRevision: Int? = nil, actor: String) throws(StoreError) -> SkinState {
        try StoreNames.checkName(skinID)
        try StoreNames.checkName(actor)
        return try commit { (current, _, revision) throws(StoreError) in
            try StoreChanges.clearRelease(
                skinID: skinID, expectedRevision: expectedRevision, actor: actor, current: current, revision: revision)
        }
    }

    /// Sets the global kill switch (`app` nil) or the switch of one app. An enabled switch means "serve no
    /// skin" (see `KillSwitches.isKilled(app:)`); disabling keeps the record, so the last change stays visible.
    ///
    /// - Parameters:
    ///   - reason: free text for operators, at most `maximumTextLength` bytes, no NUL.
    ///   - expectedRevision: if given, the change happens only if `killSwitches.revision` still equals it.
    /// - Returns: the kill switches after the change.
    /// - Throws: `invalidName`, `invalidText`, `revisionMismatch`, `closed`, `io`.
    @discardableResult
    func setKillSwitch(
        app: String?, enabled: Bool, reason: String, expectedRevision: Int? = nil, actor: String
    ) throws(StoreError) -> KillSwitches {
        try StoreChanges.checkKillSwitch(app: app, reason: reason, actor: actor)
        return try commit { (current, now, revision) throws(StoreError) in
            try StoreChanges.setKillSwitch(
                app: app, enabled: enabled, reason: reason, expectedRevision: expectedRevision, actor: actor,
                current: current, now: now, revision: revision)
        }
    }

    /// Deletes `skinID`: it disappears from snapshots; its history stays in the audit log, its blobs stay on
    /// disk, and its version numbers are not reused if it is uploaded again.
    ///
    /// - Parameter force: delete even while released (the release goes with it). Without it a released skin
    ///   is refused with `skinReleased`.
    /// - Returns: the store revision of the deletion.
    /// - Throws: `unknownSkin`, `skinReleased`, `revisionMismatch`, `invalidName`, `closed`, `io`.
    @discardableResult
    func deleteSkin(
        skinID: String, force: Bool = false, expectedRevision: Int? = nil, actor: String
    ) throws(StoreError) -> Int {
        try StoreNames.checkName(skinID)
        try StoreNames.checkName(actor)
        return try commit { (current, _, revision) throws(StoreError) in
            try StoreChanges.deleteSkin(
                skinID: skinID, force: force, expectedRevision: expectedRevision, actor: actor, current: current,
                revision: revision)
        }
    }

    /// `SkinStore.change`, blocking: `rule` runs under the writer lock with the state every earlier change left,
    /// and its edit is committed before the lock is released. The upload's blobs are written before, outside the
    /// lock (content-addressed writes are idempotent, and nothing refers to them until a version does).
    func change<Value: Sendable, Refusal: Error>(
        actor: String, upload: StoreUpload? = nil,
        _ rule: (StoreSnapshot) throws(Refusal) -> StoreDecision<Value>
    ) throws(StoreError) -> Swift.Result<StoreOutcome<Value>, Refusal> {
        try StoreNames.checkName(actor)
        try checkOpen()
        let prepared = try upload.map { (upload) throws(StoreError) in
            try PreparedUpload(
                skinID: upload.skinID, files: upload.files, metadata: upload.metadata, actor: actor)
        }
        // A likely unchanged upload writes no metadata blob (as `addVersionUnlessUnchanged`); should a version be
        // added after all, the commit writes it.
        var metadataPending = false
        if let prepared, let upload {
            metadataPending = snapshot.skins[upload.skinID]?.versions.last?.files == prepared.files
            var blobs = prepared.fileBlobs
            if !metadataPending { blobs[prepared.metadataDigest] = prepared.metadataBytes }
            try writeBlobs(blobs)
        }
        return try commit { (current, now, revision) throws(StoreError) in
            let change = try StoreChanges.decide(
                rule, upload: prepared, uploadSkinID: upload?.skinID, actor: actor, current: current, now: now,
                revision: revision)
            if metadataPending, change.snapshot != nil, let prepared {
                try writeBlobs([prepared.metadataDigest: prepared.metadataBytes])
            }
            return change
        }
    }

    // MARK: Committing

    /// Runs `body` with the current snapshot, the time, and the revision the change will get, then commits what
    /// it returns (audit entry, then state record; see the type's documentation), publishes the new snapshot and
    /// calls `onChange`. Serialized with every other change.
    private func commit<Result: Sendable>(
        _ body: (StoreSnapshot, Date, Int) throws(StoreError) -> StoreChange<Result>
    ) throws(StoreError) -> Result {
        try writer.withLock { (writer) throws(StoreError) -> Result in
            guard let audit = writer.audit else { throw .closed }
            let current = published.withLock { $0.snapshot }
            let now = StoreTime.date(StoreTime.millis(clock()))
            let revision = current.revision + 1
            let change = try body(current, now, revision)
            guard let next = change.snapshot else { return change.result }

            let entry = change.auditEntry(sequence: revision, time: now)
            try audit.append(entry)
            try FileIO.writeAtomically(
                PersistedState(next).encoded(), to: directory + "/state.json", syncDirectory: false)
            // The rename happened: on disk the store is now in the new state (durable once the directory is
            // synced), so memory must follow even if that sync fails.
            audit.commit()
            var syncError: StoreError?
            do throws(StoreError) { try FileIO.syncDirectory(directory) } catch { syncError = error }
            let handler = published.withLock { published in
                published.snapshot = next
                published.audit.append(entry)
                return published.onChange
            }
            handler?(next)
            if let syncError { throw syncError }
            return change.result
        }
    }

    /// Runs the blocking `work` on the change queue (or the read queue) and resumes the caller with its result.
    func offPool<T: Sendable, E: Error>(
        reading: Bool = false, _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let queue = reading ? readQueue : changeQueue
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
        }
        return try result.get()
    }

    private func checkOpen() throws(StoreError) {
        if isClosed.load(ordering: .acquiring) { throw .closed }
    }

    /// Writes each blob that is not already stored, then syncs the directories involved, so on return every
    /// blob in `blobs` is durable under its digest.
    private func writeBlobs(_ blobs: [String: [UInt8]]) throws(StoreError) {
        var directories = Set<String>()
        for (digest, bytes) in blobs {
            let path = Self.blobPath(digest: digest, in: directory + "/blobs")
            let parent = FileIO.parent(of: path)
            if directories.insert(parent).inserted { try FileIO.makeDirectory(parent) }
            // A blob only ever appears under its name by a rename after an fsync, so one of the right size is
            // complete. (A wrong size can only be damage; replace it.)
            if try FileIO.fileSize(path) == bytes.count { continue }
            try FileIO.writeAtomically(bytes, to: path, syncDirectory: false)
        }
        // Also for blobs found already present: a crashed writer may have renamed them without the sync.
        for parent in directories.sorted() { try FileIO.syncDirectory(parent) }
    }

    // MARK: Helpers

    static func blobPath(digest: String, in blobs: String) -> String {
        let split = digest.index(digest.startIndex, offsetBy: 2)
        return blobs + "/" + digest[..<split] + "/" + digest[split...]
    }

    private static func absolutePath(_ directory: String) throws(StoreError) -> String {
        guard !directory.isEmpty else { throw .io(operation: "open", path: directory, errno: ENOENT) }
        var path = directory
        if !path.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else { throw .io(operation: "getcwd", path: directory, errno: errno) }
            defer { free(cwd) }
            path = String(cString: cwd) + "/" + path
        }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// How long `init` waits for the directory lock before reporting `locked`.
    ///
    /// Not zero because a lock can be held briefly by no store at all: a child forked by any thread of the
    /// process holding it shares the lock until it calls exec (`O_CLOEXEC` closes the descriptor only then).
    static let lockWait: Duration = .seconds(1)

    /// Takes the directory lock, retrying for up to `lockWait`; false if someone else keeps it.
    private static func lock(_ fd: Int32, path: String) throws(StoreError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: lockWait)
        while true {
            if try FileIO.tryLock(fd, path: path) { return true }
            if clock.now >= deadline { return false }
            Syscall.sleep(milliseconds: 5)
        }
    }

    /// Writes the state record of a new, empty store, so that every store that was ever opened has one and a
    /// missing `state.json` always means damage. It is written before any blob or audit line can exist; finding
    /// either without a state record means the record was lost, and the store refuses to open rather than start
    /// empty over data it cannot account for.
    private static func createStateRecord(_ statePath: String, root: String, empty: PersistedState) throws(StoreError) {
        let blobs = try FileIO.list(root + "/blobs").filter { !$0.hasPrefix(FileIO.temporaryPrefix) }
        let auditSize = try FileIO.fileSize(root + "/audit.log") ?? 0
        guard blobs.isEmpty && auditSize == 0 else {
            throw .corruptFile(
                path: statePath,
                reason:
                    "missing, yet the store holds \(blobs.count) blob folder(s) and \(auditSize) bytes of audit log; "
                    + "restore state.json from a backup (the store will not start empty over data it cannot account for)"
            )
        }
        try FileIO.writeAtomically(empty.encoded(), to: statePath)
    }

    /// Removes the temporary files a crashed writer left in the store directory and the blob directories.
    private static func removeTemporaryFiles(_ root: String) throws(StoreError) {
        var directories = [root, root + "/blobs"]
        for name in try FileIO.list(root + "/blobs") where !name.hasPrefix(FileIO.temporaryPrefix) {
            directories.append(root + "/blobs/" + name)
        }
        for directory in directories {
            // A stray non-directory among the blob prefixes is not ours to judge here; `verify()` reports it.
            guard let names = try FileIO.listIfDirectory(directory) else { continue }
            let leftovers = names.filter { $0.hasPrefix(FileIO.temporaryPrefix) }
            guard !leftovers.isEmpty else { continue }
            for name in leftovers { try FileIO.remove(directory + "/" + name) }
            try FileIO.syncDirectory(directory)
        }
    }

    /// Builds the snapshot of a decoded state, reading and checking each version's metadata blob.
    private static func snapshot(of state: PersistedState, blobs: String) throws(StoreError) -> StoreSnapshot {
        var skins = [String: SkinState]()
        var tombstones = [String: Tombstone]()
        for skin in state.skins {
            if skin.deleted {
                tombstones[skin.id] = Tombstone(revision: skin.revision, lastVersion: skin.lastVersion)
                continue
            }
            var versions = [SkinVersion]()
            for version in skin.versions {
                // Damage stays with its version: a missing, damaged or unreadable metadata blob, or a file list that
                // does not match the version's digest, marks that version (never served, never read), not the store.
                let metadata = try FileIO.readIfExists(blobPath(digest: version.metadata, in: blobs))
                versions.append(
                    SkinVersion.loaded(
                        skinID: skin.id, number: version.number, createdAt: StoreTime.date(version.createdAt),
                        actor: version.actor,
                        files: version.files.map { StoredFile(path: $0.path, size: $0.size, sha256: $0.sha256) },
                        metadata: metadata, metadataDigest: version.metadata, metadataSize: version.metadataSize,
                        digest: version.digest, scrubDamage: version.scrubDamage))
            }
            skins[skin.id] = SkinState(
                id: skin.id, revision: skin.revision, versions: versions,
                release: skin.release.map {
                    Release.loaded(
                        version: $0.version, document: Array($0.document), releasedAt: StoreTime.date($0.releasedAt),
                        actor: $0.actor)
                })
        }
        let records = state.killSwitches
        var apps = [String: KillSwitch]()
        for entry in records.apps { apps[entry.app] = entry.setting.killSwitch }
        return StoreSnapshot(
            revision: state.revision, skins: skins,
            killSwitches: KillSwitches(global: records.global?.killSwitch, apps: apps, revision: records.revision),
            tombstones: tombstones)
    }
}
