import Foundation
import Logging
import SkinModel
import SkinStore
import ZipReading

/// Every change to what is served, as use cases of the serving core: push a version, release one (a whole release,
/// a patch of the current one, a rollback), stop a release, delete a skin, set a kill switch. The admin API only
/// reads the request, calls one of these and renders what it returns (or maps its `ChangeError`).
///
/// Every change takes one path:
/// 1. its request is checked (an upload read hostile-first and validated, its packages planned);
/// 2. one store change (`SkinStore.change`: the file store's writer lock, or the PostgreSQL transaction that locks
///    the revision row) reads the current state, applies the change's rule (`ChangeRules`: existence, `If-Match`,
///    merges, "the released version stays", the version a rollback goes back to, the apps known) and commits the
///    change with its audit entry; a change that serves a version first builds that version's packages outside
///    the store change (other changes, the kill switch first, go on meanwhile), and commits only if the state
///    still means that version;
/// 3. when something was committed, the catalog is published (`CatalogPublisher`; a kill switch is applied to the
///    catalog already served at once), so a returned change is stored durably *and* served here;
/// 4. the change is counted (`livery_admin_changes_total{action}`) and logged.
///
/// A refusal or failure before the commit changes nothing.
public final class Changes: Sendable {
    /// Who asks for a change: the actor recorded in the audit log and the log, and the request it came with.
    public struct Caller: Sendable {
        public let actor: String
        public let requestID: String

        public init(actor: String, requestID: String) {
            self.actor = actor
            self.requestID = requestID
        }
    }

    /// How many times a release prepares packages for a version that another change then moved away from before
    /// it gives up (`storeUnavailable`: try again).
    public static let releaseAttempts = 5

    let store: any SkinStore
    let catalog: CatalogPublisher
    let limits: ValidationLimits
    let archiveLimits: ZipArchiveReader.Limits
    let counter: AdminChangeCounter
    let logger: Logger
    let clock: @Sendable () -> Date
    /// The data folder, as configured: named when a change fails because of it.
    let dataDirectory: String
    /// At most this many uploads are inflated and validated at once (each holds its archive and files in memory).
    let uploads: AsyncSemaphore

    /// - Parameters:
    ///   - limits: what a pushed skin is validated with.
    ///   - archiveLimits: what an uploaded archive is read with.
    ///   - maxConcurrentUploads: the most uploads inflated and validated at once.
    ///   - counter: where committed changes are counted.
    ///   - clock: "now" for the release rules (a window wholly in the past is refused).
    public init(
        store: any SkinStore, catalog: CatalogPublisher, limits: ValidationLimits,
        archiveLimits: ZipArchiveReader.Limits, maxConcurrentUploads: Int, dataDirectory: String,
        counter: AdminChangeCounter = AdminChangeCounter(), logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.catalog = catalog
        self.limits = limits
        self.archiveLimits = archiveLimits
        self.counter = counter
        self.logger = logger
        self.clock = clock
        self.dataDirectory = dataDirectory
        self.uploads = AsyncSemaphore(limit: maxConcurrentUploads)
    }

    // MARK: - The one path

    /// The kinds of change, as counted.
    enum Kind: String {
        case push, release, rollback, stop = "release_stop", delete, killSwitch = "killswitch"
    }

    /// A log line: level, message and metadata.
    typealias LogLine = (level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata)

