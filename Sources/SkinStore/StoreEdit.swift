import Foundation
import SkinModel

/// One change a rule chooses after looking at the store's current state (`SkinStore.change`). The rule has
/// already decided everything the caller's request depends on (existence, `If-Match`, which version), so an edit
/// carries no expected revision: it is applied to exactly the state the rule saw.
public enum StoreEdit: Sendable, Equatable {
    /// Adds the change's `StoreUpload` as a new version of its skin. With `unlessUnchanged`, nothing changes when
    /// its files are exactly those of the skin's latest version (see `addVersionUnlessUnchanged`).
    case addUpload(unlessUnchanged: Bool)
    /// Releases `version` of `skinID` with `plan`, recording `action` in the audit log.
    case setRelease(skinID: String, version: Int, plan: ReleasePlan, action: String)
    /// Removes the release of `skinID` (nothing changes when it is not released).
    case clearRelease(skinID: String)
    /// Sets the global kill switch (`app` nil) or one app's.
    case setKillSwitch(app: String?, enabled: Bool, reason: String)
    /// Deletes `skinID` (even while released when `force`).
    case deleteSkin(skinID: String, force: Bool)
    /// Makes the scrub's marks of `skinID`'s versions exactly `versions` (number → what the scrub found,
    /// `SkinVersion.scrubDamage`): the versions named are marked, every other one's mark is cleared; numbers the
    /// skin does not have are ignored. Nothing changes when the marks already are these. `SkinStore.recordScrub`
    /// chooses it.
    case markScrubDamage(skinID: String, versions: [Int: String])
}

/// The files of a version a change may add (`StoreEdit.addUpload`): given to `SkinStore.change` before its rule
/// runs, so a store can write the files' blobs outside its lock (content-addressed writes are idempotent, and
/// nothing refers to them until a version does).
public struct StoreUpload: Sendable {
    public let skinID: String
    /// Relative path → bytes.
    public let files: [String: [UInt8]]
    /// What is kept with the version.
    public let metadata: VersionMetadata

    public init(skinID: String, files: [String: [UInt8]], metadata: VersionMetadata) {
        self.skinID = skinID
        self.files = files
        self.metadata = metadata
    }
}

/// What a rule decided: the edit to commit (nil: change nothing) and what the caller gets back.
public struct StoreDecision<Value: Sendable>: Sendable {
    public var edit: StoreEdit?
    public var value: Value

    public init(edit: StoreEdit?, value: Value) {
        self.edit = edit
        self.value = value
    }

    /// Nothing to change; `value` goes back to the caller.
    public static func unchanged(_ value: Value) -> StoreDecision { StoreDecision(edit: nil, value: value) }
}

/// What `SkinStore.change` did.
public struct StoreOutcome<Value: Sendable>: Sendable {
    /// What the rule returned.
    public let value: Value
    /// The state after the change: the committed state when `changed`, else the current state the rule saw.
    public let state: StoreSnapshot
    /// Whether a change was committed (false when the rule chose none, or the edit changed nothing).
    public let changed: Bool

    public init(value: Value, state: StoreSnapshot, changed: Bool) {
        self.value = value
        self.state = state
        self.changed = changed
    }
}

extension StoreChanges {
    /// The change `edit` makes to `current` (which the rule that chose it has just seen), by the rules of the
    /// matching mutator, with no revision check (the rule made its own).
    ///
    /// - Throws: `unknownSkin`, `unknownVersion`, `skinReleased`, `invalidName`, `invalidText` and `invalidPath` as
    ///   the matching mutator does; `invalidDocument` for `addUpload` without an upload.
    package static func apply(
        _ edit: StoreEdit, upload: PreparedUpload?, uploadSkinID: String?, actor: String, current: StoreSnapshot,
        now: Date, revision: Int
    ) throws(StoreError) -> StoreChange<Void> {
        switch edit {
        case .addUpload(let unlessUnchanged):
            guard let upload, let uploadSkinID else { throw .invalidDocument(reason: "no upload given to the change") }
            return try addVersion(
                skinID: uploadSkinID, upload: upload, expectedRevision: nil, release: nil, actor: actor,
                unlessUnchanged: unlessUnchanged, current: current, now: now, revision: revision
            ).discardingResult()
        case .setRelease(let skinID, let version, let plan, let action):
            try checkSetRelease(skinID: skinID, actor: actor, action: action)
            return try setRelease(
                skinID: skinID, version: version, plan: plan, expectedRevision: nil, actor: actor,
                action: action, current: current, now: now, revision: revision
            ).discardingResult()
        case .clearRelease(let skinID):
            try StoreNames.checkName(skinID)
            try StoreNames.checkName(actor)
            return try clearRelease(
                skinID: skinID, expectedRevision: nil, actor: actor, current: current, revision: revision
            ).discardingResult()
        case .setKillSwitch(let app, let enabled, let reason):
            try checkKillSwitch(app: app, reason: reason, actor: actor)
            return try setKillSwitch(
                app: app, enabled: enabled, reason: reason, expectedRevision: nil, actor: actor, current: current,
                now: now, revision: revision
            ).discardingResult()
        case .deleteSkin(let skinID, let force):
            try StoreNames.checkName(skinID)
            try StoreNames.checkName(actor)
            return try deleteSkin(
                skinID: skinID, force: force, expectedRevision: nil, actor: actor, current: current, revision: revision
            ).discardingResult()
        case .markScrubDamage(let skinID, let versions):
            try StoreNames.checkName(skinID)
            try StoreNames.checkName(actor)
            for reason in versions.values { try checkText(reason, field: "damage") }
            return try markScrubDamage(
                skinID: skinID, marks: versions, actor: actor, current: current, revision: revision
            ).discardingResult()
        }
    }

    /// Runs `rule` on `current` and turns its decision into the change to commit; what the caller gets back (the
    /// rule's refusal or value, and the state after) is the change's result.
    package static func decide<Value: Sendable, Refusal: Error>(
        _ rule: (StoreSnapshot) throws(Refusal) -> StoreDecision<Value>, upload: PreparedUpload?,
        uploadSkinID: String?, actor: String, current: StoreSnapshot, now: Date, revision: Int
    ) throws(StoreError) -> StoreChange<Swift.Result<StoreOutcome<Value>, Refusal>> {
        let decision: StoreDecision<Value>
        do throws(Refusal) {
            decision = try rule(current)
        } catch {
            return .unchanged(.failure(error))
        }
        guard let edit = decision.edit else {
            return .unchanged(.success(StoreOutcome(value: decision.value, state: current, changed: false)))
        }
        let change = try apply(
            edit, upload: upload, uploadSkinID: uploadSkinID, actor: actor, current: current, now: now,
            revision: revision)
        let state = change.snapshot ?? current
        return change.replacingResult(
            .success(StoreOutcome(value: decision.value, state: state, changed: change.snapshot != nil)))
    }
}

extension StoreChange {
    func discardingResult() -> StoreChange<Void> { replacingResult(()) }

    func replacingResult<Other: Sendable>(_ other: Other) -> StoreChange<Other> {
        StoreChange<Other>(
            snapshot: snapshot, actor: actor, action: action, skinID: skinID, before: before, after: after,
            result: other)
    }
}
