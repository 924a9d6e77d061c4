import Foundation
import LiveryHTTP
import LiveryJSON
import Logging
import SkinModel
import SkinPackage
import SkinServing
import SkinStore
import Synchronization
import SystemCalls

/// The assembled Livery service: the durable store, the catalog built from it, and the routes.
///
/// The store is the source of truth: by default a `FileSkinStore` under `<data-dir>/store`, or one given to `init`
/// (a `SharedSkinStore` such as PostgreSQL, shared by several replicas). Startup: `init` opens the package cache, the store
/// (one process per data directory) and the tokens file; `loadCatalog()` imports the skins folder into an empty
/// store (see `SkinImporter`), builds the catalog from the store and publishes it, then `/readyz` reports ready.
/// After that the skins folder is not read again; every change goes through the admin API.
public final class LiveryService: Sendable {
    /// Settings of the service.
    public struct Configuration: Sendable {
        /// Folder whose subfolders are imported into an empty store on first start. Default `skins`.
        public var skinsDirectory: String = "skins"
        /// Folder for the store (`store/`), the package cache (`packages/`) and the import marker. Default `data`.
        public var dataDirectory: String = "data"
        /// Limits applied when validating skins (imports, uploads, stored versions). Default `ValidationLimits()`.
        public var validationLimits = ValidationLimits()
        /// Most package builds at once. Default 2.
        public var maxParallelBuilds: Int = 2
        /// The client API's settings.
        public var client = ClientAPI.Configuration()
        /// The admin API's settings; without a tokens file it is disabled.
        public var admin = AdminAPI.Configuration()
        /// Rate limits of phones' reports (`POST /api/v1/reports`).
        public var reports = ReportIntake.Configuration()
        /// The guard's webhook, called by the replica whose trip committed; nil for none. Default nil.
        public var notifier: GuardNotifier?
        /// How long phones' reports are kept after the store recorded them (at least 30 days, the longest guard
        /// window). Default 90 days.
        public var reportRetention: Duration = .seconds(90 * 86_400)

        public init() {}
    }

    public let configuration: Configuration
    public let client: ClientAPI
    /// The durable store: a `FileSkinStore` under `<data-dir>/store` unless `init` was given another. The admin
    /// API and the catalog see it only in its `SkinStore` role.
    public let store: any SkinStore
    /// The store this service opened (and closes), nil when it was given one.
    private let ownStore: FileSkinStore?
    /// The file store this service opened under `<data-dir>/store`, nil when `init` was given a store.
    public var fileStore: FileSkinStore? { ownStore }
    /// The admin API, or nil when no tokens file is configured.
    public let admin: AdminAPI?
    /// Package files kept open for downloads; give it to the HTTP server (`HTTPServer.Configuration.openFiles`).
    /// The package cache invalidates the files it removes or rebuilds.
    public let openFiles: OpenFileCache
    let catalog: CatalogPublisher
    /// Phones' reports into the store's ledger.
    public let reports: ReportIntake
    let reportsAPI: ReportsAPI
    /// The changes the service makes itself (the guard's trips), apart from any admin caller.
    private let guardChanges: Changes
    /// Checks the guards of the versions phones report failures of, in the background.
    private let guardWatch: GuardWatch
    /// Removes reports older than `Configuration.reportRetention`: hourly once the catalog is loaded.
    public let reportRetention: ReportRetention
    private let retentionTask = Mutex<Task<Void, Never>?>(nil)
    private let logger: Logger
    private let clock: @Sendable () -> Date
    /// Writes to the data folder in the background, at most once a second; `/readyz` and admin writes read its last
    /// result.
    public let writeCheck: DataDirectoryWriteCheck
    private let ready = Atomic<Bool>(false)
    private let draining = Atomic<Bool>(false)

