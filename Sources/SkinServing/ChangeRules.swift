import Foundation
import LiveryJSON
import SkinModel
import SkinStore

/// The rules of every change, as pure functions of the store's current state. `Changes` runs each inside
/// `SkinStore.change` (under the file store's writer lock, or in the PostgreSQL transaction that locks the revision
/// row), so everything a write depends on — the skin's existence, `If-Match`, "the released version stays when
/// none is named", a merge patch, the version a rollback goes back to, the apps the server knows — is decided on
/// the state the write is committed on, whichever replica answers and whatever another replica just did.
public enum ChangeRules {
    // MARK: Push

    /// A new version of `skinID` for `app` (nothing when the files are the latest version's).
    ///
    /// - Throws: `appMismatch` when the skin's latest version is another app's (unless `force`);
    ///   `preconditionFailed` when the condition fails (`any` needs the skin to exist).
    public static func push(
        skinID: String, app: String, force: Bool, condition: ChangeCondition, state: StoreSnapshot
    ) throws(ChangeError) -> StoreDecision<Void> {
        if !force, let stored = state.skins[skinID]?.latestVersion, let storedApp = stored.metadata.app,
            storedApp != app
        {
            throw .appMismatch(skinID: skinID, stored: storedApp, uploaded: app)
        }
        let current = state.revision(ofSkin: skinID)
        if condition == .any && current == 0 { throw .preconditionFailed(current: 0) }
        try condition.check(current: current)
        return StoreDecision(edit: .addUpload(unlessUnchanged: true), value: ())
    }

    // MARK: Releases

    /// What a release request asks for, before it meets the state.
    public enum ReleaseKind: Sendable {
        /// `PUT /release`: `version` (nil: the released one, else the latest) with `plan`, replacing the release.
        case put(version: Int?, plan: ReleasePlan)
        /// `PATCH /release`: the current release with these members merged in (RFC 7396).
        case patch(JSONObject)
        /// `POST /rollback`: the highest version below the released one, with the same settings.
        case rollback

        /// The audit action the release records.
        var auditAction: String {
            if case .rollback = self { return "release.rollback" }
            return AuditAction.setRelease
        }
    }

    /// The version and plan a release request means on `state`.
    ///
    /// - Throws: `unknownSkin`, `unknownReleaseVersion`, `notReleased`, `noPreviousVersion`, `preconditionFailed`;
    ///   `invalidRelease`/`invalidReleasePlan` for a merged plan that is not valid, `windowInPast` for a window
    ///   already over at `now`.
    public static func release(
        _ kind: ReleaseKind, id: String, condition: ChangeCondition, now: Date, state: StoreSnapshot
    ) throws(ChangeError) -> (version: SkinVersion, plan: ReleasePlan) {
        let skin = try skin(id, in: state)
        let number: Int?
        var plan: ReleasePlan
        switch kind {
        case .put(let version, let wanted):
            if wanted.paused != nil { throw pausedBySomeone }
            (number, plan) = (version, wanted)
        case .patch(let patch):
            if let paused = patch["paused"], !paused.isNull { throw pausedBySomeone }
            guard let release = skin.release else { throw .notReleased(skinID: id, fix: "PUT a whole release first") }
            var merged = release.plan?.jsonValue.objectValue ?? JSONObject()
            merged["version"] = .number(JSONNumber(release.version))
            merged = ReleaseRequest.mergeReleasePatch(merged, with: patch)
            let wanted = try ReleaseRequest.parse(merged, now: now)
            (number, plan) = (wanted.version ?? release.version, wanted.plan)
        case .rollback:
            guard let release = skin.release else {
                throw .notReleased(skinID: id, fix: "there is nothing to roll back")
            }
            guard let previous = skin.versions.last(where: { $0.number < release.version }) else {
                throw .noPreviousVersion(skinID: id, released: release.version)
            }
            do throws(ServingError) {
                plan = try CatalogBuilder.plan(of: release, now: now)
            } catch {
                throw .internalError
            }
            number = previous.number
            // The pause was about the version rolled back from.
            plan.paused = nil
        }
        try condition.check(current: skin.revision)
        // Without a version, the released one stays (a new window must not silently ship the latest upload).
        let wanted = number ?? skin.release?.version ?? skin.latestVersion?.number ?? 0
        guard let version = skin.version(wanted) else { throw .unknownReleaseVersion(skinID: id, version: wanted) }
        guard plan.endsAt > now else {
            throw .windowInPast(
                endsAt: AnswerFragments.instantText(plan.endsAt, written: plan.endsAtText, plan.timeZone))
        }
        return (version, plan)
    }

    /// What the release rule found inside the change.
    public enum ReleaseVerdict: Sendable, Equatable {
        /// Committed: `version` released with `plan`.
        case released(version: Int, plan: ReleasePlan)
        /// Nothing committed: the state now means `version`, whose packages were not the ones prepared; prepare
        /// them and decide again.
        case rebuild(version: Int)
    }

