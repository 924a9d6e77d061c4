import Foundation

/// What a released skin is to its app.
public enum SkinKind: String, Sendable, Hashable, CaseIterable {
    /// The server decides: the poll answers with the holiday skin whose window is open (Ziroom's model). The default.
    case holiday
    /// The user picks: listed among the themes an app offers (AUUTheme's theme store); never a poll's answer.
    case theme
}

/// When and to whom a skin is served: a schedule window plus targeting.
///
/// Invariants (guaranteed by ``parse(_:file:pointer:allowingExtraKeys:)`` and the initializer's contract):
/// `startsAt < endsAt`; `platforms` is non-empty; `rollout` is 0...100; `minAppVersion < maxAppVersion` when
/// both are set; `order` is `nil` unless `kind` is `.theme`. The window is half-open: active from `startsAt`
/// (inclusive) until `endsAt` (exclusive). A theme released without a window is active always: `startsAt` is
/// `Date.distantPast`, `endsAt` `Date.distantFuture`, and both texts are empty (``hasWindow`` is `false`).
public struct ReleasePlan: Sendable, Equatable {
    /// First instant the skin is active (inclusive).
    public var startsAt: Date
    /// First instant the skin is no longer active (exclusive).
    public var endsAt: Date
    /// `startsAt` as written (ISO 8601, with an offset or local to `timeZone`).
    public var startsAtText: String
    /// `endsAt` as written.
    public var endsAtText: String
    /// The IANA zone local date-times are read in (`Asia/Shanghai`), or `nil` when both texts carry offsets.
    public var timeZone: String?
    /// Higher wins when windows overlap. Default 0.
    public var priority: Int
    /// Platforms served. Default: all.
    public var platforms: Set<Platform>
    /// Lowest app version served (inclusive), or `nil` for no lower bound.
    public var minAppVersion: AppVersion?
    /// First app version no longer served (exclusive), or `nil` for no upper bound.
    public var maxAppVersion: AppVersion?
    /// Percentage of devices served, 0...100. Default 100.
    public var rollout: Int
    /// Holiday skin (the default) or selectable theme.
    public var kind: SkinKind = .holiday
    /// Where a theme is listed, ascending (1 comes first); `nil` lists it after every ordered theme. Themes only.
    public var order: Int?
    /// The yearly rule the window follows (`release.recurs`), or `nil` for a window written as instants. With a
    /// rule, `startsAt`/`endsAt` hold the occurrence in force when the plan was parsed (see
    /// ``occurrence(inForceAt:)``), `timeZone` is set, and the texts are those instants in UTC.
    public var recurrence: RecurrenceRule?
    /// Per Gregorian year of the anchor day, what replaces that year's occurrence (`release.occurrences`).
    public var occurrenceOverrides: [Int: OccurrenceOverride] = [:]
    /// The release's own guard (`release.guard`), or `nil` for ``ReleaseGuard/standard`` (see ``effectiveGuard``).
    public var releaseGuard: ReleaseGuard?
    /// What the guard's trip left (`release.paused`), or `nil` while the release serves normally (see ``served``).
    public var paused: ReleasePause?

    /// Whether the release has a window; only a theme may have none (it is then always active).
    public var hasWindow: Bool { !startsAtText.isEmpty }

    /// A plan from instants; the texts are the UTC ISO 8601 forms of the dates and `timeZone` is `nil`.
    ///
    /// The caller guarantees the invariants listed on the type (this initializer does not check them;
    /// use ``parse(_:file:pointer:allowingExtraKeys:)`` for untrusted input).
    public init(
        startsAt: Date, endsAt: Date, priority: Int = 0, platforms: Set<Platform> = Set(Platform.allCases),
        minAppVersion: AppVersion? = nil, maxAppVersion: AppVersion? = nil, rollout: Int = 100
    ) {
        self.startsAt = startsAt
        self.endsAt = endsAt
        startsAtText = ISO8601DateTime.utcText(startsAt)
        endsAtText = ISO8601DateTime.utcText(endsAt)
        timeZone = nil
        self.priority = priority
        self.platforms = platforms
        self.minAppVersion = minAppVersion
        self.maxAppVersion = maxAppVersion
        self.rollout = rollout
    }

    init(
        startsAt: Date, endsAt: Date, startsAtText: String, endsAtText: String, timeZone: String?, priority: Int,
        platforms: Set<Platform>, minAppVersion: AppVersion?, maxAppVersion: AppVersion?, rollout: Int,
        kind: SkinKind, order: Int?
    ) {
        self.kind = kind
        self.order = order
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.startsAtText = startsAtText
        self.endsAtText = endsAtText
        self.timeZone = timeZone
        self.priority = priority
        self.platforms = platforms
        self.minAppVersion = minAppVersion
        self.maxAppVersion = maxAppVersion
        self.rollout = rollout
    }

    /// Whether `instant` lies in the half-open window `startsAt ..< endsAt`.
    public func isActive(at instant: Date) -> Bool { startsAt <= instant && instant < endsAt }

    /// Whether a client on `platform` running `appVersion` is targeted (rollout is not considered here).
    public func targets(platform: Platform, appVersion: AppVersion) -> Bool {
        guard platforms.contains(platform) else { return false }
        if let minAppVersion, appVersion < minAppVersion { return false }
        if let maxAppVersion, !(appVersion < maxAppVersion) { return false }
        return true
    }
}
