import Foundation
import LiveryJSON
import MetricsTestKit
import PostgresClient
import PostgresSkinStore
import PostgresTestSupport
import SkinModel
import SkinServing
import SkinStore
import Synchronization
import TestSupport
import Testing

/// The write use cases (`Changes`) on a real store, without HTTP: each change is decided on the committed state,
/// served when it returns, counted once, and a refusal changes nothing. Run against the file store and against
/// PostgreSQL.
@Suite struct ChangesTests {
    @Test(arguments: ChangeCheck.allCases)
    func changesOnTheFileStore(_ check: ChangeCheck) async throws {
        let folder = try ScratchDirectory(prefix: "livery-changes")
        try await check.run(on: try FileSkinStore(directory: folder.path("store")), folder: folder)
    }
}

@Suite(.postgresServer) struct PostgresChangesTests {
    @Test(arguments: ChangeCheck.allCases)
    func changesOnPostgreSQL(_ check: ChangeCheck) async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let folder = try ScratchDirectory(prefix: "livery-changes-pg")
        let store = try await PostgresSkinStore.open(
            try PostgresConfiguration(uri: server.uri(database: database)), cacheDirectory: folder.path("cache"))
        try await check.run(on: store, folder: folder)
    }
}

/// One specification of the change use cases, run on any store.
enum ChangeCheck: String, CaseIterable, Sendable, CustomStringConvertible {
    case aPushIsStoredCountedOnceAndARetryStoresNothing
    case aReleaseIsServedWhenItReturnsAndTheReleasedVersionStaysWhenNoneIsNamed
    case refusalsChangeNothing
    case theKillSwitchStopAndDeleteAreServedWhenTheyReturn
    case aGuardTripPausesOnceServesRolloutZeroAndAResumeRestoresTheRollout
    case aGuardTripDecidesOnTheCurrentRelease
    case aRollbackGuardServesThePreviousVersion

    var description: String { rawValue }

    func run(on store: any SkinStore, folder: ScratchDirectory) async throws {
        let rig = try Rig(store: store, folder: folder)
        switch self {
        case .aPushIsStoredCountedOnceAndARetryStoresNothing: try await rig.pushes()
        case .aReleaseIsServedWhenItReturnsAndTheReleasedVersionStaysWhenNoneIsNamed: try await rig.releases()
        case .refusalsChangeNothing: try await rig.refusals()
        case .theKillSwitchStopAndDeleteAreServedWhenTheyReturn: try await rig.unserving()
        case .aGuardTripPausesOnceServesRolloutZeroAndAResumeRestoresTheRollout: try await rig.guardTripAndResume()
        case .aGuardTripDecidesOnTheCurrentRelease: try await rig.guardTripConditions()
        case .aRollbackGuardServesThePreviousVersion: try await rig.guardRollback()
        }
        await store.close()
    }
}

/// A store, a catalog publisher recording what it serves, counted changes, and the use cases over them.
final class Rig: Sendable {
    static let caller = Changes.Caller(actor: "ops", requestID: "test")

    let store: any SkinStore
    let changes: Changes
    let metrics = TestMetrics()
    private let served = Served()

    /// The catalog last published.
    final class Served: Sendable {
        let catalog = Mutex<Catalog?>(nil)
    }

    init(store: any SkinStore, folder: ScratchDirectory) throws {
        self.store = store
        let served = served
        let publisher = CatalogPublisher(
            store: store, cache: try ServingFixtures.cache(folder.path("packages")), limits: ValidationLimits(),
            logger: ServingFixtures.quiet
        ) { catalog in served.catalog.withLock { $0 = catalog } }
        changes = Changes(
            store: store, catalog: publisher, limits: ValidationLimits(), archiveLimits: .init(),
            maxConcurrentUploads: 2, dataDirectory: folder.path, counter: AdminChangeCounter(factory: metrics),
            logger: ServingFixtures.quiet)
    }

    /// The catalog served now.
    var catalog: Catalog? { served.catalog.withLock { $0 } }

    /// The title of the skin served for `demo` (nil: none), which tells the versions apart.
    var servedTitle: String? { catalog?.releases["demo"]?.first?.title }

    /// How many changes of `action` were counted (0 when the series was never made).
    func counted(_ action: String) -> Int64 {
        (try? metrics.expectCounter(AdminChangeCounter.name, [("action", action)]))?.totalValue ?? 0
    }

