import Foundation
import HTTPTestSupport
import LiveryJSON
import SkinModel
import SkinStore
import TestSupport
import Testing

@testable import LiveryServer
@testable import SkinServing

/// The store as the source of truth: the first-start import, its crash-safe resumption, and catalogs rebuilt from
/// the store after a restart.
@Suite struct StoreImportTests {
    @Test func theFirstStartImportsEachSampleAsVersionOneReleasedAsItsSkinJSONSays() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026", "spring-festival-2027"])
        defer { harness.removeFiles() }
        let snapshot = harness.store.snapshot
        #expect(snapshot.skinIDs == ["christmas-2026", "spring-festival-2027"])
        for id in snapshot.skinIDs {
            let skin = try #require(snapshot.skins[id])
            #expect(skin.versions.map(\.number) == [1])
            #expect(skin.versions[0].actor == SkinImporter.actor)
            let release = try #require(skin.release)
            #expect(release.version == 1)
            let manifest = try JSONValue.parse(
                Array(try Data(contentsOf: URL(fileURLWithPath: harness.root + "/skins/\(id)/skin.json"))))
            let written = try #require(manifest.objectValue?["release"])
            let expected = try #require(ReleasePlan.parse(written).value)
            #expect(try CatalogBuilder.plan(of: release) == expected)
        }
        #expect(FileManager.default.fileExists(atPath: harness.dataDirectory + "/" + SkinImporter.markerName))
        #expect(try await harness.poll()["skinId"] as? String == "christmas-2026")
        await harness.stop()
    }

    @Test func invalidFoldersAreLeftOutAndTheRestImported() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        let root = scratch.path
        try LiveryHarness.makeSkins(in: root, sample: "christmas-2026")
        try FileManager.default.createDirectory(atPath: root + "/skins/broken", withIntermediateDirectories: true)
        try Data(#"{"id": "broken", "title": "Broken", "app": "demo"}"#.utf8).write(
            to: URL(fileURLWithPath: root + "/skins/broken/skin.json"))
        let capture = LogCapture()
        let harness = try await LiveryHarness(root: root, logger: capture.logger)
        #expect(harness.store.snapshot.skinIDs == ["christmas-2026"])
        #expect(capture.lines.contains { $0.contains("skin not imported: invalid") && $0.contains("broken") })
        await harness.stop()
    }

    @Test func laterStartsNeverImportAgain() async throws {
        let first = try await LiveryHarness(samples: ["christmas-2026"])
        defer { first.removeFiles() }
        #expect(try await first.request("DELETE", "/admin/v1/skins/christmas-2026?force=true").status == 200)
        await first.stop()
        // A new folder and the deleted one are both in the skins folder at the next start: neither comes in.
        try LiveryHarness.makeSkins(in: first.root, sample: "double-11-2026")
        let second = try await LiveryHarness(root: first.root)
        #expect(second.store.snapshot.skinIDs == [])
        await second.stop()
    }

    @Test func anInterruptedImportResumesWithoutDuplicating() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        let root = scratch.path
        try LiveryHarness.makeSkins(in: root, sample: "christmas-2026")
        try LiveryHarness.makeSkins(in: root, sample: "double-11-2026")
        // A crash after the first skin's commit: the store holds it, the marker is missing.
        let store = try FileSkinStore(directory: root + "/data/store")
        try await store.addVersion(
            skinID: "christmas-2026", files: ["skin.json": Array("{}".utf8)],
            metadata: VersionMetadata(source: "import"),
            expectedRevision: 0, release: ReleasePlan(startsAt: Date(), endsAt: Date().addingTimeInterval(3600)),
            actor: SkinImporter.actor)
        store.close()

        let harness = try await LiveryHarness(root: root)
        let snapshot = harness.store.snapshot
        #expect(snapshot.skinIDs == ["christmas-2026", "double-11-2026"])
        #expect(snapshot.skins["christmas-2026"]?.versions.count == 1, "the imported skin is not imported twice")
        #expect(snapshot.skins["double-11-2026"]?.versions.first?.actor == SkinImporter.actor)
        #expect(FileManager.default.fileExists(atPath: root + "/data/" + SkinImporter.markerName))
        await harness.stop()
    }

    @Test func aLoadCancelledWhileStartingStopsAndTheNextStartImportsAndServesEverything() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        let root = scratch.path
        try LiveryHarness.makeSkins(in: root, sample: "christmas-2026")
        try LiveryHarness.makeSkins(in: root, sample: "double-11-2026")
        var configuration = LiveryService.Configuration()
        configuration.skinsDirectory = root + "/skins"
        configuration.dataDirectory = root + "/data"
        let service = try LiveryService(configuration: configuration, logger: LiveryHarness.quiet)
        // SIGTERM during the first start: the load's task is cancelled before its first skin.
        try await Self.expectStoppedWhenCancelledAtOnce(service)
        #expect(!service.isReady)
        #expect(try #require(service.fileStore).snapshot.skinIDs == [])
        #expect(!FileManager.default.fileExists(atPath: root + "/data/" + SkinImporter.markerName))
        service.close()

        let harness = try await LiveryHarness(root: root)
        #expect(harness.store.snapshot.skinIDs == ["christmas-2026", "double-11-2026"])
        #expect(FileManager.default.fileExists(atPath: root + "/data/" + SkinImporter.markerName))
        #expect(try await harness.poll()["skinId"] as? String == "christmas-2026")
        await harness.stop()
    }

    @Test func aLoadCancelledAfterTheImportBuildsNoCatalogAndTheNextLoadServes() async throws {
        let first = try await LiveryHarness(samples: ["christmas-2026"])
        defer { first.removeFiles() }
        await first.stop()
        var configuration = LiveryService.Configuration()
        configuration.skinsDirectory = first.root + "/skins"
        configuration.dataDirectory = first.root + "/data"
        let service = try LiveryService(configuration: configuration, logger: LiveryHarness.quiet)
        try await Self.expectStoppedWhenCancelledAtOnce(service)
        #expect(!service.isReady, "never ready with a catalog that was not built")
        try await service.loadCatalog()
        #expect(service.isReady)
        service.close()
    }

    /// Runs `service.loadCatalog()` in a task cancelled before it starts (a server told to stop while loading) and
    /// expects it to throw `.stopped`.
    static func expectStoppedWhenCancelledAtOnce(_ service: LiveryService) async throws {
        let outcome = await Task { () async -> LiveryServiceError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(LiveryServiceError) {
                try await service.loadCatalog()
                return nil
            } catch {
                return error
            }
        }.value
        guard case .stopped = try #require(outcome, "the load ended although its task was cancelled") else {
            Issue.record("expected .stopped, got \(String(describing: outcome))")
            return
        }
    }

    @Test func aStoreChangedByAnOperatorIsNeverSeeded() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        let root = scratch.path
        try LiveryHarness.makeSkins(in: root, sample: "christmas-2026")
        let store = try FileSkinStore(directory: root + "/data/store")
        try await store.setKillSwitch(app: nil, enabled: false, reason: "", actor: "ops")
        store.close()
        let harness = try await LiveryHarness(root: root)
        #expect(harness.store.snapshot.skinIDs == [])
        await harness.stop()
    }

    @Test func aRestartServesWhatTheStoreHoldsWithoutRebuildingPackages() async throws {
        let first = try await LiveryHarness()
        defer { first.removeFiles() }
        let upload = try await first.uploadTiny(marker: "kept")
        try await first.release("tiny", #""rollout": 100"#)
        _ = try await first.send("PUT", "/admin/v1/killswitch?force=true", json: #"{"app": "other", "enabled": true}"#)
        let sign = try await first.poll()["skinSign"] as? String
        #expect(sign == AdminReleaseTests.standardSign(upload))
        await first.stop()

        let second = try await LiveryHarness(root: first.root)
        #expect(try await second.poll()["skinSign"] as? String == sign)
        #expect(await second.service.client.cache.buildCount == 0)
        #expect(second.service.client.current.killSwitch.apps == ["other"])
        await second.stop()
    }
}