    /// Steps 2–4 of every change: `rule` decides on the store's current state and its edit is committed with its
    /// audit entry in one store change; when something was committed, the catalog is published and the change
    /// counted; then `log` (nil: nothing to say) is written.
    ///
    /// - Parameter field: the input a store refusal is about when the store cannot know (see `ChangeError.init`).
    func commit<Value: Sendable>(
        _ kind: Kind, by caller: Caller, field: String? = nil, upload: StoreUpload? = nil,
        rule: @escaping @Sendable (StoreSnapshot) throws(ChangeError) -> StoreDecision<Value>,
        log: (StoreOutcome<Value>) -> LogLine?
    ) async throws(ChangeError) -> StoreOutcome<Value> {
        let decided: Result<StoreOutcome<Value>, ChangeError>
        do throws(StoreError) {
            decided = try await store.change(actor: caller.actor, upload: upload, rule)
        } catch {
            throw failure(error, field: field, requestID: caller.requestID)
        }
        let outcome = try decided.get()
        if outcome.changed {
            if kind == .killSwitch {
                // Served at once by the catalog already published, whatever is being built; the rest of the
                // catalog catches up in the background, unless nothing else changed since it was built.
                catalog.applyKillSwitches(of: outcome.state)
                catalog.publishLatestInBackground(ifBehind: outcome.state.revision)
            } else {
                await catalog.publishLatest()
            }
            counter.increment(action: kind.rawValue)
        }
        if let line = log(outcome) { logger.log(level: line.level, line.message, metadata: line.metadata) }
        return outcome
    }

    /// The change error for a store error, logging the server's faults (which the client sees only as a 5xx).
    public func failure(_ error: StoreError, field: String? = nil, requestID: String) -> ChangeError {
        let mapped = ChangeError(error, field: field, dataDirectory: dataDirectory)
        if mapped.isServerFault {
            logger.error(
                "admin change failed in the store", metadata: ["request.id": "\(requestID)", "error": "\(error)"])
        }
        return mapped
    }

    /// The store's state, at least as new as its revision now (`SkinStore.currentSnapshot`): what reads answer
    /// from, and what a release decides its packages on.
    public func currentState(requestID: String) async throws(ChangeError) -> StoreSnapshot {
        do throws(StoreError) {
            return try await store.currentSnapshot()
        } catch {
            throw failure(error, requestID: requestID)
        }
    }

    // MARK: - Stop, delete, kill switch

    /// Stops serving `id` (nothing changes when it is not released).
    ///
    /// - Returns: the skin after the change.
    public func stop(
        skinID id: String, condition: ChangeCondition, by caller: Caller
    ) async throws(ChangeError) -> SkinState {
        let outcome = try await commit(.stop, by: caller) { state throws(ChangeError) in
            try ChangeRules.stop(id: id, condition: condition, state: state)
        } log: { _ in
            (.info, "skin release stopped", ["skin.id": "\(id)", "actor": "\(caller.actor)"])
        }
        return try ChangeRules.skin(id, in: outcome.state)
    }

    /// Deletes `id` (refused while released unless `force`). Its versions stay in the audit log and its version
    /// numbers are never reused.
    ///
    /// - Returns: the store revision after the deletion.
    public func delete(
        skinID id: String, force: Bool, condition: ChangeCondition, by caller: Caller
    ) async throws(ChangeError) -> Int {
        let outcome = try await commit(.delete, by: caller) { state throws(ChangeError) in
            try ChangeRules.delete(id: id, force: force, condition: condition, state: state)
        } log: { _ in
            (.info, "skin deleted", ["skin.id": "\(id)", "actor": "\(caller.actor)", "forced": "\(force)"])
        }
        return outcome.state.revision
    }

    /// Sets the global kill switch (`app` nil) or one app's; every poll this replica answers after the return
    /// reflects it, whatever is being built.
    ///
    /// - Returns: the kill switches after the change.
    public func setKillSwitch(
        app: String?, enabled: Bool, reason: String, force: Bool, condition: ChangeCondition, by caller: Caller
    ) async throws(ChangeError) -> KillSwitches {
        let outcome = try await commit(.killSwitch, by: caller) { state throws(ChangeError) in
            try ChangeRules.killSwitch(
                app: app, enabled: enabled, reason: reason, force: force, condition: condition, state: state)
        } log: { _ in
            (.notice, "kill switch set", ["app": "\(app ?? "*")", "enabled": "\(enabled)", "actor": "\(caller.actor)"])
        }
        return outcome.state.killSwitches
    }
}
