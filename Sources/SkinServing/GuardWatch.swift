import Foundation
import Logging
import SkinStore
import Synchronization

/// Decides, after each batch of phones' reports is durable, whether a release's guard trips: the bridge from report
/// ingestion to `Changes.tripGuardIfNeeded`.
///
/// Invariants:
/// - **Off the request's path.** `reportsCounted` only notes which (skin, version) pairs a batch counted a failure
///   of and returns; one background task at a time works through the noted pairs, so the 202 and polls never wait
///   for figures, a store change or a webhook, and a flood of reports makes one pending check per pair, not one
///   task per batch.
/// - **Only a released version that may trip is checked:** the release is still that version, not paused, and its
///   guard is not `none`; the figures are the guard's own window (`windowMinutes`) by the store's clock. The trip
///   itself decides again on the current state inside the store change, so a stale look here costs one query.
/// - **Failures are retried by the next batch:** a figures query or a trip that fails is logged, and the pair is
///   checked again when a later failure report arrives.
public final class GuardWatch: Sendable {
    /// Trips the guard of a skin version with its figures (`LiveryService.tripGuardIfNeeded`: the store change,
    /// then the webhook on the replica whose trip committed).
    public typealias Trip = @Sendable (_ skinID: String, _ version: Int, _ figures: VersionFigures) async -> Void

    private struct Key: Hashable, Sendable {
        let skinID: String
        let version: Int
    }

    private struct State {
        var pending: [Key] = []
        var noted: Set<Key> = []
        var working = false
        var idle: [CheckedContinuation<Void, Never>] = []
    }

    private let store: any SkinStore
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let trip: Trip
    private let state = Mutex(State())

    public init(store: any SkinStore, clock: @escaping @Sendable () -> Date, logger: Logger, trip: @escaping Trip) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.trip = trip
    }

    /// Notes the versions `counted` (reports a batch counted for the first time) holds failures of, and starts the
    /// background check if none is running. Returns at once.
    public func reportsCounted(_ counted: [LedgerReport]) {
        let keys = counted.filter { $0.outcome == .failed }.map { Key(skinID: $0.skinID, version: $0.version) }
        guard !keys.isEmpty else { return }
        let start = state.withLock { state -> Bool in
            for key in keys where state.noted.insert(key).inserted { state.pending.append(key) }
            guard !state.working, !state.pending.isEmpty else { return false }
            state.working = true
            return true
        }
        if start { Task.detached { [self] in await work() } }
    }

    /// Returns once no check is pending or running (for tests and an orderly shutdown).
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if !state.working { return true }
                state.idle.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func work() async {
        while let key = nextKey() {
            await check(key)
        }
    }

    /// The next noted pair, or nil (and no longer working) when none is left.
    private func nextKey() -> Key? {
        let (key, waiting) = state.withLock { state -> (Key?, [CheckedContinuation<Void, Never>]) in
            if state.pending.isEmpty {
                state.working = false
                defer { state.idle = [] }
                return (nil, state.idle)
            }
            let key = state.pending.removeFirst()
            state.noted.remove(key)
            return (key, [])
        }
        for continuation in waiting { continuation.resume() }
        return key
    }

    private func check(_ key: Key) async {
        let now = clock()
        guard let release = store.snapshot.skins[key.skinID]?.release, release.version == key.version,
            let plan = try? CatalogBuilder.plan(of: release, now: now), plan.paused == nil
        else { return }
        let rule = plan.effectiveGuard
        guard rule.action != .none else { return }
        let since = now.addingTimeInterval(-Double(rule.windowMinutes) * 60)
        do throws(StoreError) {
            let figures = try await store.reports.figures(skinID: key.skinID, version: key.version, since: since)
            guard case .trip = GuardPolicy.evaluate(figures, under: rule) else { return }
            await trip(key.skinID, key.version, figures)
        } catch {
            logger.error(
                "cannot read the figures a release's guard decides on; the next failure report decides again",
                metadata: ["skin.id": "\(key.skinID)", "skin.version": "\(key.version)", "error": "\(error)"])
        }
    }
}
