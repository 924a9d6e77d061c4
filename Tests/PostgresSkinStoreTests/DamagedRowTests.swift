import Foundation
import LiveryJSON
import PostgresClient
import PostgresSkinStore
import PostgresTestSupport
import SkinModel
import SkinStore
import Testing

/// Damage stays with its version: a version whose metadata blob row is damaged or gone, or whose file rows were
/// changed behind Livery's back (its digest no longer matches its file list), is loaded marked damaged, and the
/// store opens, refreshes and takes every other change. Damage to the store-wide revision row still stops the open,
/// naming the row.
@Suite(.postgresServer) struct DamagedRowTests {
    static let actor = "ops-alice"

    /// A store holding skins `spring` (two versions, the second released) and `autumn` (one version).
    static func seeded(_ storage: PostgresStoreStorage) async throws -> (PostgresSkinStore, [SkinVersion]) {
        let store = try await storage.openReplica("a")
        var versions: [SkinVersion] = []
        for (skin, variant) in [("spring", 1), ("spring", 2), ("autumn", 3)] {
            versions.append(
                try await store.addVersion(
                    skinID: skin, files: ReplicaTests.files(variant),
                    metadata: VersionMetadata(
                        folder: "\(variant)", skin: JSONObject([.init(key: "id", value: .string(skin))])),
                    expectedRevision: nil,
                    release: nil, actor: Self.actor))
        }
        try await store.setRelease(
            skinID: "spring", version: 2, plan: ReplicaTests.plan(), expectedRevision: nil, actor: Self.actor,
            action: "release.set")
        return (store, versions)
    }

