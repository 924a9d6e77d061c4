import CoreMetrics
import Logging
import SkinModel
import SkinStore
import Synchronization

/// Keeps the served catalog current: builds the catalog of the store's latest snapshot (`CatalogBuilder`) and hands
/// it to `publish` (the client API's, in the server), so neither building nor publishing knows who serves it.
public final class CatalogPublisher: Sendable {
    /// Builds each catalog published.
    public let builder: CatalogBuilder
    private let publish: @Sendable (Catalog) -> Void
    private let logger: Logger
    /// What was last published, and the newest kill switches known; changed only under its lock, which also
    /// orders every call of `publish`.
    private let published = Mutex(Published())
    /// The background rebuild (`publishLatestInBackground`).
    private let background = Mutex(Background())
    /// True from a build that failed on an unreachable store until a build succeeds.
    private let failed = Atomic<Bool>(false)
    /// The damaged versions the last build found (see `damaged`), and every one logged so far.
    private let damage = Mutex<(current: [DamagedVersion], logged: Set<DamagedVersion>)>(([], []))
    /// `livery_store_damaged_versions`: how many versions `damaged` lists.
    private let damagedGauge: Gauge
    /// The gauge's series name.
    public static let damagedVersionsName = "livery_store_damaged_versions"

    private struct Published: Sendable {
        /// The store revision of the catalog last published (-1 before the first).
        var revision = -1
        /// The catalog last published, nil before the first.
        var catalog: Catalog?
        /// The store revision of the newest kill switches applied (`KillSwitches.revision`; -1: none yet).
        var switchesRevision = -1
        /// Those kill switches, as served.
        var switches = KillSwitch()
        /// The snapshot the served catalog's skins are of (nil before the first catalog): a newer one that differs
        /// from it only in its kill switches needs no rebuild (`applyKillSwitches`).
        var builtFrom: StoreSnapshot?
    }

    private struct Background: Sendable {
        var running = false
        var again = false
    }

    /// - Parameter publish: receives each catalog built, in revision order, never concurrently with itself.
    public init(builder: CatalogBuilder, logger: Logger, publish: @escaping @Sendable (Catalog) -> Void) {
        self.builder = builder
        self.publish = publish
        self.logger = logger
        self.damagedGauge = Gauge(label: Self.damagedVersionsName)
    }

    /// A publisher with a builder of its own for `store`, `cache` and `limits`.
    public convenience init(
        store: any SkinStore, cache: PackageCache, limits: ValidationLimits, logger: Logger,
        publish: @escaping @Sendable (Catalog) -> Void
    ) {
        self.init(builder: CatalogBuilder(store: store, cache: cache, limits: limits), logger: logger, publish: publish)
    }

    /// Whether the last build failed because the store could not be reached: call `publishLatest()` again (when the
    /// store answers), even if the store has no newer revision.
    public var needsRetry: Bool { failed.load(ordering: .acquiring) }

    /// The store revision of the catalog served now (-1 before the first).
    public var publishedRevision: Int { published.withLock { $0.revision } }

    /// The damaged versions as of the last catalog built, by skin id then number: those the store found damaged
    /// when it loaded them (never served, never read), and released ones whose stored files do not match their
    /// content address (left out of the catalog). Damage stays with its version: everything else is served and
    /// can be changed.
    public var damaged: [DamagedVersion] { damage.withLock { $0.current } }

    /// Builds the catalog of the store's current snapshot and publishes it, unless a catalog of
    /// a later revision was published meanwhile (so publishes never go back in time, whatever their order of
    /// completion). Skins that cannot be served are logged and left out.
    ///
    /// When the store cannot be reached for a skin's files (`StoreError.unavailable`), nothing is published and
    /// the revision is not recorded: the previous catalog stays served, and the caller tries again later.
    ///
    /// With `stopsWhenCancelled`, a cancelled task stops the build before its next skin's packages
    /// (`CatalogBuilder.build`) and publishes nothing; every publish after a committed change leaves it false.
    ///
    /// - Returns: the revision now published, or nil when the build failed on an unreachable store (logged; see
    ///   `needsRetry`) or stopped on cancellation (not logged, not a failure).
    @discardableResult
    public func publishLatest(stopsWhenCancelled: Bool = false) async -> Int? {
        let snapshot = builder.store.snapshot
        let catalog: Catalog
        let problems: [CatalogBuilder.Problem]
        do throws(StoreError) {
            guard let built = try await builder.build(snapshot, stopsWhenCancelled: stopsWhenCancelled) else {
                return nil
            }
            (catalog, problems) = built
            failed.store(false, ordering: .releasing)
        } catch {
            failed.store(true, ordering: .releasing)
            logger.warning(
                "catalog not rebuilt: the store cannot be reached; serving the previous one until a retry succeeds",
                metadata: ["store.revision": "\(snapshot.revision)", "error": "\(error)"])
            return nil
        }
        for problem in problems {
            logger.error(
                "released skin not served",
                metadata: [
                    "skin.id": "\(problem.skinID)", "skin.version": "\(problem.version)", "reason": "\(problem.error)"
                ])
        }
        record(damage: snapshot, problems: problems)
        return published.withLock { published in
            guard snapshot.revision >= published.revision else { return published.revision }
            // Kill switches applied meanwhile from a newer state stay applied.
            var served = catalog
            if published.switchesRevision > snapshot.killSwitches.revision {
                served = catalog.with(killSwitch: published.switches)
            } else {
                published.switchesRevision = snapshot.killSwitches.revision
                published.switches = catalog.killSwitch
            }
            // Publishing under this lock keeps the order of publishes the order of revisions.
            publish(served)
            published.catalog = served
            published.revision = snapshot.revision
            published.builtFrom = snapshot
            return published.revision
        }
    }

