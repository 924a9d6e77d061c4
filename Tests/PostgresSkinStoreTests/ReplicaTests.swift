import Foundation
import LiveryJSON
import PostgresClient
import PostgresSkinStore
import PostgresTestSupport
import SkinModel
import SkinStore
import Testing

/// Several `PostgresSkinStore`s on one database behave as replicas of one store.
@Suite(.postgresServer) struct ReplicaTests {
    static let actor = "ops-alice"
    static let metadata = VersionMetadata(skin: JSONObject([.init(key: "id", value: "spring")]))
    /// A year-long release plan with `rollout` and `priority`.
    static func plan(rollout: Int = 100, priority: Int = 0) -> ReleasePlan {
        ReleasePlan(
            startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: Date(timeIntervalSince1970: 1_831_536_000),
            priority: priority, rollout: rollout)
    }
    static func files(_ variant: Int = 0) -> [String: [UInt8]] {
        ["config.json": Array(#"{"variant":\#(variant)}"#.utf8), "images/icon.png": [0x89, 0x50, UInt8(variant & 0xFF)]]
    }

    /// What `body` returned or threw.
    static func attempt<T>(_ body: () async throws(StoreError) -> T) async -> Result<T, StoreError> {
        do throws(StoreError) { return .success(try await body()) } catch { return .failure(error) }
    }

    @Test func aReplicaSeesAnotherReplicasChangesAfterRefresh() async throws {
        let storage = try await PostgresStoreStorage()
        let first = try await storage.openReplica("a")
        let second = try await storage.openReplica("b")
        let version = try await first.addVersion(
            skinID: "spring", files: Self.files(), metadata: Self.metadata, expectedRevision: 0, release: nil,
            actor: Self.actor)
        try await first.setKillSwitch(
            app: "com.example.app", enabled: true, reason: "launch", expectedRevision: nil, actor: Self.actor)
        #expect(second.snapshot.revision == 0, "nothing is seen before a refresh")

        #expect(try await second.refresh())
        #expect(second.snapshot == first.snapshot)
        #expect(
            try await second.fileBytes(skinID: "spring", version: version.number, path: "images/icon.png")
                == Self.files()["images/icon.png"])
        #expect(try await second.refresh() == false, "an up-to-date replica reloads nothing")

        // The second replica's change goes on from the shared revision, and the first sees it.
        try await second.deleteSkin(skinID: "spring", force: false, expectedRevision: 1, actor: Self.actor)
        #expect(try await first.refresh())
        #expect(first.snapshot.skins["spring"] == nil && first.snapshot.revision == 3)
        #expect(try await first.audit(since: nil, limit: 10).map(\.sequence) == [1, 2, 3])
        await first.close()
        await second.close()
    }

    @Test func aChangeNotifiesOtherReplicasWithItsRevision() async throws {
        let storage = try await PostgresStoreStorage()
        let store = try await storage.openReplica()
        let listener = try await PostgresListener.start(
            try storage.configuration, channels: [PostgresStoreSchema.changesChannel])
        try await store.setKillSwitch(app: nil, enabled: true, reason: "", expectedRevision: nil, actor: Self.actor)
        var events = listener.events.makeAsyncIterator()
        let event = await events.next()
        guard case .notification(let notification) = event else {
            Issue.record("expected a notification, got \(String(describing: event))")
            return
        }
        #expect(notification.channel == PostgresStoreSchema.changesChannel)
        #expect(notification.payload == "1")
        listener.stop()
        await store.close()
    }

    @Test func killSwitchChangesReloadTheKillSwitchesAndARevisionMovedByHandReloadsEverything() async throws {
        let storage = try await PostgresStoreStorage()
        let first = try await storage.openReplica("a")
        let second = try await storage.openReplica("b")
        try await first.addVersion(
            skinID: "spring", files: Self.files(), metadata: Self.metadata, expectedRevision: 0, release: nil,
            actor: Self.actor)
        #expect(try await second.refresh())
        try await first.setKillSwitch(
            app: nil, enabled: true, reason: "drill", expectedRevision: nil, actor: Self.actor)
        try await first.setKillSwitch(
            app: "com.example.app", enabled: true, reason: "", expectedRevision: nil, actor: Self.actor)
        #expect(try await second.refresh())
        #expect(second.snapshot == first.snapshot && second.snapshot.revision == 3)

        // A hand edit, with the revision bumped as the docs say, then a kill switch through the other replica: the
        // change reloads everything under its lock (no audit entry for revision 4), as does a refresh after it.
        _ = try await storage.server.psql(
            "UPDATE livery_version_files SET size = size + 1 WHERE skin_id = 'spring' AND path = 'config.json'; "
                + "UPDATE livery_store SET revision = revision + 1", database: storage.database)
        try await second.setKillSwitch(app: nil, enabled: false, reason: "", expectedRevision: nil, actor: Self.actor)
        #expect(second.snapshot.revision == 5 && second.snapshot.damagedVersions.map(\.skinID) == ["spring"])
        #expect(try await first.refresh())
        #expect(first.snapshot == second.snapshot)
        await first.close()
        await second.close()
    }

    @Test func concurrentConflictingChangesFromTwoReplicasGiveOneSuccessAndOneMismatch() async throws {
        let storage = try await PostgresStoreStorage()
        let first = try await storage.openReplica("a")
        let second = try await storage.openReplica("b")
        for round in 0..<5 {
            let skinID = "race-\(round)"
            async let one = Self.attempt { () async throws(StoreError) in
                try await first.addVersion(
                    skinID: skinID, files: Self.files(1), metadata: Self.metadata, expectedRevision: 0, release: nil,
                    actor: Self.actor)
            }
            async let two = Self.attempt { () async throws(StoreError) in
                try await second.addVersion(
                    skinID: skinID, files: Self.files(2), metadata: Self.metadata, expectedRevision: 0, release: nil,
                    actor: Self.actor)
            }
            let outcomes = await [one, two]
            let successes = outcomes.filter { if case .success = $0 { true } else { false } }
            let mismatches = outcomes.filter { if case .failure(.revisionMismatch) = $0 { true } else { false } }
            #expect(successes.count == 1 && mismatches.count == 1, "round \(round): \(outcomes)")
        }
        try await first.refresh()
        #expect(first.snapshot.skins.values.allSatisfy { $0.versions.count == 1 })
        #expect(try await first.audit(since: nil, limit: 100).count == 5)
        await first.close()
        await second.close()
    }

    @Test func aDatabaseWithANewerSchemaIsRefused() async throws {
        let storage = try await PostgresStoreStorage()
        try await storage.openReplica().close()
        try await storage.server.psql(
            "INSERT INTO livery_schema_version (version) VALUES (99)", database: storage.database)
        let known = PostgresStoreSchema.migrations.last?.version ?? 0
        await #expect(throws: PostgresStoreError.schema(.databaseNewer(databaseVersion: 99, knownVersion: known))) {
            try await storage.openReplica()
        }
    }
}

/// An acknowledged change survives PostgreSQL being killed. (A suite of its own: it kills its server.)
@Suite(.postgresServer) struct PostgresCrashTests {
    @Test func anAcknowledgedChangeSurvivesSIGKILLOfPostgreSQL() async throws {
        let storage = try await PostgresStoreStorage()
        let store = try await storage.openReplica()
        try await store.addVersion(
            skinID: "spring", files: ReplicaTests.files(), metadata: ReplicaTests.metadata, expectedRevision: nil,
            release: ReplicaTests.plan(priority: 1), actor: ReplicaTests.actor)
        let acknowledged = store.snapshot

        try await storage.server.kill()
        await #expect(throws: StoreError.self) {
            try await store.setKillSwitch(
                app: nil, enabled: true, reason: "", expectedRevision: nil, actor: ReplicaTests.actor)
        }
        #expect(store.snapshot == acknowledged, "a failed change leaves the published snapshot as it was")
        await store.close()

        try await storage.server.start()
        let reopened = try await storage.openReplica("after-restart")
        #expect(reopened.snapshot == acknowledged)
        await reopened.close()
    }
}
