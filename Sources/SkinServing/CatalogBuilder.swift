import Foundation
import LiveryJSON
import SkinModel
import SkinPackage
import SkinStore
import Synchronization

/// Builds catalogs from store snapshots: every released skin's stored version is validated and packed from the
/// store's blobs, with the release's plan (parsed once, when the store loaded it), and the store's kill switches
/// become the catalog's. Every package is built (or reused) before the catalog is returned, so a client is never
/// told about a package that cannot be downloaded. Publishing is `CatalogPublisher`'s job.
///
/// Validating and hashing a version costs a read of its files, so packagers are cached by version digest
/// (versions never change); package files are cached by `PackageCache`. Rebuilding the catalog after a change
/// that touches no new version therefore does no validation and builds no package.
public final class CatalogBuilder: Sendable {
    public let store: any SkinStore
    public let cache: PackageCache
    public let limits: ValidationLimits
    private let packagers = Mutex<[String: SkinPackager]>([:])
    /// Preview images by packager (packagers are kept in `packagers` for good, one per version, so an identity
    /// names one version).
    private let previewCache = Mutex<[ObjectIdentifier: SkinPreviews?]>([:])

    public init(store: any SkinStore, cache: PackageCache, limits: ValidationLimits) {
        self.store = store
        self.cache = cache
        self.limits = limits
    }

    /// The plan of `release` as of `now` (a recurring plan's window is the occurrence in force at `now`), or why
    /// there is none: the stored document is damaged, or a recurring plan has no occurrence ahead.
    public static func plan(of release: Release, now: Date = Date()) throws(ServingError) -> ReleasePlan {
        guard let plan = release.plan else { throw .invalidRelease(release.damage ?? "the release has no plan") }
        guard let resolved = plan.resolved(at: now) else {
            throw .invalidRelease("every occurrence of the release ahead of now is skipped")
        }
        return resolved
    }