    /// Applies the kill switches of `snapshot` to the catalog already published, at once (no package is built,
    /// no catalog rebuilt), when they are newer than the ones it serves: a kill switch never waits for a build in
    /// progress. A catalog built later from an older state keeps them. Before the first catalog, they are kept for
    /// it.
    ///
    /// When `snapshot` differs from the state the served catalog was built from only in its kill switches (its
    /// skins, releases and deleted skins are equal), the catalog with them *is* `snapshot`'s catalog: it is served
    /// as of `snapshot.revision` (`publishedRevision`), and no rebuild is needed for it.
    public func applyKillSwitches(of snapshot: StoreSnapshot) {
        let switches = snapshot.killSwitches
        published.withLock { published in
            guard switches.revision > published.switchesRevision else { return }
            let killSwitch = CatalogBuilder.killSwitch(switches)
            published.switchesRevision = switches.revision
            published.switches = killSwitch
            guard let catalog = published.catalog else { return }
            let current =
                snapshot.revision > published.revision
                && published.builtFrom.map { snapshot.differsOnlyInKillSwitches(from: $0) } ?? false
            guard catalog.killSwitch != killSwitch || current else { return }
            let served = catalog.with(killSwitch: killSwitch, revision: current ? snapshot.revision : catalog.revision)
            publish(served)
            published.catalog = served
            if current {
                published.revision = snapshot.revision
                published.builtFrom = snapshot
            }
        }
    }

    /// `publishLatestInBackground()` unless the catalog served is already of `revision` or newer (a change this
    /// replica published itself, or kill switches alone applied to it) and the last build did not fail.
    public func publishLatestInBackground(ifBehind revision: Int) {
        guard needsRetry || publishedRevision < revision else { return }
        publishLatestInBackground()
    }

    /// `publishLatest()` in a task of its own, so the caller does not wait for package builds; calls made while
    /// one runs are folded into one more run after it (which builds the store's latest snapshot then).
    public func publishLatestInBackground() {
        let start = background.withLock { state in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        Task {
            repeat {
                await publishLatest()
            } while background.withLock { state in
                if state.again {
                    state.again = false
                    return true
                }
                state.running = false
                return false
            }
        }
    }

    /// Returns once no background rebuild runs (those asked for meanwhile included), or after `limit`, whichever
    /// comes first: the server calls it before it exits, so a short build is not cut off, while a long one (a
    /// large release's packages) does not hold up a shutdown (an interrupted build leaves only a temporary file,
    /// removed by the next start).
    public func waitForBackgroundBuilds(upTo limit: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while background.withLock({ $0.running }), clock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
        }
    }

    /// Keeps the damaged versions of `snapshot` and `problems` for `damaged` and the gauge, and logs each one the
    /// first time it is seen.
    private func record(damage snapshot: StoreSnapshot, problems: [CatalogBuilder.Problem]) {
        var found = Set(DamagedVersion.all(in: snapshot))
        let known = Set(found.map { DamagedKey(skinID: $0.skinID, version: $0.version) })
        for problem in problems {
            guard case .damaged(let damaged) = problem.error,
                !known.contains(DamagedKey(skinID: damaged.skinID, version: damaged.version))
            else { continue }
            found.insert(damaged)
        }
        let sorted = found.sorted { ($0.skinID, $0.version) < ($1.skinID, $1.version) }
        let fresh = damage.withLock { damage in
            damage.current = sorted
            let fresh = sorted.filter { !damage.logged.contains($0) }
            damage.logged.formUnion(fresh)
            return fresh
        }
        damagedGauge.record(sorted.count)
        for version in fresh where version.reason == snapshot.skins[version.skinID]?.version(version.version)?.damage {
            logger.error(
                "stored version damaged: left out; every other version and skin is served and can be changed",
                metadata: [
                    "skin.id": "\(version.skinID)", "skin.version": "\(version.version)", "reason": "\(version.reason)"
                ])
        }
    }

    private struct DamagedKey: Hashable {
        let skinID: String
        let version: Int
    }
}
