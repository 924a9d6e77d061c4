import Foundation
import SkinModel

/// Why a released skin does not apply to a request. Used by the resolver and by the admin preview.
public enum Exclusion: String, Sendable, Equatable {
    case killSwitch = "kill switch is on"
    case platform = "platform not targeted"
    case belowMinAppVersion = "app version below minAppVersion"
    case atOrAboveMaxAppVersion = "app version not below maxAppVersion"
    case notStarted = "window not started"
    case ended = "window ended"
    case rollout = "device outside rollout"
    case paused = "release paused by its guard"
    case outranked = "another skin takes precedence"
}

/// The outcome of resolving a request.
public struct SkinDecision: Sendable {
    /// The skin the client should show now, or `nil` for the app's default look.
    public var current: ReleasedSkin?
    /// The package of `current` for the requested variant.
    public var currentPackage: PackageRecord?
    /// The next different skin this client will get within the horizon, so it can download ahead.
    public var next: ReleasedSkin?
    public var nextPackage: PackageRecord?
    /// The earliest instant after `now` at which this answer could change (a window start or end), if any.
    public var nextBoundary: Date?
    /// The package variant the request asked for (the packages above are of this variant).
    public var variant: PackageVariant = .standard

    /// No skin, no boundary, the standard variant.
    public init() {}
}

/// Decides which skin a client gets. A pure function of (catalog, request, now): no clock, no I/O.
public enum SkinResolver {
    /// The default horizon for `next`: seven days.
    public static let defaultHorizon: TimeInterval = 7 * 24 * 3600

    /// The first rule that excludes `skin` from `request` at `now`, or `nil` if it applies. The rules are tried in
    /// one fixed order: kill switch, window, platform, app version, rollout.
    ///
    /// Windows are half-open: a skin applies from `startsAt` inclusive until `endsAt` exclusive.
    public static func exclusion(
        of skin: ReleasedSkin, for request: SkinRequest, at now: Date, killSwitch: KillSwitch
    )
        -> Exclusion?
    {
        if killSwitch.blocks(app: skin.app) { return .killSwitch }
        if now < skin.release.startsAt { return .notStarted }
        if now >= skin.release.endsAt { return .ended }
        return targetingExclusion(of: skin, for: request)
    }

    /// Exclusions that do not depend on time, in the order `exclusion` reports them: platform, app version,
    /// rollout.
    static func targetingExclusion(of skin: ReleasedSkin, for request: SkinRequest) -> Exclusion? {
        let release = skin.release
        if !skin.targets(request.platform) { return .platform }
        if let min = release.minAppVersion, request.appVersion < min { return .belowMinAppVersion }
        if let max = release.maxAppVersion, request.appVersion >= max { return .atOrAboveMaxAppVersion }
        // A paused release is served at rollout 0 (`ReleasePlan.served`): say why.
        if release.paused != nil && release.rollout == 0 { return .paused }
        if !RolloutBucket.includes(deviceID: request.deviceID, skinID: skin.skinID, rollout: release.rollout) {
            return .rollout
        }
        return nil
    }

    /// The winning skin at `now`, ignoring the kill switch (callers check it).
    static func winner(among skins: [ReleasedSkin], for request: SkinRequest, at now: Date) -> ReleasedSkin? {
        skins.first { skin in
            targetingExclusion(of: skin, for: request) == nil && skin.release.startsAt <= now
                && now < skin.release.endsAt
        }
    }

    /// Resolves `request` against `catalog` at `now`.
    public static func resolve(
        _ request: SkinRequest, in catalog: Catalog, at now: Date, horizon: TimeInterval = defaultHorizon
    ) -> SkinDecision {
        guard !catalog.killSwitch.blocks(app: request.app), let skins = catalog.releases[request.app] else {
            var decision = SkinDecision()
            decision.variant = request.variant
            return decision
        }
        return resolve(
            request, among: skins, boundaries: catalog.boundaries[request.app] ?? [], at: now, horizon: horizon)
    }

    /// Resolves `request` against one app's released skins (in precedence order) and their window boundaries
    /// (sorted, without repeats), as a catalog holds them; the kill switch is the caller's to check.
    public static func resolve(
        _ request: SkinRequest, among skins: [ReleasedSkin], boundaries: [Date], at now: Date, horizon: TimeInterval
    ) -> SkinDecision {
        var decision = SkinDecision()
        decision.variant = request.variant
        let firstAhead = Self.firstIndex(after: now, in: boundaries)
        decision.nextBoundary = firstAhead < boundaries.count ? boundaries[firstAhead] : nil

        if let current = winner(among: skins, for: request, at: now) {
            decision.current = current
            decision.currentPackage = current.package(for: request.variant)
        }
        let limit = now.addingTimeInterval(horizon)
        for instant in boundaries[firstAhead...] {
            if instant > limit { break }
            guard let upcoming = winner(among: skins, for: request, at: instant) else { continue }
            if upcoming.skinID == decision.current?.skinID { continue }
            decision.next = upcoming
            decision.nextPackage = upcoming.package(for: request.variant)
            break
        }
        return decision
    }

    /// The index of the first instant in `sorted` that is later than `now` (binary search).
    static func firstIndex(after now: Date, in sorted: [Date]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] <= now { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