    /// The packager of `version`, validating it (once per version) from its blobs on a thread of its own.
    ///
    /// - Throws: `.damaged` for a version the store found damaged, or one whose stored files do not match their
    ///   content address; `.storeUnavailable`, `.unreadable`, `.invalidVersion`.
    public func packager(for version: SkinVersion) async throws(ServingError) -> SkinPackager {
        if let damage = version.damage {
            throw .damaged(DamagedVersion(skinID: version.skinID, version: version.number, reason: damage))
        }
        if let known = packagers.withLock({ $0[version.digest] }) { return known }
        let source: StoredSkinSource
        do throws(StoreError) {
            source = try await StoredSkinSource(version: version, store: store)
        } catch .unavailable(let reason) {
            throw .storeUnavailable(reason)
        } catch .corruptFile(let path, let reason) {
            throw .damaged(
                DamagedVersion(skinID: version.skinID, version: version.number, reason: "\(path): \(reason)"))
        } catch {
            throw .unreadable(error.description)
        }
        let limits = limits
        let packager = try await BlockingWorkRunner.onOwnThread(name: "livery.validate") {
            () throws(ServingError) -> SkinPackager in
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

    /// The preview images of `packager`'s skin, read once per version.
    private func previews(of packager: SkinPackager) -> SkinPreviews? {
        let key = ObjectIdentifier(packager)
        if let known = previewCache.withLock({ $0[key] }) { return known }
        let read = SkinPreviews.read(packager.skin.manifest, from: packager.source)
        previewCache.withLock { $0[key] = read }
        return read
    }

    /// Makes sure every package of `version` released with `plan` is built, so a catalog serving it can be
    /// published without building anything. Called before a release is committed.
    public func prepare(version: SkinVersion, plan: ReleasePlan) async throws(ServingError) {
        _ = try await release(packager(for: version), plan: plan, version: version)
    }

    /// `packager`'s skin released with `plan`, with a package for every variant (each reused or built), and how
    /// each package was made.
    private func release(
        _ packager: SkinPackager, plan: ReleasePlan, version: SkinVersion
    ) async throws(ServingError) -> (skin: ReleasedSkin, origins: [String: PackageOrigin]) {
        let builtFrom = PackageCache.BuiltFrom(skinID: version.skinID, version: version.number)
        var packages: [PackageVariant: PackageRecord] = [:]
        var origins: [String: PackageOrigin] = [:]
        do {
            for variant in PackageVariant.all + PackageVariant.bothAppearances {
                let sign = packager.sign(for: variant)
                packages[variant] = try await cache.record(
                    sign: sign, variant: variant, packager: packager, version: builtFrom)
                origins[sign] = PackageOrigin(packager: packager, variant: variant)
            }
        } catch {
            throw .packaging(String(describing: error))
        }
        let manifest = packager.skin.manifest
        let skin = ReleasedSkin(
            skinID: manifest.id, app: manifest.app, release: plan, packages: packages, title: manifest.title,
            description: manifest.description, previews: previews(of: packager), version: version.number)
        return (skin, origins)
    }

    /// How many occurrences of a recurring release a catalog serves: enough years that a server left without any
    /// change (which rebuilds the catalog) still serves the rule for a decade.
    public static let servedOccurrences = 10

    /// A released skin that could not be served, with why.
    public struct Problem: Sendable {
        public let skinID: String
        public let version: Int
        public let error: ServingError
    }

    /// The catalog for `snapshot`. A released skin whose version no longer validates or whose packages cannot
    /// be built is left out and reported (the rest are served); the admin API builds a skin's packages before
    /// committing its release, so this only happens to data damaged on disk or to limits lowered since.
    ///
    /// - Throws: `StoreError.unavailable` when the store cannot be reached for a skin's files: a transient fault
    ///   fails the whole build (a catalog without that skin would tell its clients "no skin"); try again later.
    ///
    /// A recurring release is resolved here, once per build: it becomes one released skin per occurrence in force
    /// from `now` on (``servedOccurrences`` of them), each with concrete instants, so the poll, `next`, priorities,
    /// previews, themes and the catalog document read windows as they always did.
    ///
    /// - Returns: nil only when `stopsWhenCancelled` and the task is cancelled, which is checked before each released
    ///   skin's packages: a server told to stop during its first load does not wait for every build (the packages
    ///   built so far stay cached). A build that must end in a catalog (after a committed change) leaves it false.
    public func build(
        _ snapshot: StoreSnapshot, now: Date = Date(), stopsWhenCancelled: Bool = false
    ) async throws(StoreError) -> (catalog: Catalog, problems: [Problem])? {
        var released: [ReleasedSkin] = []
        var origins: [String: PackageOrigin] = [:]
        var problems: [Problem] = []
        for id in snapshot.skinIDs {
            guard let skin = snapshot.skins[id], let release = skin.release else { continue }
            if stopsWhenCancelled && Task.isCancelled { return nil }
            do throws(ServingError) {
                guard let releasedVersion = skin.version(release.version) else {
                    throw .invalidRelease("version \(release.version) does not exist")
                }
                let (version, plan) = Self.served(releasedVersion, plan: try Self.plan(of: release, now: now), of: skin)
                let part = try await self.release(packager(for: version), plan: plan, version: version)
                if plan.recurrence == nil {
                    released.append(part.skin)
                } else {
                    released += plan.concreteWindows(from: now, count: Self.servedOccurrences).map(
                        part.skin.with(release:))
                }
                origins.merge(part.origins) { first, _ in first }
            } catch .storeUnavailable(let reason) {
                throw StoreError.unavailable(reason: reason)
            } catch {
                problems.append(Problem(skinID: id, version: release.version, error: error))
            }
        }
        let catalog = Catalog(
            releases: released, killSwitch: Self.killSwitch(snapshot.killSwitches), origins: origins,
            revision: snapshot.revision)
        return (catalog, problems)
    }

    /// What a release serves: `version` with `plan`, unless its guard paused it (`plan.paused`). A `pause` serves
    /// rollout 0 (`ReleasePlan.served`); a `rollback` serves the skin's previous version (the highest below the
    /// released one, as `POST /rollback` chooses) with the release's settings and no pause, or rollout 0 when
    /// there is none or it is damaged.
    public static func served(
        _ version: SkinVersion, plan: ReleasePlan, of skin: SkinState
    ) -> (version: SkinVersion, plan: ReleasePlan) {
        guard let pause = plan.paused else { return (version, plan) }
        if pause.action == .rollback,
            let previous = skin.versions.last(where: { $0.number < version.number }), previous.damage == nil
        {
            var restored = plan
            restored.paused = nil
            return (previous, restored)
        }
        return (version, plan.served)
    }

    /// The catalog's kill switch for the store's switches: enabled ones only.
    public static func killSwitch(_ switches: KillSwitches) -> KillSwitch {
        KillSwitch(
            global: switches.global?.enabled ?? false,
            apps: Set(switches.apps.filter { $0.value.enabled }.keys))
    }
}

/// Why a stored version cannot be served.
public enum ServingError: Error, Sendable, CustomStringConvertible {
    /// The version does not pass validation (limits may have been lowered since it was stored).
    case invalidVersion(ValidationReport)
    /// A stored file could not be read.
    case unreadable(String)
    /// The release has no plan in force: its stored document is damaged, or a recurring plan has no occurrence
    /// ahead.
    case invalidRelease(String)
    /// A package could not be built.
    case packaging(String)
    /// The store could not be reached for a stored file (a transient fault, not a property of the version).
    case storeUnavailable(String)
    /// The version is damaged in the store: found so when the store loaded it, or a stored file of it does not
    /// match its content address.
    case damaged(DamagedVersion)

    public var description: String {
        switch self {
        case .invalidVersion(let report):
            "the stored version is not a valid skin: " + report.errors.map(\.message).joined(separator: " ")
        case .unreadable(let reason): "a stored file cannot be read: \(reason)"
        case .invalidRelease(let reason): "the release is unusable: \(reason)"
        case .packaging(let reason): "packages cannot be built: \(reason)"
        case .storeUnavailable(let reason): "the store cannot be reached: \(reason)"
        case .damaged(let damage): "the version is damaged in the store: \(damage.reason)"
        }
    }
}

/// A stored version that is damaged, with why: what `/readyz`, the admin API and the log report. Damage stays with
/// its version: the version is neither served nor read, and everything else works.
public struct DamagedVersion: Sendable, Hashable {
    public let skinID: String
    public let version: Int
    /// What is damaged, naming the stored piece (a blob, a row, a file).
    public let reason: String

    public init(skinID: String, version: Int, reason: String) {
        self.skinID = skinID
        self.version = version
        self.reason = reason
    }

    /// The damaged versions `snapshot` holds (`SkinVersion.damage`), by skin id then number.
    public static func all(in snapshot: StoreSnapshot) -> [DamagedVersion] {
        snapshot.damagedVersions.map { DamagedVersion(skinID: $0.skinID, version: $0.number, reason: $0.damage ?? "") }
    }
}