    /// A zip of a minimal skin `id` of `app`, titled `title`.
    static func archive(id: String = "tiny", app: String = "demo", title: String = "One") -> [UInt8] {
        let files: [(String, [UInt8])] = [
            ("skin.json", Array(#"{"id":"\#(id)","title":"\#(title)","app":"\#(app)"}"#.utf8)),
            ("config.json", Array(##"{"home":{"colors":{"color_background":"#FFFFFF"}}}"##.utf8))
        ]
        return RawZip(entries: files.map { RawZip.Entry.stored($0.0, $0.1) }).build()
    }

    /// A window open from an hour ago to an hour from now.
    static var window: ReleasePlan { ServingFixtures.window(around: Date()) }

    /// The case of the `ChangeError` `body` throws (nil when it throws none).
    static func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as ChangeError {
            return String(String(describing: error).prefix { $0 != "(" })
        } catch {
            return "not a ChangeError: \(error)"
        }
    }

    func auditCount() async throws -> Int { try await store.audit(since: nil, limit: 1_000).count }

    // MARK: - The checks

    func pushes() async throws {
        let first = try await changes.push(archive: Self.archive(), force: false, condition: .none, by: Self.caller)
        #expect(first.added && first.version == 1 && first.skinID == "tiny")
        #expect(first.revision == store.snapshot.revision(ofSkin: "tiny"))
        #expect(first.signs.count == PackageVariant.all.count + PackageVariant.bothAppearances.count)
        let retried = try await changes.push(
            archive: Self.archive(), force: false, condition: .revisions([first.revision]), by: Self.caller)
        #expect(!retried.added && retried.version == 1, "the same files again store nothing")
        #expect(try await auditCount() == 1)
        #expect(counted("push") == 1, "only the push that stored something is counted")

        // The skin belongs to demo: another app's upload of the same id needs force.
        let other = Self.archive(app: "other", title: "Elsewhere")
        #expect(
            await Self.refusal {
                _ = try await self.changes.push(archive: other, force: false, condition: .none, by: Self.caller)
            } == "appMismatch")
        let moved = try await changes.push(archive: other, force: true, condition: .none, by: Self.caller)
        #expect(moved.added && moved.version == 2)
        // If-Match: * needs the skin to exist.
        #expect(
            await Self.refusal {
                _ = try await self.changes.push(
                    archive: Self.archive(id: "fresh"), force: false, condition: .any, by: Self.caller)
            } == "preconditionFailed")
        #expect(
            await Self.refusal {
                _ = try await self.changes.push(archive: [1, 2, 3], force: false, condition: .none, by: Self.caller)
            } == "upload")
        #expect(counted("push") == 2)
    }

