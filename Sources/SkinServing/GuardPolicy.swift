import Foundation
import LiveryJSON
import SkinModel

/// The guard's decision, a pure function of a version's figures and the release's guard: no store, no clock.
///
/// The failure rate is failed devices over reporting devices (both distinct devices within the guard's window),
/// and it counts only once at least `minDevices` devices have reported; a rate strictly above `maxFailureRate`
/// trips. A guard whose action is `none` never trips.
public enum GuardPolicy {
    /// What the figures mean under a guard.
    public enum Verdict: Sendable, Equatable {
        /// The guard is off (`action: none`).
        case off
        /// Fewer than `minDevices` devices reported: the rate does not count yet.
        case tooFewDevices(reporting: Int, needed: Int)
        /// The rate is at or below `maxFailureRate`.
        case healthy(rate: Double)
        /// The rate is above `maxFailureRate`: the guard takes its action.
        case trip(rate: Double)
    }

    /// The verdict of `releaseGuard` on `figures`.
    public static func evaluate(_ figures: VersionFigures, under releaseGuard: ReleaseGuard) -> Verdict {
        guard releaseGuard.action != .none else { return .off }
        guard figures.reportingDevices >= releaseGuard.minDevices, figures.reportingDevices > 0 else {
            return .tooFewDevices(reporting: figures.reportingDevices, needed: releaseGuard.minDevices)
        }
        let rate = failureRate(figures)
        return rate > releaseGuard.maxFailureRate ? .trip(rate: rate) : .healthy(rate: rate)
    }

    /// Failed devices over reporting devices (0 when none reported); failed devices are capped at the reporting
    /// ones, so the rate stays within 0...1 whatever the counts.
    public static func failureRate(_ figures: VersionFigures) -> Double {
        guard figures.reportingDevices > 0 else { return 0 }
        return Double(min(max(figures.failedDevices, 0), figures.reportingDevices)) / Double(figures.reportingDevices)
    }

    /// The figures as the guard records them (`release.paused.figures`, the audit entry, the webhook):
    /// `{"reportingDevices", "failedDevices", "failureRate", "failedByStage": {STAGE: n}}`, stages sorted.
    public static func json(_ figures: VersionFigures) -> JSONObject {
        var object = JSONObject()
        object["reportingDevices"] = .number(JSONNumber(figures.reportingDevices))
        object["failedDevices"] = .number(JSONNumber(figures.failedDevices))
        let rate = (failureRate(figures) * 10_000).rounded() / 10_000
        object["failureRate"] = JSONNumber(rate).map(JSONValue.number) ?? .null
        var stages = JSONObject()
        for (stage, count) in figures.failedByStage.sorted(by: { $0.key < $1.key }) {
            stages[stage] = .number(JSONNumber(count))
        }
        object["failedByStage"] = .object(stages)
        return object
    }
}

/// A guard's committed trip: what `Changes.tripGuardIfNeeded` returns to the one replica whose write committed,
/// which then calls the webhook.
public struct GuardTrip: Sendable, Equatable {
    public let skinID: String
    public let version: Int
    /// The audit sequence of the trip's entry (the store revision it produced): the webhook's `id`, so receivers
    /// can drop retries.
    public let sequence: Int
    /// What the trip does: `pause` or `rollback`.
    public let action: ReleaseGuard.Action
    /// The release's rollout before the trip.
    public let rolloutBefore: Int
    /// When it tripped.
    public let at: Date
    public let figures: VersionFigures

    public init(
        skinID: String, version: Int, sequence: Int, action: ReleaseGuard.Action, rolloutBefore: Int, at: Date,
        figures: VersionFigures
    ) {
        self.skinID = skinID
        self.version = version
        self.sequence = sequence
        self.action = action
        self.rolloutBefore = rolloutBefore
        self.at = at
        self.figures = figures
    }
}
