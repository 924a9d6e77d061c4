import Foundation

/// The kill switches: one global and one per app. An enabled switch means "serve no skin".
public struct KillSwitches: Sendable, Equatable {
    /// The global switch, or nil if it was never set.
    public let global: KillSwitch?
    /// The per-app switches by app id, including ones turned off again (so the last change stays visible).
    public let apps: [String: KillSwitch]
    /// The store revision of the last kill-switch change (0 if none); the ETag for kill-switch writes.
    public let revision: Int

    /// A value, for code and tests that consume snapshots.
    public init(global: KillSwitch?, apps: [String: KillSwitch], revision: Int) {
        self.global = global
        self.apps = apps
        self.revision = revision
    }

    /// No switch ever set.
    public static let none = KillSwitches(global: nil, apps: [:], revision: 0)

    /// True if skins are switched off for `app`: the global switch or that app's switch is enabled.
    public func isKilled(app: String) -> Bool {
        global?.enabled == true || apps[app]?.enabled == true
    }
}

/// The last setting of one kill switch.
public struct KillSwitch: Sendable, Equatable {
    /// True while skins must not be served.
    public let enabled: Bool
    /// Why (free text from the operator).
    public let reason: String
    /// Who changed it.
    public let actor: String
    /// When (store clock, millisecond precision).
    public let changedAt: Date

    /// A value, for code and tests that consume snapshots.
    public init(enabled: Bool, reason: String, actor: String, changedAt: Date) {
        self.enabled = enabled
        self.reason = reason
        self.actor = actor
        self.changedAt = changedAt
    }
}
