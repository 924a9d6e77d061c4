import Foundation
import LiveryCrypto
import PostgresClient
import SkinModel
import SkinStore
import Synchronization

/// A `SkinStore` in PostgreSQL, shared by several replicas.
///
/// Each change is one transaction: it locks the store's revision row (`SELECT … FOR UPDATE`, so changes from every
/// replica are serialized by the database), reloads the state if another replica committed since this one last
/// looked, checks the caller's revision, writes the rows, the audit entry and the new revision, and sends
/// `NOTIFY livery_changes, '<revision>'` (delivered at commit) so other replicas can `refresh()`. A change is
/// acknowledged only after its `COMMIT` returned, so it is as durable as PostgreSQL makes commits.
///
/// The snapshot is kept in memory and published after each own change and by `refresh()`. File bytes live in
/// `livery_blobs` and are checked against their SHA-256 on every read; `verifiedFilePath` writes verified copies
/// into a local cache folder. Blocking libpq calls run on the connection's own thread, never on the caller's.
///
/// While PostgreSQL is unreachable, `snapshot` keeps the last state and everything else fails with `unavailable`;
/// the store reconnects by itself (see `init`), and `follow` keeps a replica's snapshot current.
public final class PostgresSkinStore: SharedSkinStore {
    /// The database, for logs (the password is redacted).
    public let redactedURI: String
    /// Where `verifiedFilePath` keeps verified copies of blobs (one file per digest).
    public let cacheDirectory: String
    /// Where the store connects and reconnects.
    public let configuration: PostgresConfiguration
    /// What phones reported, in `livery_reports` (see `PostgresReportLedger`).
    public let reportLedger: PostgresReportLedger
    public var reports: any ReportLedger { reportLedger }

    private let link = Mutex(Link())
    private let reachable = Atomic<Bool>(false)
    private let clock: @Sendable () -> Date
    private let published = Mutex(StoreSnapshot.empty)
    private let isClosed = Atomic<Bool>(false)
    private let waiting = Mutex(StartWait.postgres(problem: "not connected yet"))
    /// The revision of the change this store is committing now (0: none yet), set before its `COMMIT` is sent: its
    /// notification may arrive before the commit returns, and needs no reload (`knows(revision:)`).
    private let committing = Atomic<Int>(0)

    /// How many times a change is retried after a serialization failure or deadlock before giving up.
    static let transientRetries = 3
    /// The advisory lock key of `exclusively` (the migrator's is `…0001`).
    static let exclusiveLockKey: Int64 = 0x6C69_7665_7279_0002

