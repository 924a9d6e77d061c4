import Foundation
import LiveryJSON
import PostgresClient
import PostgresSkinStore
import PostgresTestSupport
import SkinModel
import SkinServing
import SkinStore
import TestSupport
import Testing

/// The guard's trips through `Changes` (run on both stores by `ChangesTests` and `PostgresChangesTests`).
extension Rig {
    /// A guard that trips above 10 % once 10 devices reported.
    static let tightGuard = ReleaseGuard(maxFailureRate: 0.1, minDevices: 10, windowMinutes: 60, action: .pause)

    static func figures(version: Int = 1, reporting: Int, failed: Int) -> VersionFigures {
        VersionFigures(
            skinID: "tiny", version: version, reportingDevices: reporting, failedDevices: failed,
            failedByStage: failed > 0 ? ["unpack": failed] : [:])
    }

    /// Pushes "One" and releases it at `rollout` with `releaseGuard`.
    func releaseGuarded(_ releaseGuard: ReleaseGuard?, rollout: Int = 30) async throws {
        _ = try await changes.push(archive: Self.archive(title: "One"), force: false, condition: .none, by: Self.caller)
        var plan = Self.window
        plan.rollout = rollout
        plan.releaseGuard = releaseGuard
        _ = try await changes.release(.put(version: 1, plan: plan), skinID: "tiny", condition: .none, by: Self.caller)
    }

    /// The release's plan as stored now.
    func storedPlan() async throws -> ReleasePlan? {
        try await store.currentSnapshot().skins["tiny"]?.release.flatMap { try? CatalogBuilder.plan(of: $0) }
    }

    func guardTripAndResume() async throws {
        try await releaseGuarded(Self.tightGuard, rollout: 30)
        let before = store.snapshot.revision

        // Two replicas decide on the same figures at once: one write commits, one trip comes back.
        let figures = Self.figures(reporting: 40, failed: 8)
        async let first = changes.tripGuardIfNeeded(skinID: "tiny", version: 1, figures: figures)
        async let second = changes.tripGuardIfNeeded(skinID: "tiny", version: 1, figures: figures)
        let trips = try await [first, second].compactMap { $0 }
        #expect(trips.count == 1, "exactly one caller gets the trip")
        let trip = try #require(trips.first)
        #expect(trip.action == .pause && trip.rolloutBefore == 30 && trip.figures == figures)
        #expect(store.snapshot.revision == before + 1, "one write")
        #expect(trip.sequence == before + 1, "the trip's id is its audit sequence")

        // Served at rollout 0 once the call returns; the stored rollout is the one from before.
        #expect(catalog?.releases["demo"]?.first?.release.rollout == 0)
        let paused = try #require(try await storedPlan())
        #expect(paused.rollout == 30 && paused.paused?.rollout == 30 && paused.paused?.action == .pause)
        #expect(paused.paused?.figures["failedDevices"] == .number(JSONNumber(8)))
        #expect(paused.releaseGuard == Self.tightGuard, "the guard is kept")
        let entry = try #require(try await store.audit(since: nil, limit: 1_000).last)
        #expect(entry.actor == "livery:guard" && entry.action == "release.guard" && entry.sequence == trip.sequence)
        let after = String(decoding: entry.after ?? [], as: UTF8.self)
        #expect(
            after.contains("\"reportingDevices\":40") && after.contains("\"failedDevices\":8"),
            "the audit entry carries the figures")
        #expect(counted("release") == 1, "a trip is not an admin change")

