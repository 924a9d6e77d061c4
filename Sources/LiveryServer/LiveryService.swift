import Foundation
import LiveryHTTP
import Logging
import SkinModel
import SkinPackage
import Synchronization

/// The assembled Livery service: loads skins, keeps the catalog, and owns the routes.
///
/// Startup order: `init` checks folders, `loadCatalog()` validates and packs the skins (invalid skins are logged with
/// their report and left out), then `/readyz` reports ready.
public final class LiveryService: Sendable {
    /// Settings of the service.
    public struct Configuration: Sendable {
        /// Folder whose subfolders are skins. Default `skins`.
        public var skinsDirectory: String = "skins"
        /// Folder for state and the package cache. Default `data`.
        public var dataDirectory: String = "data"
        /// Limits applied when validating skins.
        public var validationLimits = ValidationLimits()
        /// Most package builds at once. Default 2.
        public var maxParallelBuilds: Int = 2
        public var client = ClientAPI.Configuration()

        public init() {}
    }

    public let configuration: Configuration
    public let client: ClientAPI
    private let logger: Logger
    private let ready = Atomic<Bool>(false)
    private let draining = Atomic<Bool>(false)

    public init(
        configuration: Configuration, logger: Logger, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(PackageCacheError) {
        self.configuration = configuration
        self.logger = logger
        let cache = try PackageCache(
            directory: configuration.dataDirectory + "/packages", maxParallelBuilds: configuration.maxParallelBuilds,
            logger: logger)
        self.client = ClientAPI(configuration: configuration.client, cache: cache, logger: logger, clock: clock)
    }

    /// Validates and packs every skin in the skins folder and publishes the catalog; marks the service ready.
    public func loadCatalog() async throws {
        let loaded = try SkinDirectoryLoader(limits: configuration.validationLimits)
            .load(from: configuration.skinsDirectory)
        for rejection in loaded.rejected {
            var text = rejection.reason
            if let report = rejection.report { text += "\n" + report.renderedText(name: rejection.folder) }
            logger.error(
                "skin not served", metadata: ["skin.folder": "\(rejection.folder)", "reason": "\(text)"])
        }
        let inputs = loaded.skins.compactMap { packager -> ReleaseInput? in
            guard let release = packager.skin.manifest.release else {
                logger.info("skin has no release; stored but not served", metadata: ["skin.id": "\(packager.skin.manifest.id)"])
                return nil
            }
            return ReleaseInput(packager: packager, release: release)
        }
        let state = try await CatalogBuilder(cache: client.cache).build(inputs, killSwitch: client.current.catalog.killSwitch)
        client.publish(state)
        ready.store(true, ordering: .releasing)
        logger.info(
            "catalog loaded",
            metadata: ["skins.served": "\(inputs.count)", "skins.rejected": "\(loaded.rejected.count)",
                       "packages": "\(state.catalog.packages.count)"])
    }

    /// Marks the service as draining: `/readyz` answers 503 so load balancers stop sending traffic.
    public func beginDraining() { draining.store(true, ordering: .releasing) }

    /// Adds `/healthz`, `/readyz` and the client API to `router`.
    ///
    /// `/healthz` answers 200 while the process runs. `/readyz` answers 200 `{"status":"ready"}` once the catalog is
    /// loaded and while the data folder is writable, else 503 with `loading`, `draining` (after `beginDraining()`)
    /// or `data-dir-not-writable`.
    public func register(on router: Router) {
        router.get("/healthz") { _ in Self.status("ok", .ok) }
        router.get("/readyz") { [self] _ in
            if draining.load(ordering: .acquiring) { return Self.status("draining", .serviceUnavailable) }
            guard ready.load(ordering: .acquiring) else { return Self.status("loading", .serviceUnavailable) }
            // One access(2) call: no disk write on a probe path, yet a read-only remount or lost permission shows.
            guard access(configuration.dataDirectory, W_OK) == 0 else {
                return Self.status("data-dir-not-writable", .serviceUnavailable)
            }
            return Self.status("ready", .ok)
        }
        client.register(on: router)
    }

    private static func status(_ text: String, _ status: HTTPStatus) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: status, headers: headers, body: .bytes(Array(#"{"status":"\#(text)"}"#.utf8)))
    }
}