    /// The store's connection, and how it reconnects after losing it.
    private struct Link: Sendable {
        /// Nil before `connect()` and after the connection broke, until the next call reconnects.
        var connection: PostgresConnection?
        /// True once `connect()` loaded the state: only then may a call reconnect by itself.
        var loaded = false
        /// True while one call is reconnecting (the others fail at once rather than queue behind it).
        var connecting = false
        /// Spaces reconnection attempts while PostgreSQL stays unreachable; reset by a connection.
        var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(2))
        /// No reconnection attempt before this instant.
        var retryAt: ContinuousClock.Instant?
        /// Why the last attempt failed, for the `unavailable` errors given meanwhile.
        var problem = "not connected yet"
    }

    /// A store for `configuration` that has not connected yet: `snapshot` is empty, and everything that needs
    /// PostgreSQL fails with `unavailable` until `connect()` succeeds. After that, a call that finds the connection
    /// broken reconnects (at most one attempt at a time, spaced by a backoff of 100 ms doubling up to 2 s).
    ///
    /// - Parameters:
    ///   - cacheDirectory: a local folder for verified blob copies (created if missing), e.g.
    ///     `<data-dir>/blobs-cache`.
    ///   - clock: the time recorded for changes, kept with millisecond precision.
    /// - Throws: `.store` when the cache folder cannot be created.
    public init(
        _ configuration: PostgresConfiguration, cacheDirectory: String,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(PostgresStoreError) {
        do throws(StoreError) {
            try FileIO.makeDirectory(cacheDirectory)
        } catch {
            throw .store(error)
        }
        self.configuration = configuration
        self.redactedURI = configuration.redactedURI
        self.cacheDirectory = cacheDirectory
        self.clock = clock
        self.reportLedger = PostgresReportLedger(configuration, clock: clock)
    }

    /// A store for `configuration`, connected: see `init` and `connect()`.
    public static func open(
        _ configuration: PostgresConfiguration, cacheDirectory: String,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) async throws(PostgresStoreError) -> PostgresSkinStore {
        let store = try PostgresSkinStore(configuration, cacheDirectory: cacheDirectory, clock: clock)
        try await store.connect()
        return store
    }

    /// Connects, applies the schema migrations (under an advisory lock), loads the state and publishes it.
    ///
    /// - Throws: `PostgresStoreError.schema(.databaseNewer)` when the database's schema is newer than this binary;
    ///   `.connection` when PostgreSQL cannot be reached; `.store` for a damaged row.
    public func connect() async throws(PostgresStoreError) {
        let connection = try await Self.migratedConnection(configuration) { phase in
            self.waiting.withLock { $0 = phase }
        }
        let loaded = await Self.run(on: connection) { session throws(StoreError) in
            try Self.inTransaction(session, isolation: .repeatableRead) { session throws(StoreError) in
                try StoreRows.load(session)
            }
        }
        switch loaded {
        case .success(let snapshot):
            let previous = link.withLock { link in
                defer { link = Link(connection: connection, loaded: true) }
                return link.connection
            }
            if let previous { await previous.close() }
            reachable.store(true, ordering: .releasing)
            publish(snapshot)
        case .failure(let error):
            await connection.close()
            throw .store(error)
        }
    }

    /// `connect()`, tried again after each `.connection` failure (PostgreSQL unreachable) with `backoff` between
    /// attempts, `waiting` told each time why and for how long; returns once connected. Other failures (a schema
    /// newer than the binary, a damaged row) are thrown, as is the last `.connection` failure when the calling task
    /// is cancelled.
    public func connectRetrying(
        backoff: Backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(2)),
        waiting: (PostgresError, Duration) -> Void = { _, _ in }
    ) async throws(PostgresStoreError) {
        var backoff = backoff
        while true {
            do throws(PostgresStoreError) {
                try await connect()
                return
            } catch .connection(let error) {
                self.waiting.withLock { $0 = .postgres(problem: error.description) }
                let delay = backoff.next()
                waiting(error, delay)
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw .connection(error as? PostgresError ?? .closed)
                }
            }
        }
    }

    /// A connection to `configuration` with the schema migrations applied.
    ///
    /// - Parameter phase: told what the start waits for next (the migration lock, then loading).
    private static func migratedConnection(
        _ configuration: PostgresConfiguration, phase: (StartWait) -> Void = { _ in }
    ) async throws(PostgresStoreError) -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration)
        } catch {
            throw .connection(error)
        }
        phase(.migrationLock)
        do {
            _ = try await PostgresStoreSchema.migrator().migrate(connection)
        } catch {
            await connection.close()
            // PgBouncer in statement mode ends every multi-statement transaction: say so, not only its words.
            if case .failed(_, let failure) = error, failure.description.contains("statement pooling mode") {
                throw .statementPooling(failure)
            }
            throw .schema(error)
        }
        phase(.loading)
        return connection
    }

    /// Whether PostgreSQL answered this store's last call (false before `connect()`, and from a lost connection
    /// until the next successful one).
    public var isReachable: Bool { reachable.load(ordering: .acquiring) }

    /// Runs `body` holding the PostgreSQL advisory lock `exclusiveLockKey` on a connection of its own, the store's
    /// own connection staying free for `body`'s calls. The lock is transaction-level (`pg_advisory_xact_lock`) in a
    /// transaction that stays open while `body` runs: a pool that hands out server sessions per transaction
    /// (PgBouncer's transaction mode) keeps that session for this connection until the transaction ends, and the
    /// lock can never outlive it (a session-level lock taken through such a pool stays behind on a pooled server
    /// session). Ending the transaction releases the lock, as does closing the connection or the death of this
    /// process. Once the lock is held the snapshot is refreshed, so `body` sees what the previous holder committed.
    public func exclusively<T: Sendable>(
        _ body: @Sendable () async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        if isClosed.load(ordering: .acquiring) { throw .closed }
        let holder: PostgresConnection
        waiting.withLock { $0 = .importLock }
        do {
            holder = try await PostgresConnection.connect(configuration)
        } catch {
            throw Self.storeError(error)
        }
        do {
            try await holder.query("BEGIN")
            try await holder.query("SELECT pg_advisory_xact_lock($1)", [.int(Self.exclusiveLockKey)])
        } catch {
            await holder.close()
            throw Self.storeError(error)
        }
        waiting.withLock { $0 = .importing }
        let result: Swift.Result<T, StoreError>
        do throws(StoreError) {
            try await refresh()
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        _ = try? await holder.query("COMMIT")
        await holder.close()
        waiting.withLock { $0 = .catalog }
        return try result.get()
    }

    /// What a start of this store waits for, for a timeout's message (`describeWait()`).
    public enum StartWait: Sendable, Equatable {
        /// PostgreSQL to answer (connecting, or reconnecting after `problem`).
        case postgres(problem: String)
        /// The schema migration's advisory lock (another process migrates, or holds it).
        case migrationLock
        /// The state to load.
        case loading
        /// The first start's import lock (`exclusively`).
        case importLock
        /// The import, under the lock.
        case importing
        /// The catalog to be built from the loaded state.
        case catalog
    }

    /// What the start waits for now.
    public var startWait: StartWait { waiting.withLock { $0 } }

    /// What the start waits for, in words for an operator: PostgreSQL with the last problem, or the migration or
    /// import lock and (asked of PostgreSQL, on a connection of its own, within a few seconds) the session holding
    /// it.
    public func describeWait() async -> String {
        switch startWait {
        case .postgres(let problem):
            return "PostgreSQL at \(redactedURI) to answer (\(problem))"
        case .migrationLock:
            return "the schema migration lock (advisory lock \(Self.hex(PostgresStoreSchema.migrationLockKey))), "
                + (await lockHolder(PostgresStoreSchema.migrationLockKey))
        case .importLock:
            return "the first start's import lock (advisory lock \(Self.hex(Self.exclusiveLockKey))), "
                + (await lockHolder(Self.exclusiveLockKey))
        case .loading:
            return "the store's state to load from PostgreSQL at \(redactedURI)"
        case .importing:
            return "the import of the skins folder into the store"
        case .catalog:
            return "the catalog to be built (its packages validated and packed)"
        }
    }

    private static func hex(_ key: Int64) -> String { "0x" + String(UInt64(bitPattern: key), radix: 16) }

    /// Who holds advisory lock `key`, asked of PostgreSQL (`pg_locks` and `pg_stat_activity`) within 5 s.
    private func lockHolder(_ key: Int64) async -> String {
        let configuration = configuration
        let found = Mutex<String?>(nil)
        Task {
            let holder: String
            do {
                let connection = try await PostgresConnection.connect(configuration)
                let rows: [PostgresRow]
                do {
                    rows = try await connection.query(
                        """
                        SELECT a.pid, coalesce(a.application_name, ''), coalesce(host(a.client_addr), 'a local socket'),
                               coalesce(a.state, ''),
                               coalesce(to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), '?')
                        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                        WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = $1 AND l.objid::bigint = $2
                          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        """, [.int(Int(key >> 32)), .int(Int(key & 0xFFFF_FFFF))]
                    ).rows
                } catch {
                    await connection.close()
                    throw error
                }
                await connection.close()
                if let row = rows.first {
                    holder =
                        "held by PostgreSQL backend pid \(try row.int(0)) (application '\(try row.string(1))', "
                        + "connected from \(try row.string(2)), \(try row.string(3)), its transaction open since "
                        + "\(try row.string(4)))"
                } else {
                    holder = "which no session holds now (it was just released)"
                }
            } catch {
                holder = "whose holder could not be looked up (\(error))"
            }
            found.withLock { $0 = holder }
        }
        for _ in 0..<50 {
            if let holder = found.withLock({ $0 }) { return holder }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return "whose holder could not be looked up within 5 s"
    }

    // MARK: Reading

    public var snapshot: StoreSnapshot { published.withLock { $0 } }

    /// Reads the store revision and, if another replica committed since this store last looked, reloads the state
    /// and publishes it. Call it on a `livery_changes` notification and on a timer (notifications are lost while
    /// disconnected).
    ///
    /// - Returns: true when a newer snapshot was published.
    /// - Throws: `unavailable` when PostgreSQL cannot be reached; `corruptFile` naming a damaged row.
    @discardableResult
    public func refresh() async throws(StoreError) -> Bool {
        try await run { session throws(StoreError) -> Bool in
            // Read on the connection: a change this store committed on it before is published by then.
            let known = self.snapshot
            let loaded = try Self.inTransaction(session, isolation: .repeatableRead) { session throws(StoreError) in
                try StoreRows.revision(session, forUpdate: false) == known.revision
                    ? nil : try StoreRows.load(session, after: known)
            }
            return loaded.map { self.publish($0) } ?? false
        }
    }

    public func audit(since: AuditCursor?, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await run { session throws(StoreError) in try StoreRows.audit(session, since: since, limit: max(0, limit)) }
    }

    public func fileBytes(skinID: String, version: Int, path: String) async throws(StoreError) -> [UInt8] {
        let file = try StoreChanges.storedFile(in: snapshot, skinID: skinID, version: version, path: path)
        return try await verifiedBytes(of: file, skinID: skinID, version: version)
    }

    public func verifiedFilePath(of file: StoredFile, skinID: String, version: Int) async throws(StoreError) -> String {
        try StoreNames.checkDigest(file.sha256)
        let path = cacheDirectory + "/" + file.sha256
        if let cached = try FileIO.contentAddress(of: path), cached.size == file.size, cached.sha256 == file.sha256 {
            return path
        }
        let bytes = try await verifiedBytes(of: file, skinID: skinID, version: version)
        try FileIO.writeAtomically(bytes, to: path)
        return path
    }

    /// The bytes of blob `file.sha256`, checked against its size and digest.
    private func verifiedBytes(of file: StoredFile, skinID: String, version: Int) async throws(StoreError) -> [UInt8] {
        let bytes = try await run { session throws(StoreError) in try StoreRows.blob(session, digest: file.sha256) }
        let name = StoreRows.blobName(file.sha256)
        guard let bytes else {
            throw .corruptFile(path: name, reason: "blob of \(skinID) v\(version) \(file.path) is missing")
        }
        guard bytes.count == file.size, SHA256.hexHash(bytes) == file.sha256 else {
            throw .corruptFile(path: name, reason: StoreChanges.mismatch(skinID: skinID, version: version, file: file))
        }
        return bytes
    }

    // MARK: Changing

    @discardableResult
    public func addVersion(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int?,
        release: ReleasePlan?, actor: String
    ) async throws(StoreError) -> SkinVersion {
        try await addVersion(
            skinID: skinID, files: files, metadata: metadata, expectedRevision: expectedRevision, release: release,
            actor: actor, unlessUnchanged: false
        ).version
    }

    public func addVersionUnlessUnchanged(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int?, actor: String
    ) async throws(StoreError) -> (version: SkinVersion, added: Bool) {
        try await addVersion(
            skinID: skinID, files: files, metadata: metadata, expectedRevision: expectedRevision, release: nil,
            actor: actor, unlessUnchanged: true)
    }

    private func addVersion(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int?,
        release: ReleasePlan?, actor: String, unlessUnchanged: Bool
    ) async throws(StoreError) -> (version: SkinVersion, added: Bool) {
        let upload = try PreparedUpload(skinID: skinID, files: files, metadata: metadata, actor: actor)
        var blobs = upload.fileBlobs
        blobs[upload.metadataDigest] = upload.metadataBytes
        return try await commit(blobs: blobs) { (current, now, revision) throws(StoreError) in
            try StoreChanges.addVersion(
                skinID: skinID, upload: upload, expectedRevision: expectedRevision, release: release, actor: actor,
                unlessUnchanged: unlessUnchanged, current: current, now: now, revision: revision)
        }
    }

    @discardableResult
    public func setRelease(
        skinID: String, version: Int, plan: ReleasePlan, expectedRevision: Int?, actor: String, action: String
    ) async throws(StoreError) -> SkinState {
        try StoreChanges.checkSetRelease(skinID: skinID, actor: actor, action: action)
        return try await commit { (current, now, revision) throws(StoreError) in
            try StoreChanges.setRelease(
                skinID: skinID, version: version, plan: plan, expectedRevision: expectedRevision,
                actor: actor, action: action, current: current, now: now, revision: revision)
        }
    }

    @discardableResult
    public func clearRelease(
        skinID: String, expectedRevision: Int?, actor: String
    ) async throws(StoreError) -> SkinState {
        try StoreNames.checkName(skinID)
        try StoreNames.checkName(actor)
        return try await commit { (current, _, revision) throws(StoreError) in
            try StoreChanges.clearRelease(
                skinID: skinID, expectedRevision: expectedRevision, actor: actor, current: current, revision: revision)
        }
    }

    @discardableResult
    public func setKillSwitch(
        app: String?, enabled: Bool, reason: String, expectedRevision: Int?, actor: String
    ) async throws(StoreError) -> KillSwitches {
        try StoreChanges.checkKillSwitch(app: app, reason: reason, actor: actor)
        return try await commit { (current, now, revision) throws(StoreError) in
            try StoreChanges.setKillSwitch(
                app: app, enabled: enabled, reason: reason, expectedRevision: expectedRevision, actor: actor,
                current: current, now: now, revision: revision)
        }
    }

    @discardableResult
    public func deleteSkin(
        skinID: String, force: Bool, expectedRevision: Int?, actor: String
    ) async throws(StoreError) -> Int {
        try StoreNames.checkName(skinID)
        try StoreNames.checkName(actor)
        return try await commit { (current, _, revision) throws(StoreError) in
            try StoreChanges.deleteSkin(
                skinID: skinID, force: force, expectedRevision: expectedRevision, actor: actor, current: current,
                revision: revision)
        }
    }

    public func change<Value: Sendable, Refusal: Error>(
        actor: String, upload: StoreUpload?,
        _ rule: @escaping @Sendable (StoreSnapshot) throws(Refusal) -> StoreDecision<Value>
    ) async throws(StoreError) -> Swift.Result<StoreOutcome<Value>, Refusal> {
        try StoreNames.checkName(actor)
        let prepared = try upload.map { (upload) throws(StoreError) in
            try PreparedUpload(skinID: upload.skinID, files: upload.files, metadata: upload.metadata, actor: actor)
        }
        var blobs = prepared?.fileBlobs ?? [:]
        if let prepared { blobs[prepared.metadataDigest] = prepared.metadataBytes }
        let skinID = upload?.skinID
        return try await commit(blobs: blobs) { (current, now, revision) throws(StoreError) in
            try StoreChanges.decide(
                rule, upload: prepared, uploadSkinID: skinID, actor: actor, current: current, now: now,
                revision: revision)
        }
    }

    /// Reads the revision and reloads the state if another replica committed since (`refresh()`), then returns
    /// the published snapshot, which is at least that new.
    public func currentSnapshot() async throws(StoreError) -> StoreSnapshot {
        try await refresh()
        return snapshot
    }

    public func close() async {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await reportLedger.close()
        let connection = link.withLock { link in
            defer { link.connection = nil }
            return link.connection
        }
        await connection?.close()
    }

    // MARK: Committing

    /// Runs `body` with the current state (reloaded under the revision row's lock if another replica committed),
    /// the time and the next revision, and commits what it returns in the same transaction: the blobs, the rows
    /// of the changed skin or kill switch, the audit entry, the revision, the notification. Retries serialization
    /// failures and deadlocks a few times. Publishes the new snapshot after the commit, before the connection serves
    /// another call.
    private func commit<Result: Sendable>(
        blobs: [String: [UInt8]] = [:],
        _ body: @escaping @Sendable (StoreSnapshot, Date, Int) throws(StoreError) -> StoreChange<Result>
    ) async throws(StoreError) -> Result {
        if isClosed.load(ordering: .acquiring) { throw .closed }
        let now = StoreTime.date(StoreTime.millis(clock()))
        var attempt = 0
        while true {
            attempt += 1
            do {
                // A refused change writes nothing: its transaction commits having only read (and locked) rows.
                // What this replica learned is published even when the change was refused, before the connection
                // serves another call (a `refresh()` then finds it published and reads nothing more).
                let outcome = try await run { session throws(StoreError) in
                    // Read on the connection, so it holds whatever the calls before this one published.
                    let known = self.snapshot
                    // A failed commit may leave its revision to another replica's change: not this store's then.
                    defer { self.committing.store(0, ordering: .releasing) }
                    let (state, outcome) = try Self.inTransaction(session, isolation: .readCommitted) {
                        session throws(StoreError) -> (StoreSnapshot, Swift.Result<Result, StoreError>) in
                        let revision = try StoreRows.revision(session, forUpdate: true)
                        let current =
                            revision == known.revision ? known : try StoreRows.load(session, after: known)
                        let change: StoreChange<Result>
                        do throws(StoreError) {
                            change = try body(current, now, revision + 1)
                        } catch {
                            return (current, .failure(error))
                        }
                        guard let next = change.snapshot else { return (current, .success(change.result)) }
                        try StoreRows.write(
                            session, change: change, next: next, blobs: blobs,
                            entry: change.auditEntry(sequence: next.revision, time: now))
                        self.committing.store(next.revision, ordering: .releasing)
                        return (next, .success(change.result))
                    }
                    self.publish(state)
                    return outcome
                }
                return try outcome.get()
            } catch .unavailable(let reason)
                where reason.hasPrefix(Self.transientPrefix) && attempt <= Self.transientRetries
            {
                continue
            }
        }
    }

    /// Whether this store has published `revision` already, or is committing it itself (publishing it once its
    /// `COMMIT` returns; if that fails after all, the next `refresh()` finds the revision).
    func knows(revision: Int) -> Bool {
        // In this order: the commit publishes its snapshot before it clears `committing`.
        revision == committing.load(ordering: .acquiring) || revision <= snapshot.revision
    }

    /// Publishes `snapshot` unless a newer one is already published; true when it was.
    @discardableResult
    private func publish(_ snapshot: StoreSnapshot) -> Bool {
        published.withLock { current in
            guard snapshot.revision > current.revision else { return false }
            current = snapshot
            return true
        }
    }

    // MARK: Running on the connection

    static let transientPrefix = "transient: "

    /// Runs `work` on the connection's thread. PostgreSQL errors become `unavailable` (transient ones, which the
    /// change loop retries, prefixed with `transientPrefix`); `StoreError`s come back as they are.
    ///
    /// Without a connection (lost, or never made) it reconnects first, unless another call is reconnecting or the
    /// backoff says to wait: then it fails at once with `unavailable`. A failure that leaves the connection broken
    /// drops it, so the next call reconnects.
    private func run<T: Sendable>(
        _ work: @escaping @Sendable (PostgresSession) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        if isClosed.load(ordering: .acquiring) { throw .closed }
        let connection = try await liveConnection()
        let result = await Self.run(on: connection, work)
        if case .failure(.unavailable(let reason)) = result, !(await connection.isConnected) {
            drop(connection, problem: reason)
        } else {
            reachable.store(true, ordering: .releasing)
        }
        return try result.get()
    }

    /// What `liveConnection` does, decided under the lock.
    private enum NextStep: Sendable {
        case use(PostgresConnection)
        case refuse(String)
        case reconnect
    }

    /// The store's connection, reconnecting if it has none (see `run`).
    private func liveConnection() async throws(StoreError) -> PostgresConnection {
        let now = ContinuousClock.now
        let step: NextStep = link.withLock { link in
            if let connection = link.connection { return .use(connection) }
            guard link.loaded, !link.connecting, link.retryAt.map({ now >= $0 }) ?? true else {
                return .refuse(link.problem)
            }
            link.connecting = true
            return .reconnect
        }
        switch step {
        case .use(let connection):
            return connection
        case .refuse(let problem):
            reachable.store(false, ordering: .releasing)
            throw .unavailable(reason: "PostgreSQL is unreachable: \(problem)")
        case .reconnect:
            break
        }
        do throws(PostgresError) {
            let connection = try await PostgresConnection.connect(configuration)
            link.withLock { link in
                link.connection = connection
                link.connecting = false
                link.retryAt = nil
                link.backoff.reset()
            }
            return connection
        } catch {
            let problem = error.description
            link.withLock { link in
                link.connecting = false
                link.retryAt = ContinuousClock.now + link.backoff.next()
                link.problem = problem
            }
            reachable.store(false, ordering: .releasing)
            throw .unavailable(reason: "PostgreSQL is unreachable: \(problem)")
        }
    }

    /// Forgets `connection` (broken), unless another has replaced it meanwhile; the next call reconnects.
    private func drop(_ connection: PostgresConnection, problem: String) {
        link.withLock { link in
            guard link.connection === connection else { return }
            link.connection = nil
            link.problem = problem
        }
        reachable.store(false, ordering: .releasing)
    }

    private static func run<T: Sendable>(
        on connection: PostgresConnection, _ work: @escaping @Sendable (PostgresSession) throws(StoreError) -> T
    ) async -> Swift.Result<T, StoreError> {
        do {
            return try await connection.withSession { session in
                Swift.Result { () throws(StoreError) in try work(session) }
            }
        } catch {
            return .failure(storeError(error))
        }
    }

    /// `body` in a transaction on `session`, with PostgreSQL's errors turned into `StoreError`s.
    fileprivate static func inTransaction<T>(
        _ session: PostgresSession, isolation: IsolationLevel, _ body: (PostgresSession) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        do {
            return try session.transaction(isolation: isolation) { session in try body(session) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw storeError(error)
        }
    }

    static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        let postgres = (error as? PostgresError) ?? .connectionLost("unexpected error: \(error)")
        if let state = postgres.sqlState, state.isTransient {
            return .unavailable(reason: transientPrefix + postgres.description)
        }
        return .unavailable(reason: postgres.description)
    }
}

/// Why `PostgresSkinStore.open` failed.
public enum PostgresStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// PostgreSQL could not be reached (or refused the login). Never holds the password.
    case connection(PostgresError)
    /// The schema could not be brought up to date, or is newer than this binary (`databaseNewer`).
    case schema(MigrationError)
    /// The stored state is damaged, or the cache folder cannot be created.
    case store(StoreError)
    /// `copy(from:into:)` refused a target that already holds other data (at `revision`).
    case targetHoldsOtherData(revision: Int)
    /// The connection goes through a pool in statement mode (PgBouncer's `pool_mode = statement`), which cannot run
    /// the store's transactions.
    case statementPooling(PostgresError)

    public var description: String {
        switch self {
        case .connection(let error): error.description
        case .schema(let error): error.description
        case .store(let error): error.description
        case .targetHoldsOtherData(let revision):
            "the target store already holds other data (revision \(revision)); copy only into an empty database"
        case .statementPooling(let error):
            "the connection goes through a pool in statement mode (PgBouncer pool_mode = statement), which cannot run "
                + "the store's transactions: use pool_mode = transaction or session (\(error))"
        }
    }
}