    /// `release`, decided on `state`, committed only if it means the version whose packages are prepared
    /// (`prepared`: its number and digest).
    public static func releaseDecision(
        _ kind: ReleaseKind, id: String, condition: ChangeCondition, now: Date,
        prepared: (number: Int, digest: String), state: StoreSnapshot
    ) throws(ChangeError) -> StoreDecision<ReleaseVerdict> {
        let (version, plan) = try release(kind, id: id, condition: condition, now: now, state: state)
        guard version.number == prepared.number, version.digest == prepared.digest else {
            return .unchanged(.rebuild(version: version.number))
        }
        var action = kind.auditAction
        if case .patch(let patch) = kind, patch["paused"] == .null, state.skins[id]?.release?.plan?.paused != nil {
            action = resumeAuditAction
        }
        return StoreDecision(
            edit: .setRelease(skinID: id, version: version.number, plan: plan, action: action),
            value: .released(version: version.number, plan: plan))
    }

    /// The refusal of a release request that sets `paused`: only the guard pauses.
    static let pausedBySomeone = ChangeError.invalidRelease(
        field: "paused", reason: "is set by the release's guard when it trips; send \"paused\": null to resume")

    // MARK: The guard

    /// Who a guard's trip is by, in the audit log and the release's `releasedBy` (no token name holds `:`).
    public static let guardActor = "livery:guard"
    /// The audit action of a guard's trip: a `release.set`-shaped entry whose document's `paused` carries the
    /// figures.
    public static let guardAuditAction = "release.guard"
    /// The audit action of a `PATCH` that clears a pause (`{"paused": null}`).
    public static let resumeAuditAction = "release.resume"

    /// A guard's trip, decided on the *current* state: the release is still `version`, not already paused, its
    /// guard is not `none`, and `figures` are past its threshold (`GuardPolicy`). Then the release is written again
    /// with `paused` set (`at`: now, its action, the rollout before, the figures) and nothing else changed: a
    /// guard never widens a rollout. Anything else changes nothing (nil), so of two replicas deciding on the same
    /// figures only the first to commit trips.
    public static func guardTrip(
        skinID: String, version: Int, figures: VersionFigures, now: Date, state: StoreSnapshot
    ) -> StoreDecision<ReleasePause?> {
        guard let release = state.skins[skinID]?.release, release.version == version,
            let plan = try? CatalogBuilder.plan(of: release, now: now), plan.paused == nil,
            case .trip = GuardPolicy.evaluate(figures, under: plan.effectiveGuard)
        else { return .unchanged(nil) }
        var paused = plan
        let pause = ReleasePause(
            at: now, action: plan.effectiveGuard.action, rollout: plan.rollout, figures: GuardPolicy.json(figures))
        paused.paused = pause
        return StoreDecision(
            edit: .setRelease(skinID: skinID, version: version, plan: paused, action: guardAuditAction),
            value: pause)
    }

    // MARK: Stop, delete, kill switch

    /// Stops serving `id` (nothing when it is not released).
    public static func stop(
        id: String, condition: ChangeCondition, state: StoreSnapshot
    ) throws(ChangeError) -> StoreDecision<Void> {
        let skin = try skin(id, in: state)
        try condition.check(current: skin.revision)
        return StoreDecision(edit: .clearRelease(skinID: id), value: ())
    }

    /// Deletes `id` (the store refuses a released skin unless `force`).
    public static func delete(
        id: String, force: Bool, condition: ChangeCondition, state: StoreSnapshot
    ) throws(ChangeError) -> StoreDecision<Void> {
        let skin = try skin(id, in: state)
        try condition.check(current: skin.revision)
        return StoreDecision(edit: .deleteSkin(skinID: id, force: force), value: ())
    }

    /// Sets the global switch (`app` nil) or one app's.
    ///
    /// - Throws: `unknownApp` for an app the state has never seen (unless `force`); `preconditionFailed` against
    ///   the switches' revision.
    public static func killSwitch(
        app: String?, enabled: Bool, reason: String, force: Bool, condition: ChangeCondition, state: StoreSnapshot
    ) throws(ChangeError) -> StoreDecision<Void> {
        if let app { try checkKnownApp(app, field: "app", force: force, state: state) }
        try condition.check(current: state.killSwitches.revision)
        return StoreDecision(edit: .setKillSwitch(app: app, enabled: enabled, reason: reason), value: ())
    }

    // MARK: The state

    /// The live skin `id` in `state`.
    ///
    /// - Throws: `unknownSkin` naming `id`.
    public static func skin(_ id: String, in state: StoreSnapshot) throws(ChangeError) -> SkinState {
        guard let skin = state.skins[id] else { throw .unknownSkin(id, field: "id") }
        return skin
    }

    /// Every app a stored skin version belongs to, plus apps that already have a kill switch: the apps the server
    /// has seen.
    public static func knownApps(in state: StoreSnapshot) -> Set<String> {
        var apps = Set(state.killSwitches.apps.keys)
        for skin in state.skins.values {
            for version in skin.versions {
                if let app = version.metadata.app { apps.insert(app) }
            }
        }
        return apps
    }

    /// Refuses an `app` the server has never seen (a typo at 2 a.m.), unless `force` (an app with no skins yet).
    ///
    /// - Throws: `unknownApp` naming `field` and the known apps.
    public static func checkKnownApp(
        _ app: String, field: String, force: Bool, state: StoreSnapshot
    ) throws(ChangeError) {
        guard !force else { return }
        let known = knownApps(in: state)
        guard known.contains(app) else { throw .unknownApp(app, field: field, known: known) }
    }
}