    /// Opens the package cache, the store (unless `store` is given) and the tokens file.
    ///
    /// - Parameter store: the store to serve from, which its owner opens and closes; nil opens a `FileSkinStore`
    ///   under `<data-dir>/store` (one process per data directory), closed by `close()`.
    /// - Throws: `LiveryServiceError` naming what could not be opened (and the flag that configures it).
    public init(
        configuration: Configuration, store given: (any SkinStore)? = nil, logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(LiveryServiceError) {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        let writeCheck = DataDirectoryWriteCheck(directory: configuration.dataDirectory, logger: logger)
        self.writeCheck = writeCheck
        let cache: PackageCache
        let openFiles = OpenFileCache()
        self.openFiles = openFiles
        do throws(PackageCacheError) {
            cache = try PackageCache(
                directory: configuration.dataDirectory + "/packages",
                maxParallelBuilds: configuration.maxParallelBuilds,
                logger: logger, fileChanged: { openFiles.invalidate($0) })
        } catch {
            throw .packageCache(error)
        }
        let store: any SkinStore
        let ownStore: FileSkinStore?
        if let given {
            (store, ownStore) = (given, nil)
        } else {
            do throws(StoreError) {
                try Self.checkStoreNotLost(dataDirectory: configuration.dataDirectory)
                let opened = try FileSkinStore(directory: configuration.dataDirectory + "/store", clock: clock)
                (store, ownStore) = (opened, opened)
            } catch {
                throw .store(error)
            }
        }
        var tokens: TokenStore?
        if let path = configuration.admin.tokensFile {
            do throws(TokenFileError) {
                tokens = try TokenStore(
                    path: path, checkInterval: configuration.admin.tokenCheckInterval, logger: logger)
            } catch {
                ownStore?.close()
                throw .tokens(error)
            }
        } else {
            logger.notice(
                "admin API disabled: no tokens file (--tokens-file / LIVERY_TOKENS_FILE); /admin/v1 answers 404")
        }
        let client = ClientAPI(configuration: configuration.client, cache: cache, logger: logger, clock: clock)
        let reports = ReportIntake(configuration: configuration.reports, ledger: store.reports)
        // Signs are learnt before polls can hand them out, so a phone reporting at once is understood.
        let catalog = CatalogPublisher(
            store: store, cache: cache, limits: configuration.validationLimits, logger: logger,
            publish: { catalog in
                reports.learn(catalog)
                client.publish(catalog)
            })
        let guardChanges = Changes(
            store: store, catalog: catalog, limits: configuration.validationLimits,
            archiveLimits: configuration.admin.archiveLimits, maxConcurrentUploads: 1,
            dataDirectory: configuration.dataDirectory, logger: logger, clock: clock)
        let notifier = configuration.notifier
        let guardWatch = GuardWatch(store: store, clock: clock, logger: logger) { skinID, version, figures in
            do throws(ChangeError) {
                _ = try await Self.tripGuard(
                    skinID: skinID, version: version, figures: figures, changes: guardChanges, notifier: notifier)
            } catch {
                logger.error(
                    "a release's guard could not trip; the next failure report decides again",
                    metadata: ["skin.id": "\(skinID)", "skin.version": "\(version)", "error": "\(error)"])
            }
        }
        self.guardChanges = guardChanges
        self.guardWatch = guardWatch
        self.reportRetention = ReportRetention(
            ledger: store.reports, keep: configuration.reportRetention, clock: clock, logger: logger)
        self.reports = reports
        // After a batch is durable, the versions it counted failures of are checked against their guards in the
        // background (GuardWatch), never on the report's or a poll's path.
        self.reportsAPI = ReportsAPI(
            intake: reports, logger: logger, isReady: { client.isLoaded },
            recorded: { receipt in guardWatch.reportsCounted(receipt.counted) })
        self.store = store
        self.ownStore = ownStore
        self.client = client
        self.catalog = catalog
        self.admin = tokens.map {
            AdminAPI(
                configuration: configuration.admin,
                changes: Changes(
                    store: store, catalog: catalog, limits: configuration.validationLimits,
                    archiveLimits: configuration.admin.archiveLimits,
                    maxConcurrentUploads: configuration.admin.maxConcurrentUploads,
                    dataDirectory: configuration.dataDirectory, logger: logger, clock: clock),
                client: client, tokens: $0, dataDirectory: configuration.dataDirectory, logger: logger, clock: clock,
                writeFault: { writeCheck.fault })
        }
        writeCheck.start()
    }

    /// Refuses a data folder whose import marker says the store was seeded while the store has no state record
    /// (the store folder was removed, or mounted from the wrong volume): starting would serve no skins and
    /// silently begin a new history. An operator restores the store, or removes the marker to seed a new one.
    static func checkStoreNotLost(dataDirectory: String) throws(StoreError) {
        let marker = dataDirectory + "/" + SkinImporter.markerName
        let store = dataDirectory + "/store"
        guard FileManager.default.fileExists(atPath: marker),
            !FileManager.default.fileExists(atPath: store + "/state.json")
        else { return }
        throw .corruptFile(
            path: store,
            reason: "the store is missing (no state.json) although \(marker) says it was seeded: restore the store "
                + "from a backup, or remove \(marker) to start an empty store seeded from the skins folder")
    }

    /// Imports the skins folder if the store still needs it, builds the catalog from the store, publishes it,
    /// and marks the service ready. Skins that cannot be served are logged and left out.
    ///
    /// A cancelled task stops between two skins of the import or of the catalog build: the import resumes and the
    /// packages are built at the next start.
    ///
    /// - Throws: `LiveryServiceError.store` if the import cannot write to the store, `.store(.unavailable)` if
    ///   the store could not be read while building the catalog, `.stopped` if the task was cancelled first (the
    ///   service stays not ready).
    public func loadCatalog() async throws(LiveryServiceError) {
        let importer = SkinImporter(
            store: store, skinsDirectory: configuration.skinsDirectory, dataDirectory: configuration.dataDirectory,
            limits: configuration.validationLimits, logger: logger)
        let summary: SkinImporter.Summary
        do throws(StoreError) {
            if let shared = store as? any SharedSkinStore {
                // Replicas starting together on an empty shared store: one imports, the others then find it done.
                summary = try await shared.exclusively { () throws(StoreError) in try await importer.importIfPending() }
            } else {
                summary = try await importer.importIfPending()
            }
        } catch {
            throw .store(error)
        }
        if summary.ran && !summary.stopped {
            logger.info(
                "skins folder imported into the store",
                metadata: [
                    "skins.imported": "\(summary.imported.count)", "skins.rejected": "\(summary.rejected.count)",
                    "skins.already_stored": "\(summary.alreadyStored.count)"
                ])
        }
        // Told to stop while starting: the rest of the import and the package builds wait for the next start.
        if summary.stopped || Task.isCancelled { throw .stopped }
        guard let revision = await catalog.publishLatest(stopsWhenCancelled: true) else {
            if Task.isCancelled { throw .stopped }
            // Not ready with a catalog missing skins: the caller starts over once the store answers.
            throw .store(.unavailable(reason: "the store could not be read while building the catalog"))
        }
        // Logged before the service turns ready, so that whoever sees /readyz answer 200 finds the line written.
        let catalog = client.current
        logger.info(
            "catalog loaded",
            metadata: [
                "store.revision": "\(revision)", "skins.stored": "\(store.snapshot.skins.count)",
                "skins.served": "\(catalog.releases.values.reduce(0) { $0 + $1.count })",
                "packages": "\(catalog.packages.count)"
            ])
        ready.store(true, ordering: .releasing)
        retentionTask.withLock { task in
            if task == nil { task = reportRetention.start() }
        }
    }

    /// Trips the guard of `skinID`'s release when `figures` (of `version`, within its guard's window) say so
    /// (`Changes.tripGuardIfNeeded`: one conditional store change, so of all replicas deciding on the same figures
    /// one commits) and, on the replica whose trip committed, calls the webhook (`Configuration.notifier`, with its
    /// retries) before returning. What report ingestion calls after a batch is durable, off the request's path.
    ///
    /// - Returns: the trip this replica committed, or nil.
    @discardableResult
    public func tripGuardIfNeeded(
        skinID: String, version: Int, figures: VersionFigures
    ) async throws(ChangeError) -> GuardTrip? {
        try await Self.tripGuard(
            skinID: skinID, version: version, figures: figures, changes: guardChanges, notifier: configuration.notifier)
    }

    @discardableResult
    private static func tripGuard(
        skinID: String, version: Int, figures: VersionFigures, changes: Changes, notifier: GuardNotifier?
    ) async throws(ChangeError) -> GuardTrip? {
        guard let trip = try await changes.tripGuardIfNeeded(skinID: skinID, version: version, figures: figures) else {
            return nil
        }
        if let notifier { await notifier.notify(trip) }
        return trip
    }

    /// Returns once the guard checks that reports started have ended (tests; a draining server).
    public func waitForGuardChecks() async { await guardWatch.waitUntilIdle() }

    /// Serves the store's snapshot: its kill switches at once (applied to the catalog already served, whatever is
    /// being built), then the catalog rebuilt from it in the background (a release made elsewhere may need package
    /// builds), published if still newer than the catalog served; no rebuild when the catalog served is already of
    /// that revision (a change this replica made publishes its own catalog; kill switches alone are applied to the
    /// catalog served). Returns without waiting for that build, so the caller keeps following the store meanwhile.
    /// Call it when the store learned of changes made elsewhere (another replica on a shared store), and again while
    /// `catalogNeedsRetry`.
    public func publishStoreChanges() async {
        let snapshot = store.snapshot
        catalog.applyKillSwitches(of: snapshot)
        // This replica's own changes are published by the change itself, kill switches alone by applying them: no
        // second build for those.
        catalog.publishLatestInBackground(ifBehind: snapshot.revision)
    }

    /// Returns once the catalog rebuilds started in the background (`publishStoreChanges`, kill switches) have
    /// ended, or after `limit`: the server calls it after it stopped serving and following, before it exits.
    public func waitForCatalogBuilds(upTo limit: Duration) async {
        await catalog.waitForBackgroundBuilds(upTo: limit)
    }

    /// Whether the last catalog build failed because the store could not be reached (the previous catalog is still
    /// served): `publishStoreChanges()` should be called again even if the store learns of no new change.
    public var catalogNeedsRetry: Bool { catalog.needsRetry }

    /// Whether `loadCatalog()` has finished.
    public var isReady: Bool { ready.load(ordering: .acquiring) }

    /// Re-reads the tokens file now (the server calls it on SIGHUP). Does nothing without a tokens file.
    public func reloadTokens(reason: String = "SIGHUP") {
        admin?.tokens.reload(reason: reason)
    }

    /// Marks the service as draining: `/readyz` answers 503 so load balancers stop sending traffic.
    public func beginDraining() { draining.store(true, ordering: .releasing) }

    /// Closes the store (releasing the data directory for another process); reads keep working on the last
    /// snapshot, changes fail with 503. Call it after the HTTP server has stopped.
    /// A store given to `init` is left to its owner.
    public func close() {
        writeCheck.stop()
        retentionTask.withLock { $0?.cancel() }
        ownStore?.close()
    }

    /// Adds `/healthz`, `/readyz`, the client API and (with a tokens file) the admin API and its console
    /// (`/admin/`) to `router`.
    ///
    /// `/healthz` answers 200 while the process runs. `/readyz` answers 200 `{"status":"ready"}` once the catalog is
    /// loaded and while the data folder takes writes (`writeCheck`), else 503 with `loading`, `draining` (after `beginDraining()`)
    /// or `data-dir-not-writable`. With a shared store that does not answer, the body adds `"store":"unreachable"`
    /// (still 200 once loaded: the replica serves what it has, and taking every replica out of the load balancer
    /// would turn a database outage into a total one). When versions are damaged in the store (`damaged`), the
    /// body adds `"damaged":[{"skin","version","reason"}]`, still 200: damage stays with its version, and the replica
    /// serves everything else.
    public func register(on router: Router) {
        let shared = store as? any SharedSkinStore
        router.on(.get, "/healthz", .sync { _ in Self.status("ok", .ok) })
        router.on(
            .get, "/readyz",
            .sync { [self] _ in
                let store = shared.map { $0.isReachable ? "reachable" : "unreachable" }
                if draining.load(ordering: .acquiring) {
                    return Self.status("draining", .serviceUnavailable, store: store)
                }
                guard ready.load(ordering: .acquiring) else {
                    return Self.status("loading", .serviceUnavailable, store: store)
                }
                // No disk write on the probe path: the background write check's last result (an ext4 volume forced
                // read-only by errors still passes access(2)), and one access(2) call for a lost permission at once.
                guard writeCheck.isWritable, (try? SystemPath.checkAccess(configuration.dataDirectory, W_OK)) != nil
                else {
                    return Self.status("data-dir-not-writable", .serviceUnavailable, store: store)
                }
                return Self.status("ready", .ok, store: store, damaged: catalog.damaged)
            })
        client.register(on: router)
        reportsAPI.register(on: router)
        if let admin {
            admin.register(on: router) { [self] in ready.load(ordering: .acquiring) }
            AdminConsole.register(on: router)
        }
    }

    /// The damaged versions of the store as of the last catalog built (see `CatalogPublisher.damaged`).
    public var damaged: [DamagedVersion] { catalog.damaged }

    /// `{"status":text}`, with `"store":store` when given (a shared store's reachability) and `"damaged"` when
    /// versions are damaged.
    private static func status(
        _ text: String, _ status: HTTPStatus, store: String? = nil, damaged: [DamagedVersion] = []
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        let storePart = store.map { #","store":"\#($0)""# } ?? ""
        var body = Array(#"{"status":"\#(text)"\#(storePart)"#.utf8)
        if !damaged.isEmpty {
            body.append(contentsOf: #","damaged":"#.utf8)
            body.append(
                contentsOf: JSONWriter.array(
                    damaged.map { damage in
                        JSONWriter.object([
                            ("skin", JSONWriter.string(damage.skinID)), ("version", JSONWriter.number(damage.version)),
                            ("reason", JSONWriter.string(damage.reason))
                        ])
                    }))
        }
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: headers, body: .bytes(body))
    }
}

/// Why the service could not start.
public enum LiveryServiceError: Error, CustomStringConvertible {
    /// The package cache folder cannot be used.
    case packageCache(PackageCacheError)
    /// The store cannot be opened or written.
    case store(StoreError)
    /// The tokens file cannot be read.
    case tokens(TokenFileError)
    /// The catalog load was cancelled (the server is stopping) before it ended.
    case stopped

    public var description: String {
        switch self {
        case .packageCache(let error): "\(error) (--data-dir / LIVERY_DATA_DIR)"
        case .store(let error): "\(error) (--data-dir / LIVERY_DATA_DIR)"
        case .tokens(let error): error.description
        case .stopped: "stopped before the catalog was loaded"
        }
    }
}