extension PostgresSkinStore {
    /// What `copy(from:into:)` did.
    public enum CopyOutcome: Sendable, Equatable {
        /// The target was empty and now holds the source's state and audit log, up to `revision`, and `reports`
        /// phones' reports with the secret their devices were hashed under.
        case copied(revision: Int, reports: Int)
        /// The target already held exactly the source's state and audit log (an earlier copy): only the reports it
        /// did not hold yet were copied (`reports` of them; nil when the target's replicas have a report secret of
        /// their own, and no report was copied).
        case alreadyCopied(revision: Int, reports: Int?)
    }

    /// Copies the whole state of `source` (skins, every version and file, releases, kill switches, deleted skins'
    /// numbers, the audit log, phones' reports and their secret) into the PostgreSQL store at `configuration`, in one
    /// transaction, applying the migrations first. Idempotent: a target holding exactly that state already is left
    /// alone, but for reports it does not hold yet (a copy made before reports were copied).
    ///
    /// - Throws: `.targetHoldsOtherData` when the target holds anything else (nothing is written); `.store` when a
    ///   stored file of the source is damaged (`corruptFile`, named) or PostgreSQL fails; `.connection`, `.schema`
    ///   as `open` does.
    public static func copy(
        from source: any SkinStore, into configuration: PostgresConfiguration
    ) async throws(PostgresStoreError) -> CopyOutcome {
        let snapshot = source.snapshot
        let audit: [AuditEntry]
        let reports: ReportExport
        var blobs = [String: [UInt8]]()
        do throws(StoreError) {
            audit = try await source.audit(since: nil, limit: Int.max)
            reports = try await source.reports.exportAll()
            for skin in snapshot.skins.values {
                for version in skin.versions {
                    blobs[version.metadataDigest] = version.metadataBytes
                    for file in version.files where blobs[file.sha256] == nil {
                        blobs[file.sha256] = try await source.fileBytes(
                            skinID: skin.id, version: version.number, path: file.path)
                    }
                }
            }
        } catch {
            throw .store(error)
        }
        let connection = try await migratedConnection(configuration)
        let blobsToWrite = blobs
        let copied = await run(on: connection) {
            session throws(StoreError) -> Swift.Result<CopyOutcome, PostgresStoreError> in
            try inTransaction(session, isolation: .readCommitted) { session throws(StoreError) in
                if try StoreRows.isEmpty(session) {
                    try StoreRows.writeWhole(session, snapshot: snapshot, audit: audit, blobs: blobsToWrite)
                    guard let copied = try PostgresReportLedger.importReports(reports, into: session) else {
                        // Rolls the whole copy back: an empty store whose replicas already hashed devices under
                        // a secret of their own cannot take the source's reports.
                        throw StoreError.corruptFile(
                            path: "livery_report_secret",
                            reason:
                                "the target already has a report secret of its own, so the copied reports would not match"
                        )
                    }
                    return .success(.copied(revision: snapshot.revision, reports: copied))
                }
                let target = try StoreRows.load(session)
                let targetAudit = try StoreRows.audit(session, since: nil, limit: Int.max)
                guard target == snapshot, targetAudit == audit else {
                    return .failure(.targetHoldsOtherData(revision: target.revision))
                }
                let copied = try PostgresReportLedger.importReports(reports, into: session)
                return .success(.alreadyCopied(revision: target.revision, reports: copied))
            }
        }
        await connection.close()
        switch copied {
        case .success(let outcome): return try outcome.get()
        case .failure(let error): throw .store(error)
        }
    }
}
