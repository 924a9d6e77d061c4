import Foundation
import PostgresClient
import PostgresSkinStore
import PostgresTestSupport
import SkinStore
import TestSupport
import Testing

/// `PostgresSkinStore.copy(from:into:)` (`livery migrate --from-data-dir`) moves a file store into PostgreSQL with its
/// history and audit log, once, and never over other data.
@Suite(.postgresServer) struct CopyFromFileStoreTests {
    /// A file store with history (in the scratch folder returned with it; keep that alive while using the store): versions, a release, a deleted skin, kill switches.
    static func fileStoreWithHistory() async throws -> (ScratchDirectory, FileSkinStore) {
        let folder = try ScratchDirectory(prefix: "livery-copy-source")
        let source = try FileSkinStore(directory: folder.path("store"))
        let actor = ReplicaTests.actor
        try await source.addVersion(
            skinID: "spring", files: ReplicaTests.files(1), metadata: ReplicaTests.metadata, actor: actor)
        try await source.addVersion(
            skinID: "spring", files: ReplicaTests.files(2), metadata: ReplicaTests.metadata, actor: actor)
        try await source.setRelease(skinID: "spring", version: 2, plan: ReplicaTests.plan(rollout: 5), actor: actor)
        try await source.addVersion(
            skinID: "autumn", files: ReplicaTests.files(3), metadata: ReplicaTests.metadata, actor: actor)
        try await source.deleteSkin(skinID: "autumn", actor: actor)
        try await source.setKillSwitch(app: "com.example.app", enabled: true, reason: "crash", actor: actor)
        try await source.setKillSwitch(app: nil, enabled: false, reason: "", actor: actor)
        return (folder, source)
    }

    @Test func copiesStateHistoryAndAuditOnceAndThenChangesNothing() async throws {
        let (folder, source) = try await Self.fileStoreWithHistory()
        defer { withExtendedLifetime(folder) {} }
        let storage = try await PostgresStoreStorage()
        let configuration = try storage.configuration

        #expect(try await PostgresSkinStore.copy(from: source, into: configuration) == .copied(revision: 7, reports: 0))
        let copy = try await storage.openReplica()
        #expect(copy.snapshot == source.snapshot, "skins, versions, releases, kill switches and deleted skins' numbers")
        #expect(try await copy.audit(since: nil, limit: 100) == source.audit(since: nil, limit: 100))
        #expect(
            try await copy.fileBytes(skinID: "spring", version: 1, path: "config.json")
                == ReplicaTests.files(1)["config.json"])
        // The copy goes on from the source's numbers: autumn comes back as version 2 at revision 8.
        let autumn = try await copy.addVersion(
            skinID: "autumn", files: ReplicaTests.files(4), metadata: ReplicaTests.metadata, expectedRevision: 5,
            release: nil, actor: ReplicaTests.actor)
        #expect(autumn.number == 2 && copy.snapshot.revision == 8)
        await copy.close()

        // Now the target differs from the source: another copy is refused, and nothing is written.
        await #expect(throws: PostgresStoreError.targetHoldsOtherData(revision: 8)) {
            try await PostgresSkinStore.copy(from: source, into: configuration)
        }
    }

    @Test func aSecondCopyOfTheSameStoreIsANoOp() async throws {
        let (folder, source) = try await Self.fileStoreWithHistory()
        defer { withExtendedLifetime(folder) {} }
        let storage = try await PostgresStoreStorage()
        let configuration = try storage.configuration
        #expect(try await PostgresSkinStore.copy(from: source, into: configuration) == .copied(revision: 7, reports: 0))
        #expect(
            try await PostgresSkinStore.copy(from: source, into: configuration)
                == .alreadyCopied(revision: 7, reports: 0))
        #expect(
            try await storage.server.psql("SELECT count(*) FROM livery_audit", database: storage.database)
                .trimmingCharacters(in: .whitespacesAndNewlines) == "7")
    }

    @Test func refusesATargetHoldingOtherData() async throws {
        let (folder, source) = try await Self.fileStoreWithHistory()
        defer { withExtendedLifetime(folder) {} }
        let storage = try await PostgresStoreStorage()
        let other = try await storage.openReplica()
        try await other.setKillSwitch(
            app: nil, enabled: true, reason: "other", expectedRevision: nil, actor: ReplicaTests.actor)
        await other.close()
        await #expect(throws: PostgresStoreError.targetHoldsOtherData(revision: 1)) {
            try await PostgresSkinStore.copy(from: source, into: try storage.configuration)
        }
        let after = try await storage.openReplica("after")
        #expect(after.snapshot.revision == 1 && after.snapshot.skins.isEmpty)
        await after.close()
    }

    /// Reports move with their secret: the copied figures are the source's, a device that reported before counts
    /// once however it reports through PostgreSQL, and a copy made before reports were copied gets them at the next
    /// run.
    @Test func phonesReportsAndTheirSecretAreCopiedSoDevicesStillCountOnce() async throws {
        let (folder, source) = try await Self.fileStoreWithHistory()
        defer { withExtendedLifetime(folder) {} }
        let reported = (0..<12).map { index in
            LedgerReport(
                sign: "sign-\(index % 3)", skinID: "spring", version: 2, variant: "@3x-light", platform: "ios",
                appVersion: "7.2.0", deviceID: "phone-\(index)", outcome: index % 4 == 0 ? .failed : .applied,
                stage: .unpack, at: Date(timeIntervalSince1970: 1_800_000_000))
        }
        #expect(try await source.reports.record(reported).count == 12)
        let storage = try await PostgresStoreStorage()
        let configuration = try storage.configuration
        #expect(
            try await PostgresSkinStore.copy(from: source, into: configuration) == .copied(revision: 7, reports: 12))
        let copy = try await storage.openReplica()
        let tallies = try await copy.reports.tallies(skinID: "spring")
        #expect(Set(tallies) == Set(try await source.reports.tallies(skinID: "spring")))
        let exported = try await copy.reports.exportAll()
        let original = try await source.reports.exportAll()
        #expect(exported.secret == original.secret)
        #expect(Set(exported.reports) == Set(original.reports))
        #expect(try await copy.reports.record(reported).isEmpty, "the same devices count once, through PostgreSQL too")
        await copy.close()

        // One more report in the file store after the copy: the next copy adds it, and only it.
        #expect(
            try await source.reports.record(
                [reported[0]].map {
                    var more = $0; more.deviceID = "late"; return more
                }
            ).count == 1)
        #expect(
            try await PostgresSkinStore.copy(from: source, into: configuration)
                == .alreadyCopied(revision: 7, reports: 1))
        #expect(
            try await storage.server.psql("SELECT count(*) FROM livery_reports", database: storage.database)
                .trimmingCharacters(in: .whitespacesAndNewlines) == "13")
    }
}
