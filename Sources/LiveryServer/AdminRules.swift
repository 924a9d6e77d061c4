import Foundation
import LiveryJSON
import SkinModel
import SkinServing
import SkinStore

/// The admin API's decisions, as pure functions of the store's current state. Each runs inside
/// `SkinStore.change` (under the file store's writer lock, or in the PostgreSQL transaction that locks the revision
/// row), so everything a write depends on — the skin's existence, `If-Match`, "the released version stays when
/// none is named", a merge patch, the version a rollback goes back to, the apps the server knows — is decided on
/// the state the write is committed on, whichever replica answers and whatever another replica just did.
enum AdminRules {
    // MARK: Push

    /// `POST /skins`: a new version of `skinID` for `app` (nothing when the files are the latest version's).
    ///
    /// - Throws: 409 `app_mismatch` when the skin's latest version is another app's (unless `force`); 412 when
    ///   `If-Match` fails (`*` needs the skin to exist).
    static func push(
        skinID: String, app: String, force: Bool, condition: AdminETag.Condition, state: StoreSnapshot
    ) throws(APIError) -> StoreDecision<Void> {
        if !force, let stored = state.skins[skinID]?.latestVersion, let storedApp = AdminJSON.VersionInfo(stored).app,
            storedApp != app
        {
            throw APIError.appMismatch(skinID: skinID, stored: storedApp, uploaded: app)
        }
        let current = state.revision(ofSkin: skinID)
        if condition == .any && current == 0 { throw APIError.preconditionFailed(current: 0) }
        _ = try AdminETag.expectedRevision(condition, current: current)
        return StoreDecision(edit: .addUpload(unlessUnchanged: true), value: ())
    }

    // MARK: Releases

    /// What a release request asks for, before it meets the state.
    enum ReleaseKind: Sendable {
        /// `PUT /release`: `version` (nil: the released one, else the latest) with `plan`, replacing the release.
        case put(version: Int?, plan: ReleasePlan)
        /// `PATCH /release`: the current release with these members merged in (RFC 7396).
        case patch(JSONObject)
        /// `POST /rollback`: the highest version below the released one, with the same settings.
        case rollback
    }

    /// The version and plan a release request means on `state`.
    ///
    /// - Throws: 404 for an unknown skin or version, 409 `not_released` / `no_previous_version`, 412 for a
    ///   failed `If-Match`, 422 for a merged plan that is not valid or a window already over at `now`.
    static func release(
        _ kind: ReleaseKind, id: String, condition: AdminETag.Condition, now: Date, state: StoreSnapshot
    ) throws(APIError) -> (version: SkinVersion, plan: ReleasePlan) {
        let skin = try AdminAPI.skin(id, in: state)
        let number: Int?
        let plan: ReleasePlan
        switch kind {
        case .put(let version, let wanted):
            (number, plan) = (version, wanted)
        case .patch(let patch):
            guard let release = skin.release else {
                throw APIError.notReleased(skinID: id, fix: "PUT a whole release first")
            }
            var merged = (try? JSONValue.parse(release.document).objectValue) ?? JSONObject()
            merged["version"] = AdminJSON.number(release.version)
            merged = AdminAPI.mergePatch(merged, with: patch)
            let wanted = try AdminAPI.releaseRequest(merged)
            (number, plan) = (wanted.version ?? release.version, wanted.plan)
        case .rollback:
            guard let release = skin.release else {
                throw APIError.notReleased(skinID: id, fix: "there is nothing to roll back")
            }
            guard let previous = skin.versions.last(where: { $0.number < release.version }) else {
                throw APIError.noPreviousVersion(skinID: id, released: release.version)
            }
            do throws(ServingError) {
                plan = try CatalogBuilder.plan(of: release)
            } catch {
                throw APIError.internalError
            }
            number = previous.number
        }
        _ = try AdminETag.expectedRevision(condition, current: skin.revision)
        // Without a version, the released one stays (a new window must not silently ship the latest upload).
        let wanted = number ?? skin.release?.version ?? skin.latestVersion?.number ?? 0
        guard let version = skin.version(wanted) else {
            throw APIError.unknownReleaseVersion(skinID: id, version: wanted)
        }
        guard plan.endsAt > now else {
            throw APIError.windowInPast(
                endsAt: AnswerFragments.instantText(plan.endsAt, written: plan.endsAtText, plan.timeZone))
        }
        return (version, plan)
    }

    /// What the release rule found inside the change.
    enum ReleaseVerdict: Sendable, Equatable {
        /// Committed: `version` released with `plan`.
        case released(version: Int, plan: ReleasePlan)
        /// Nothing committed: the state now means `version`, whose packages were not the ones prepared; prepare
        /// them and decide again.
        case rebuild(version: Int)
    }

    /// `release`, decided on `state`, committed only if it means the version whose packages are prepared
    /// (`prepared`: its number and digest).
    static func releaseDecision(
        _ kind: ReleaseKind, id: String, condition: AdminETag.Condition, now: Date, action: String,
        prepared: (number: Int, digest: String), state: StoreSnapshot
    ) throws(APIError) -> StoreDecision<ReleaseVerdict> {
        let (version, plan) = try release(kind, id: id, condition: condition, now: now, state: state)
        guard version.number == prepared.number, version.digest == prepared.digest else {
            return .unchanged(.rebuild(version: version.number))
        }
        return StoreDecision(
            edit: .setRelease(
                skinID: id, version: version.number, document: plan.jsonValue.serialized(.compact), action: action),
            value: .released(version: version.number, plan: plan))
    }

    // MARK: Stop, delete, kill switch

    /// `DELETE /release`: stops serving `id` (nothing when it is not released).
    static func stop(id: String, condition: AdminETag.Condition, state: StoreSnapshot) throws(APIError) -> StoreDecision<Void> {
        let skin = try AdminAPI.skin(id, in: state)
        _ = try AdminETag.expectedRevision(condition, current: skin.revision)
        return StoreDecision(edit: .clearRelease(skinID: id), value: ())
    }

    /// `DELETE /skins/{id}`: deletes `id` (the store refuses a released skin unless `force`).
    static func delete(
        id: String, force: Bool, condition: AdminETag.Condition, state: StoreSnapshot
    ) throws(APIError) -> StoreDecision<Void> {
        let skin = try AdminAPI.skin(id, in: state)
        _ = try AdminETag.expectedRevision(condition, current: skin.revision)
        return StoreDecision(edit: .deleteSkin(skinID: id, force: force), value: ())
    }

    /// `PUT /killswitch`: sets the global switch (`app` nil) or one app's.
    ///
    /// - Throws: 404 `unknown_app` for an app the state has never seen (unless `force`); 412 for a failed
    ///   `If-Match` against the switches' revision.
    static func killSwitch(
        app: String?, enabled: Bool, reason: String, force: Bool, condition: AdminETag.Condition,
        state: StoreSnapshot
    ) throws(APIError) -> StoreDecision<Void> {
        if let app, !force {
            let known = AdminAPI.knownApps(in: state)
            guard known.contains(app) else { throw APIError.unknownApp(app, field: "app", known: known) }
        }
        _ = try AdminETag.expectedRevision(condition, current: state.killSwitches.revision)
        return StoreDecision(edit: .setKillSwitch(app: app, enabled: enabled, reason: reason), value: ())
    }
}
