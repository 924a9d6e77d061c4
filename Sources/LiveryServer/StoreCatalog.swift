import Foundation
import Logging
import SkinModel
import SkinPackage
import SkinStore
import Synchronization

/// Builds the client API's catalog from store snapshots: every released skin becomes a `ReleaseInput` (its
/// stored version, validated and packed from the store's blobs, with the release plan parsed from the stored
/// release document), and the store's kill switches become the catalog's. Each catalog built is handed to
/// `publish` (the client API's, in the server), so building knows nothing of who serves it.
///
/// Validating and hashing a version costs a read of its files, so packagers are cached by version digest
/// (versions never change); package files are cached by `PackageCache`. Rebuilding the catalog after a change
/// that touches no new version therefore does no validation and builds no package.
final class StoreCatalog: Sendable {
    let store: any SkinStore
    let cache: PackageCache
    let limits: ValidationLimits
    private let publish: @Sendable (CatalogState) -> Void
    private let logger: Logger
    private let packagers = Mutex<[String: SkinPackager]>([:])
    /// The store revision of the catalog last published (-1 before the first).
    private let publishedRevision = Mutex(-1)

    /// - Parameter publish: receives each catalog built, in revision order, never concurrently with itself.
    init(
        store: any SkinStore, cache: PackageCache, limits: ValidationLimits, logger: Logger,
        publish: @escaping @Sendable (CatalogState) -> Void
    ) {
        self.store = store
        self.cache = cache
        self.limits = limits
        self.publish = publish
        self.logger = logger
    }

    /// Builds the catalog of the store's current snapshot and publishes it, unless a catalog of
    /// a later revision was published meanwhile (so publishes never go back in time, whatever their order of
    /// completion). Skins that cannot be served are logged and left out.
    ///
    /// - Returns: the revision now published.
    @discardableResult
    func publishLatest() async -> Int {
        let snapshot = store.snapshot
        let (state, problems) = await build(snapshot)
        for problem in problems {
            logger.error(
                "released skin not served",
                metadata: ["skin.id": "\(problem.skinID)", "skin.version": "\(problem.version)", "reason": "\(problem.error)"])
        }
        return publishedRevision.withLock { published in
            guard snapshot.revision >= published else { return published }
            // Publishing under this lock keeps the order of publishes the order of revisions.
            publish(state)
            published = snapshot.revision
            return published
        }
    }

    /// The release plan a stored release document holds (the canonical `ReleasePlan.jsonValue` the admin API
    /// and the importer write), or why it does not parse.
    static func plan(of release: Release) throws(ServingError) -> ReleasePlan {
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(release.document)
        } catch {
            throw .invalidRelease("the stored release document is not JSON: \(error)")
        }
        let parsed = ReleasePlan.parse(value, file: nil, pointer: .root, allowingExtraKeys: ["version"])
        guard let plan = parsed.value else {
            throw .invalidRelease(parsed.errors.map(\.message).joined(separator: " "))
        }
        return plan
    }

    /// The packager of `version`, validating it (once per version) from its blobs on a thread of its own.
    func packager(for version: SkinVersion) async throws(ServingError) -> SkinPackager {
        if let known = packagers.withLock({ $0[version.digest] }) { return known }
        let source: StoredSkinSource
        do throws(StoreError) {
            source = try await StoredSkinSource(version: version, store: store)
        } catch {
            throw .unreadable(error.description)
        }
        let limits = limits
        let packager = try await BlockingWorkRunner.onOwnThread(name: "livery.validate") { () throws(ServingError) -> SkinPackager in
            let report = SkinValidator(limits: limits).validate(source)
            guard let skin = report.skin else { throw .invalidVersion(report) }
            do throws(SkinPackageError) {
                return try SkinPackager(skin: skin, source: source)
            } catch {
                throw .unreadable(error.description)
            }
        }
        packagers.withLock { $0[version.digest] = packager }
        return packager
    }

    /// Makes sure every package of `version` released with `plan` is built, so a catalog serving it can be
    /// published without building anything. Called before a release is committed.
    func prepare(version: SkinVersion, plan: ReleasePlan) async throws(ServingError) {
        let packager = try await packager(for: version)
        do {
            _ = try await CatalogBuilder(cache: cache).build([ReleaseInput(packager: packager, release: plan)], killSwitch: KillSwitch())
        } catch {
            throw .packaging(String(describing: error))
        }
    }

    /// A released skin that could not be served, with why.
    struct Problem: Sendable {
        let skinID: String
        let version: Int
        let error: ServingError
    }

    /// The catalog for `snapshot`. A released skin whose version no longer validates or whose packages cannot
    /// be built is left out and reported (the rest are served); the admin API builds a skin's packages before
    /// committing its release, so this only happens to data damaged on disk or to limits lowered since.
    func build(_ snapshot: StoreSnapshot) async -> (state: CatalogState, problems: [Problem]) {
        var released: [ReleasedSkin] = []
        var origins: [String: PackageOrigin] = [:]
        var problems: [Problem] = []
        for id in snapshot.skinIDs {
            guard let skin = snapshot.skins[id], let release = skin.release else { continue }
            do throws(ServingError) {
                guard let version = skin.version(release.version) else {
                    throw .invalidRelease("version \(release.version) does not exist")
                }
                let plan = try Self.plan(of: release)
                let packager = try await packager(for: version)
                let part: CatalogState
                do {
                    part = try await CatalogBuilder(cache: cache).build(
                        [ReleaseInput(packager: packager, release: plan)], killSwitch: KillSwitch())
                } catch {
                    throw .packaging(String(describing: error))
                }
                released.append(contentsOf: part.catalog.allReleases)
                origins.merge(part.origins) { first, _ in first }
            } catch {
                problems.append(Problem(skinID: id, version: release.version, error: error))
            }
        }
        let catalog = Catalog(releases: released, killSwitch: Self.killSwitch(snapshot.killSwitches))
        return (CatalogState(catalog: catalog, origins: origins), problems)
    }

    /// The catalog's kill switch for the store's switches: enabled ones only.
    static func killSwitch(_ switches: KillSwitches) -> KillSwitch {
        KillSwitch(
            global: switches.global?.enabled ?? false,
            apps: Set(switches.apps.filter { $0.value.enabled }.keys))
    }
}

/// Why a stored version cannot be served.
enum ServingError: Error, Sendable, CustomStringConvertible {
    /// The version does not pass validation (limits may have been lowered since it was stored).
    case invalidVersion(ValidationReport)
    /// A stored file could not be read.
    case unreadable(String)
    /// The stored release document does not parse.
    case invalidRelease(String)
    /// A package could not be built.
    case packaging(String)

    var description: String {
        switch self {
        case .invalidVersion(let report):
            "the stored version is not a valid skin: " + report.errors.map(\.message).joined(separator: " ")
        case .unreadable(let reason): "a stored file cannot be read: \(reason)"
        case .invalidRelease(let reason): "the release is unusable: \(reason)"
        case .packaging(let reason): "packages cannot be built: \(reason)"
        }
    }
}
