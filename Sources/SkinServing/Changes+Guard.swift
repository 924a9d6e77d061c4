import CoreMetrics
import Foundation
import SkinModel
import SkinStore

extension Changes {
    /// The guard's trips: `livery_guard_trips_total{action}`.
    public static let guardTripsMetric = "livery_guard_trips_total"

    /// Trips the guard of `skinID`'s release when `figures` (of `version`, within the guard's window) say so,
    /// deciding on the *current* state in one store change (`ChangeRules.guardTrip`: the release is still
    /// `version`, not already paused, its guard not `none`, the figures past its threshold). The trip writes the
    /// release with `paused` set and an audit entry by `livery:guard` (action `release.guard`) whose document
    /// carries the figures; then the catalog is published and the trip counted.
    ///
    /// - Returns: the trip, only to the caller whose write committed (it calls the webhook); nil when nothing
    ///   tripped (another replica's trip committed first, the release moved on, the figures are within bounds).
    /// - Throws: store failures (nothing was changed; the next batch of reports decides again).
    public func tripGuardIfNeeded(
        skinID: String, version: Int, figures: VersionFigures
    ) async throws(ChangeError) -> GuardTrip? {
        let now = clock()
        let decided: Result<StoreOutcome<ReleasePause?>, Never>
        do throws(StoreError) {
            decided = try await store.change(actor: ChangeRules.guardActor, upload: nil) {
                (state: StoreSnapshot) throws(Never) -> StoreDecision<ReleasePause?> in
                ChangeRules.guardTrip(skinID: skinID, version: version, figures: figures, now: now, state: state)
            }
        } catch {
            throw failure(error, requestID: "guard")
        }
        guard case .success(let outcome) = decided, outcome.changed, let pause = outcome.value else { return nil }
        await catalog.publishLatest()
        Counter(label: Self.guardTripsMetric, dimensions: [("action", pause.action.rawValue)]).increment()
        logger.notice(
            "release paused by its guard",
            metadata: [
                "skin.id": "\(skinID)", "skin.version": "\(version)", "action": "\(pause.action.rawValue)",
                "release.rollout": "\(pause.rollout)", "guard.reporting": "\(figures.reportingDevices)",
                "guard.failed": "\(figures.failedDevices)", "audit.sequence": "\(outcome.state.revision)"
            ])
        return GuardTrip(
            skinID: skinID, version: version, sequence: outcome.state.revision, action: pause.action,
            rolloutBefore: pause.rollout, at: now, figures: figures)
    }
}