    @Test(arguments: ["metadata bytes", "metadata row", "file row"])
    func aDamagedRowDamagesOnlyItsVersionAndEveryOtherChangeGoesOn(damage: String) async throws {
        let storage = try await PostgresStoreStorage()
        let (writer, versions) = try await Self.seeded(storage)
        let spring1 = versions[0]
        let sql: String =
            switch damage {
            case "metadata bytes":
                "UPDATE livery_blobs SET bytes = set_byte(bytes, 1, get_byte(bytes, 1) # 1) WHERE sha256 = '\(spring1.metadataDigest)'"
            case "metadata row":
                "DELETE FROM livery_blobs WHERE sha256 = '\(spring1.metadataDigest)'"
            default:
                "UPDATE livery_version_files SET size = size + 1 WHERE skin_id = 'spring' AND number = 1 AND path = 'config.json'"
            }
        // As a hand edit must: with the store revision bumped (foreign keys off, as a careless edit may have them).
        try await storage.server.psql(
            "SET session_replication_role = replica; \(sql); UPDATE livery_store SET revision = revision + 1",
            database: storage.database)

        // A replica opening now, and one that was open and refreshes, both load the store with spring v1 damaged.
        let fresh = try await storage.openReplica("b")
        #expect(try await writer.refresh())
        for store in [fresh, writer] {
            let snapshot = store.snapshot
            let reason = try #require(snapshot.skins["spring"]?.version(1)?.damage, "\(damage)")
            #expect(reason.contains("spring v1"), "\(reason)")
            #expect(snapshot.damagedVersions.map { "\($0.skinID) v\($0.number)" } == ["spring v1"])
            #expect(
                snapshot.skins["spring"]?.version(2) == versions[1]
                    && snapshot.skins["autumn"]?.version(1) == versions[2])
        }
        // The kill switch first, then every other change, on either replica.
        try await fresh.setKillSwitch(
            app: nil, enabled: true, reason: "incident", expectedRevision: nil, actor: Self.actor)
        try await writer.setRelease(
            skinID: "autumn", version: 1, plan: ReplicaTests.plan(), expectedRevision: nil, actor: Self.actor,
            action: "release.set")
        let added = try await fresh.addVersion(
            skinID: "spring", files: ReplicaTests.files(1),
            metadata: VersionMetadata(folder: "9", skin: JSONObject([.init(key: "id", value: "spring")])),
            expectedRevision: nil, release: nil, actor: Self.actor)
        #expect(added.number == 3 && added.damage == nil)
        try await writer.clearRelease(skinID: "spring", expectedRevision: nil, actor: Self.actor)
        // The damaged version itself is refused, naming it.
        let refused = await ReplicaTests.attempt { () async throws(StoreError) in
            try await writer.setRelease(
                skinID: "spring", version: 1, plan: ReplicaTests.plan(), expectedRevision: nil, actor: Self.actor,
                action: "release.set")
        }
        guard case .failure(.damagedVersion(let skin, let version, _)) = refused else {
            Issue.record("expected damagedVersion, got \(refused)")
            return
        }
        #expect(skin == "spring" && version == 1)
        #expect(
            try await writer.fileBytes(skinID: "spring", version: 2, path: "config.json")
                == ReplicaTests.files(2)["config.json"])
        await fresh.close()
        await writer.close()
    }

    /// A release document changed behind Livery's back into something that is not a release plan loads as a
    /// damaged release of its skin: kept as stored (its version, its bytes), never a plan, and every other change
    /// goes on; a new release of the skin replaces it.
    @Test func aReleaseDocumentThatIsNotAPlanIsKeptAsADamagedRelease() async throws {
        let storage = try await PostgresStoreStorage()
        let (writer, versions) = try await Self.seeded(storage)
        try await storage.server.psql(
            #"UPDATE livery_releases SET document = convert_to('{"rollout":"all"}', 'UTF8') WHERE skin_id = 'spring'; "#
                + "UPDATE livery_store SET revision = revision + 1",
            database: storage.database)

        let fresh = try await storage.openReplica("b")
        #expect(try await writer.refresh())
        for store in [fresh, writer] {
            let release = try #require(store.snapshot.skins["spring"]?.release)
            #expect(release.version == 2 && release.plan == nil && release.actor == Self.actor)
            #expect(release.damage?.contains("rollout") == true, "\(release.damage ?? "sound")")
            #expect(store.snapshot.skins["spring"]?.versions == Array(versions[0...1]))
            #expect(store.snapshot.damagedVersions.isEmpty, "the versions themselves are sound")
        }
        try await fresh.setKillSwitch(
            app: nil, enabled: true, reason: "incident", expectedRevision: nil, actor: Self.actor)
        try await writer.setRelease(
            skinID: "autumn", version: 1, plan: ReplicaTests.plan(), expectedRevision: nil, actor: Self.actor,
            action: "release.set")
        let later = try await storage.openReplica("c")
        #expect(later.snapshot.skins["spring"]?.release == fresh.snapshot.skins["spring"]?.release)
        let replaced = try await writer.setRelease(
            skinID: "spring", version: 1, plan: ReplicaTests.plan(rollout: 5), expectedRevision: nil,
            actor: Self.actor, action: "release.set")
        #expect(replaced.release?.plan == ReplicaTests.plan(rollout: 5) && replaced.release?.damage == nil)
        for store in [later, fresh, writer] { await store.close() }
    }

    @Test func aMissingOrBehindRevisionRowStillStopsTheOpenNamingIt() async throws {
        let storage = try await PostgresStoreStorage()
        let (store, _) = try await Self.seeded(storage)
        await store.close()
        try await storage.server.psql("UPDATE livery_store SET revision = 1", database: storage.database)
        await #expect(
            performing: { try await storage.openReplica("b") },
            throws: { error in
                guard case .store(.corruptFile(let path, let reason)) = error as? PostgresStoreError else {
                    return false
                }
                return path == "livery_store row" && reason.contains("behind skin")
            })
        try await storage.server.psql("DELETE FROM livery_store", database: storage.database)
        await #expect(
            performing: { try await storage.openReplica("c") },
            throws: { error in
                guard case .store(.corruptFile(let path, let reason)) = error as? PostgresStoreError else {
                    return false
                }
                return path == "livery_store row" && reason.contains("missing")
            })
    }
}