        // Already paused: worse figures trip nothing more.
        #expect(
            try await changes.tripGuardIfNeeded(
                skinID: "tiny", version: 1, figures: Self.figures(reporting: 80, failed: 60)) == nil)
        #expect(store.snapshot.revision == before + 1)

        // People cannot set a pause; they clear it.
        var setPause = JSONObject()
        setPause["paused"] = paused.paused?.jsonValue
        let changes = changes
        #expect(
            await Self.refusal {
                _ = try await changes.release(.patch(setPause), skinID: "tiny", condition: .none, by: Self.caller)
            } == "invalidRelease")
        var whole = Self.window
        whole.paused = paused.paused
        #expect(
            await Self.refusal {
                _ = try await changes.release(
                    .put(version: 1, plan: whole), skinID: "tiny", condition: .none, by: Self.caller)
            } == "invalidRelease")

        // Another change while paused keeps the pause.
        var priority = JSONObject()
        priority["priority"] = .number(JSONNumber(5))
        _ = try await changes.release(.patch(priority), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(catalog?.releases["demo"]?.first?.release.rollout == 0)

        // PATCH {"paused": null} resumes: the rollout from before is served again.
        var resume = JSONObject()
        resume["paused"] = .null
        let resumed = try await changes.release(.patch(resume), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(resumed.release?.version == 1)
        #expect(catalog?.releases["demo"]?.first?.release.rollout == 30)
        #expect(try await storedPlan()?.paused == nil)
        #expect(try await store.audit(since: nil, limit: 1_000).last?.action == "release.resume")
    }

    func guardTripConditions() async throws {
        try await releaseGuarded(nil, rollout: 100)
        let revision = store.snapshot.revision
        // The standard guard (5 % once 50 devices reported).
        #expect(
            try await changes.tripGuardIfNeeded(
                skinID: "tiny", version: 1, figures: Self.figures(reporting: 49, failed: 49)) == nil, "too few devices")
        #expect(
            try await changes.tripGuardIfNeeded(
                skinID: "tiny", version: 1, figures: Self.figures(reporting: 100, failed: 5)) == nil, "at the limit")
        #expect(
            try await changes.tripGuardIfNeeded(
                skinID: "tiny", version: 2, figures: Self.figures(version: 2, reporting: 100, failed: 90)) == nil,
            "not the released version")
        #expect(
            try await changes.tripGuardIfNeeded(
                skinID: "gone", version: 1, figures: Self.figures(reporting: 100, failed: 90)) == nil, "no such skin")
        #expect(store.snapshot.revision == revision, "nothing was written")

        // A guard turned off never trips.
        var off = JSONObject()
        off["guard"] = .object(JSONObject([.init(key: "action", value: .string("none"))]))
        _ = try await changes.release(.patch(off), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(try await storedPlan()?.effectiveGuard.action == ReleaseGuard.Action.none)
        let offRevision = store.snapshot.revision
        #expect(
            try await changes.tripGuardIfNeeded(
                skinID: "tiny", version: 1, figures: Self.figures(reporting: 100, failed: 100)) == nil)
        #expect(store.snapshot.revision == offRevision)
        #expect(catalog?.releases["demo"]?.first?.release.rollout == 100)
    }

    func guardRollback() async throws {
        _ = try await changes.push(archive: Self.archive(title: "One"), force: false, condition: .none, by: Self.caller)
        _ = try await changes.push(archive: Self.archive(title: "Two"), force: false, condition: .none, by: Self.caller)
        var plan = Self.window
        plan.rollout = 60
        plan.releaseGuard = ReleaseGuard(maxFailureRate: 0.1, minDevices: 10, windowMinutes: 30, action: .rollback)
        _ = try await changes.release(.put(version: 2, plan: plan), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(servedTitle == "Two")

        let trip = try #require(
            try await changes.tripGuardIfNeeded(
                skinID: "tiny", version: 2, figures: Self.figures(version: 2, reporting: 20, failed: 10)))
        #expect(trip.action == .rollback)
        #expect(servedTitle == "One", "the previous version is served instead")
        #expect(catalog?.releases["demo"]?.first?.release.rollout == 60, "at the rollout from before, never wider")
        #expect(
            try await store.currentSnapshot().skins["tiny"]?.release?.version == 2,
            "the release still names the version paused")

        var resume = JSONObject()
        resume["paused"] = .null
        _ = try await changes.release(.patch(resume), skinID: "tiny", condition: .none, by: Self.caller)
        #expect(servedTitle == "Two")
    }
}

/// Two replicas on one PostgreSQL database see the same failing figures at once: one trip commits, on one of them.
@Suite(.postgresServer) struct PostgresGuardTripTests {
    @Test func twoReplicasTrippingAtOnceCommitOnce() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let configuration = try PostgresConfiguration(uri: server.uri(database: database))
        let folderA = try ScratchDirectory(prefix: "livery-guard-a")
        let folderB = try ScratchDirectory(prefix: "livery-guard-b")
        let a = try Rig(
            store: try await PostgresSkinStore.open(configuration, cacheDirectory: folderA.path("cache")),
            folder: folderA)
        let b = try Rig(
            store: try await PostgresSkinStore.open(configuration, cacheDirectory: folderB.path("cache")),
            folder: folderB)
        try await a.releaseGuarded(Rig.tightGuard, rollout: 50)
        _ = try await b.store.currentSnapshot()

        let figures = Rig.figures(reporting: 200, failed: 60)
        async let first = a.changes.tripGuardIfNeeded(skinID: "tiny", version: 1, figures: figures)
        async let second = b.changes.tripGuardIfNeeded(skinID: "tiny", version: 1, figures: figures)
        let trips = try await [first, second].compactMap { $0 }
        #expect(trips.count == 1, "one replica's write commits; only it calls the webhook")
        let entries = try await a.store.audit(since: nil, limit: 1_000).filter { $0.action == "release.guard" }
        #expect(entries.count == 1 && entries.first?.sequence == trips.first?.sequence)
        #expect(try await b.storedPlan()?.paused?.rollout == 50)
        await a.store.close()
        await b.store.close()
    }
}
