import Foundation

/// One committed change, as recorded in the append-only audit log.
public struct AuditEntry: Sendable, Equatable {
    /// 1, 2, 3…: equal to the store revision this change produced. No gaps.
    public let sequence: Int
    /// When the change was made (store clock, millisecond precision).
    public let time: Date
    /// Who made it.
    public let actor: String
    /// What was done: one of the `AuditAction` constants or a caller-supplied action for `setRelease`.
    public let action: String
    /// The skin changed, or nil for kill-switch changes.
    public let skinID: String?
    /// JSON describing the affected record before the change, or nil if it did not exist.
    public let before: [UInt8]?
    /// JSON describing it after, or nil if it no longer exists.
    public let after: [UInt8]?

    /// An entry value, for code and tests that consume the audit log.
    public init(
        sequence: Int, time: Date, actor: String, action: String, skinID: String?, before: [UInt8]?, after: [UInt8]?
    ) {
        self.sequence = sequence
        self.time = time
        self.actor = actor
        self.action = action
        self.skinID = skinID
        self.before = before
        self.after = after
    }
}

/// Where an audit query starts.
public enum AuditCursor: Sendable, Equatable {
    /// Entries with a sequence number greater than this one (pass the last sequence you have).
    case afterSequence(Int)
    /// Entries made at or after this instant.
    case time(Date)
}

/// The actions the store writes into the audit log.
public enum AuditAction {
    /// `addVersion`. After: `{"version", "digest", "files", "size"}`, plus `"release"` (as for `setRelease`)
    /// when the version was released in the same change.
    public static let addVersion = "version.add"
    /// `setRelease`. Before/after: `{"version", "document"}` (the document embedded as JSON).
    public static let setRelease = "release.set"
    /// `clearRelease`. Before: the release.
    public static let clearRelease = "release.clear"
    /// `setKillSwitch`. Before/after: `{"app", "enabled", "reason"}` (`app` null for the global switch).
    public static let setKillSwitch = "killswitch.set"
    /// `deleteSkin`. Before: `{"versions": [numbers], "release": … or null}`.
    public static let deleteSkin = "skin.delete"
    /// `StoreEdit.markScrubDamage` (`SkinStore.recordScrub`, actor `scrub`). Before/after: `{"damaged":
    /// [{"version", "reason"}]}`, the skin's versions marked damaged by a scrub.
    public static let markScrubDamage = "damage.scrub"
}