    func releases() async throws {
        _ = try await changes.push(archive: Self.archive(title: "One"), force: false, condition: .none, by: Self.caller)
        let released = try await changes.release(
            .put(version: nil, plan: Self.window), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(released.release?.version == 1)
        #expect(servedTitle == "One", "served when the release returns")

        // A new upload is not released by a new window that names no version: the released version stays.
        _ = try await changes.push(archive: Self.archive(title: "Two"), force: false, condition: .none, by: Self.caller)
        let rewindowed = try await changes.release(
            .put(version: nil, plan: Self.window), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(rewindowed.release?.version == 1)
        #expect(servedTitle == "One")

        // A patch merges into the release committed, and keeps its version.
        var patch = JSONObject()
        patch["rollout"] = .number(JSONNumber(40))
        let patched = try await changes.release(
            .patch(patch), skinID: "tiny", condition: .revisions([rewindowed.revision]), by: Self.caller)
        #expect(patched.release?.version == 1)
        #expect(catalog?.releases["demo"]?.first?.release.rollout == 40)
        #expect(
            catalog?.releases["demo"]?.first?.release.endsAt
                == rewindowed.release.flatMap { try? CatalogBuilder.plan(of: $0) }?.endsAt)

        let second = try await changes.release(
            .put(version: 2, plan: Self.window), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(second.release?.version == 2 && servedTitle == "Two")
        let back = try await changes.release(.rollback, skinID: "tiny", condition: .none, by: Self.caller)
        #expect(back.release?.version == 1 && servedTitle == "One")
        let entries = try await store.audit(since: nil, limit: 1_000)
        #expect(entries.last?.action == "release.rollback")
        #expect(counted("release") == 4 && counted("rollback") == 1)
    }

    func refusals() async throws {
        _ = try await changes.push(archive: Self.archive(), force: false, condition: .none, by: Self.caller)
        let released = try await changes.release(
            .put(version: nil, plan: Self.window), skinID: "tiny", condition: .none, by: Self.caller)
        let revision = store.snapshot.revision
        let audited = try await auditCount()
        let past = ReleasePlan(startsAt: Date().addingTimeInterval(-7200), endsAt: Date().addingTimeInterval(-3600))
        var patch = JSONObject()
        patch["rollout"] = .number(JSONNumber(10))
        var badPatch = JSONObject()
        badPatch["rollout"] = .number(JSONNumber(130))
        let changes = changes
        let caller = Self.caller
        #expect(
            await Self.refusal {
                _ = try await changes.release(
                    .put(version: 9, plan: Self.window), skinID: "tiny", condition: .none, by: caller)
            } == "unknownReleaseVersion")
        #expect(
            await Self.refusal {
                _ = try await changes.release(
                    .put(version: 1, plan: past), skinID: "tiny", condition: .none, by: caller)
            } == "windowInPast")
        #expect(
            await Self.refusal {
                _ = try await changes.release(.patch(badPatch), skinID: "tiny", condition: .none, by: caller)
            } == "invalidReleasePlan")
        #expect(
            await Self.refusal {
                _ = try await changes.release(
                    .patch(patch), skinID: "tiny", condition: .revisions([released.revision - 1]), by: caller)
            } == "preconditionFailed")
        #expect(
            await Self.refusal {
                _ = try await changes.release(.patch(patch), skinID: "gone", condition: .none, by: caller)
            } == "unknownSkin")
        #expect(
            await Self.refusal {
                _ = try await changes.release(.rollback, skinID: "tiny", condition: .none, by: caller)
            } == "noPreviousVersion")
        #expect(
            await Self.refusal { _ = try await changes.stop(skinID: "tiny", condition: .revisions([0]), by: caller) }
                == "preconditionFailed")
        #expect(
            await Self.refusal {
                _ = try await changes.delete(skinID: "tiny", force: false, condition: .none, by: caller)
            } == "skinReleased")
        #expect(
            await Self.refusal {
                _ = try await changes.setKillSwitch(
                    app: "nowhere", enabled: true, reason: "", force: false, condition: .none, by: caller)
            } == "unknownApp")
        #expect(store.snapshot.revision == revision, "nothing was committed")
        #expect(try await auditCount() == audited)
        #expect(counted("release") == 1 && counted("killswitch") == 0 && counted("release_stop") == 0)
    }

    func unserving() async throws {
        _ = try await changes.push(archive: Self.archive(), force: false, condition: .none, by: Self.caller)
        _ = try await changes.release(
            .put(version: nil, plan: Self.window), skinID: "tiny", condition: .none, by: Self.caller)
        let on = try await changes.setKillSwitch(
            app: nil, enabled: true, reason: "incident", force: false, condition: .none, by: Self.caller)
        #expect(on.global?.enabled == true)
        #expect(catalog?.killSwitch.blocks(app: "demo") == true, "served when the kill switch returns")
        _ = try await changes.setKillSwitch(
            app: "demo", enabled: true, reason: "", force: false, condition: .revisions([on.revision]), by: Self.caller)
        let off = try await changes.setKillSwitch(
            app: nil, enabled: false, reason: "", force: false, condition: .none, by: Self.caller)
        #expect(off.global?.enabled == false && off.apps["demo"]?.enabled == true)
        #expect(counted("killswitch") == 3)

        let stopped = try await changes.stop(skinID: "tiny", condition: .none, by: Self.caller)
        #expect(stopped.release == nil && servedTitle == nil, "unserved when the stop returns")
        let audited = try await auditCount()
        _ = try await changes.stop(skinID: "tiny", condition: .none, by: Self.caller)
        #expect(try await auditCount() == audited, "stopping a skin that is not released changes nothing")
        #expect(counted("release_stop") == 1)

        let revision = try await changes.delete(skinID: "tiny", force: false, condition: .none, by: Self.caller)
        #expect(revision == store.snapshot.revision && store.snapshot.skins["tiny"] == nil)
        #expect(
            await Self.refusal { _ = try await self.changes.stop(skinID: "tiny", condition: .none, by: Self.caller) }
                == "unknownSkin")
        #expect(counted("delete") == 1)
    }
}
