import Foundation
import LiveryCrypto
import SkinStore
import Synchronization
import TestSupport
import Testing

@Suite("Persistence and recovery")
struct PersistenceTests {
    @Test func emptyOrMissingDirectoryOpensAsAnEmptyStore() async throws {
        let directory = try ScratchDirectory.forStore()
        let nested = try ScratchDirectory.forStore()
        for path in [directory.path, nested.path + "/data/store"] {
            let store = try FileSkinStore(directory: path)
            #expect(store.snapshot.revision == 0)
            #expect(store.snapshot.skins.isEmpty)
            #expect(store.snapshot.killSwitches == .none)
            #expect(store.audit().isEmpty)
            #expect(store.directory == path)
        }
    }

    @Test func everythingSurvivesReopening() async throws {
        let directory = try ScratchDirectory.forStore()
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000.98765))
        var store = try directory.open(clock: clock)
        try await Make.versions(3, in: store)
        try await Make.versions(1, of: "winter", in: store)
        try await Make.versions(1, of: "gone", in: store)
        try await store.deleteSkin(skinID: "gone", actor: Make.actor)
        clock.advance(seconds: 0.0005)
        try await store.setRelease(
            skinID: "spring", version: 2, plan: Make.plan(rollout: 30), actor: "bob")
        try await store.setKillSwitch(app: nil, enabled: false, reason: "test", actor: "carol")
        try await store.setKillSwitch(app: "news", enabled: true, reason: "outage", actor: "carol")
        let snapshot = store.snapshot
        let audit = store.audit(limit: 1000)
        store.close()

        store = try directory.open(clock: clock)
        #expect(store.snapshot == snapshot)
        #expect(store.audit(limit: 1000) == audit)
        #expect(
            try await store.fileBytes(skinID: "winter", version: 1, path: "images/icon.png")
                == Make.files()["images/icon.png"])
        #expect(store.snapshot.revision(ofSkin: "gone") == snapshot.revision(ofSkin: "gone"))
        #expect(try await Make.versions(1, of: "gone", in: store).first?.number == 2)
    }

    @Test func removesLeftoverTemporaryFiles() async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        let version = try await store.addVersion(
            skinID: "spring", files: Make.files(), metadata: Make.metadata(), actor: Make.actor)
        store.close()
        let blobDirectory = directory.path + "/blobs/" + version.files[0].sha256.prefix(2)
        let leftovers = [
            directory.path + "/.tmp-state", blobDirectory + "/.tmp-half-a-blob", directory.path + "/blobs/.tmp-x"
        ]
        for path in leftovers { try Disk.write([1, 2, 3], to: path) }

        store = try directory.open()
        for path in leftovers { #expect(!Disk.exists(path)) }
        #expect(store.snapshot.skins["spring"]?.versions == [version])
    }

    @Test(
        arguments: [
            ("garbage", Array("not json at all".utf8)),
            ("empty", []),
            ("truncated", nil),
            (
                "future format",
                Array(#"{"format":99,"revision":0,"skins":[],"killSwitches":{"revision":0,"apps":[]}}"#.utf8)
            ),
            (
                "dangling release",
                Array(
                    #"{"format":1,"revision":1,"skins":[{"id":"a","revision":1,"lastVersion":1,"deleted":false,"versions":[],"release":{"version":1,"document":"e30=","releasedAt":0,"actor":"x"}}],"killSwitches":{"revision":0,"apps":[]}}"#
                        .utf8)
            )
        ] as [(String, [UInt8]?)])
    func refusesACorruptStateFileNamingIt(label: String, content: [UInt8]?) async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try await Make.versions(2, in: store)
        store.close()
        let statePath = directory.path + "/state.json"
        let state = try Disk.read(statePath)
        try Disk.write(content ?? Array(state.prefix(state.count / 2)), to: statePath)

        #expect {
            try directory.open()
        } throws: { error in
            (error as? StoreError)?.isCorruptFile(endingWith: "/state.json") == true
        }
        // Nothing was reset: the damaged file is still there for the operator.
        #expect(try Disk.read(statePath) == content ?? Array(state.prefix(state.count / 2)))
        store = try {
            try Disk.write(state, to: statePath); return try directory.open()
        }()
        #expect(store.snapshot.revision == 2)
    }

    @Test func refusesAStateWhoseFileListWasTamperedWith() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let version = try await Make.versions(1, in: store)[0]
        store.close()
        let statePath = directory.path + "/state.json"
        let text = String(decoding: try Disk.read(statePath), as: UTF8.self)
        let tampered = text.replacingOccurrences(of: version.files[0].sha256, with: String(repeating: "0", count: 64))
        try Disk.write(Array(tampered.utf8), to: statePath)
        #expect { try directory.open() } throws: {
            ($0 as? StoreError)?.isCorruptFile(endingWith: "/state.json") == true
        }
    }

    /// A missing or damaged metadata blob damages its version only: the store opens, that version is marked (and
    /// its number kept), every other version reads as before, and changes go on (a kill switch, a new version)
    /// without losing the damaged version's record, so restoring the blob heals it.
    @Test func aMissingOrDamagedMetadataBlobDamagesOnlyItsVersion() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let versions = try await Make.versions(2, in: store)
        let blob = try store.blobPath(digest: versions[0].metadataDigest)
        let original = try Disk.read(blob)
        store.close()

        for damage in ["changed", "removed"] {
            if damage == "changed" {
                try Disk.write(Array("{}".utf8), to: blob)
            } else {
                try FileManager.default.removeItem(atPath: blob)
            }
            let reopened = try directory.open()
            let skin = try #require(reopened.snapshot.skins["spring"])
            let reason = try #require(skin.version(1)?.damage, "\(damage)")
            #expect(reason.contains("spring v1") && reason.contains(versions[0].metadataDigest), "\(reason)")
            #expect(skin.version(1)?.metadata == VersionMetadata() && skin.version(2) == versions[1])
            #expect(reopened.snapshot.damagedVersions.map(\.number) == [1])
            try await reopened.setKillSwitch(
                app: nil, enabled: damage == "changed", reason: "incident", actor: Make.actor)
            reopened.close()
        }
        // Restored, the blob heals its version: the record was kept through the changes above.
        try Disk.write(original, to: blob)
        let healed = try directory.open()
        #expect(healed.snapshot.damagedVersions.isEmpty && healed.snapshot.skins["spring"]?.version(1) == versions[0])
        let added = try await healed.addVersion(
            skinID: "spring", files: Make.files(variant: 9), metadata: Make.metadata("9"), actor: Make.actor)
        #expect(added.number == 3)
        healed.close()
    }

    @Test func oneStoreAtATimePerDirectory() async throws {
        let directory = try ScratchDirectory.forStore()
        let first = try directory.open()
        #expect(throws: StoreError.locked(path: directory.path)) { try directory.open() }
        first.close()
        let second = try directory.open()
        #expect(second.snapshot.revision == 0)
    }

    @Test func closedStoreRefusesChangesButStillReads() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try await Make.versions(1, in: store)
        store.close()
        store.close()
        await #expect(throws: StoreError.closed) {
            try await store.setKillSwitch(app: nil, enabled: true, reason: "", actor: Make.actor)
        }
        await #expect(throws: StoreError.closed) { try await Make.versions(1, in: store) }
        #expect(store.snapshot.revision == 1)
        #expect(
            try await store.fileBytes(skinID: "spring", version: 1, path: "config.json") == Make.files()["config.json"])
    }

    @Test func notifiesEachCommittedSnapshotInOrder() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let seen = Mutex<[Int]>([])
        store.onChange = { snapshot in seen.withLock { $0.append(snapshot.revision) } }
        try await Make.versions(1, in: store)
        try await store.clearRelease(skinID: "spring", actor: Make.actor)  // no change: no notification
        await #expect(throws: StoreError.self) { try await store.deleteSkin(skinID: "nope", actor: Make.actor) }
        try await store.setKillSwitch(app: nil, enabled: true, reason: "", actor: Make.actor)
        #expect(seen.withLock { $0 } == [1, 2])
        store.onChange = nil
        try await store.setKillSwitch(app: nil, enabled: false, reason: "", actor: Make.actor)
        #expect(seen.withLock { $0 } == [1, 2])
    }

    @Test func heldSnapshotsNeverChange() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try await Make.versions(1, in: store)
        let held = store.snapshot
        try await store.setRelease(skinID: "spring", version: 1, plan: Make.plan(), actor: Make.actor)
        try await store.deleteSkin(skinID: "spring", force: true, actor: Make.actor)
        #expect(held.revision == 1)
        #expect(held.skins["spring"]?.release == nil)
        // Its files stay readable by digest after the skin is gone.
        let file = try #require(held.skins["spring"]?.versions[0].files[0])
        #expect(try Disk.read(try store.blobPath(digest: file.sha256)).count == file.size)
    }

    @Test func verifyFindsDamagedAndMissingBlobs() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let version = try await Make.versions(1, in: store)[0]
        var report = try store.verify()
        #expect(report.isHealthy)
        #expect(report.checkedBlobs == 4)

        let damaged = try store.blobPath(digest: version.files[0].sha256)
        try Disk.write([0], to: damaged)
        let missingDigest = version.files[1].sha256
        try FileManager.default.removeItem(atPath: try store.blobPath(digest: missingDigest))
        report = try store.verify()
        #expect(report.corruptBlobs == [damaged])
        #expect(Set(report.missingBlobs) == [missingDigest, version.files[0].sha256])
        #expect(!report.isHealthy)
        await #expect {
            try await store.fileBytes(skinID: "spring", version: 1, path: version.files[1].path)
        } throws: { ($0 as? StoreError)?.isCorruptFile(endingWith: String(missingDigest.dropFirst(2))) == true }
    }

    @Test func aChangeThatFailsBeforeItsCommitLeavesNoTrace() async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try await store.setKillSwitch(app: nil, enabled: true, reason: "one", actor: Make.actor)
        let before = store.snapshot
        // A directory where state.json belongs makes the commit's rename fail after the audit line is written.
        let statePath = directory.path + "/state.json"
        let saved = try Disk.read(statePath)
        try FileManager.default.removeItem(atPath: statePath)
        try FileManager.default.createDirectory(atPath: statePath, withIntermediateDirectories: false)
        await #expect {
            try await store.setKillSwitch(
                app: nil, enabled: false, reason: "a longer reason than the next change has", actor: Make.actor)
        } throws: { error in
            if case .io(let operation, _, _) = error as? StoreError { return operation == "rename" }
            return false
        }
        #expect(store.snapshot == before)
        #expect(store.audit().count == 1)

        try FileManager.default.removeItem(atPath: statePath)
        try Disk.write(saved, to: statePath)
        try await store.setKillSwitch(app: nil, enabled: false, reason: "two", actor: Make.actor)
        #expect(Self.temporaryFileCount(in: directory.path) == 0)
        store.close()
        store = try directory.open()
        #expect(store.snapshot.revision == 2)
        #expect(store.audit().map(\.reason) == ["one", "two"])
    }

    static func temporaryFileCount(in directory: String) -> Int {
        Disk.list(directory).filter { $0.hasPrefix(".tmp-") }.count
    }

    @Test func strayFileAmongBlobDirectoriesIsReportedNotFatal() async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try await Make.versions(1, in: store)
        store.close()
        let stray = directory.path + "/blobs/README"
        try Disk.write(Array("hello".utf8), to: stray)
        store = try directory.open()
        #expect(store.snapshot.revision == 1)
        #expect(try store.verify().corruptBlobs == [stray])
    }

    @Test func rewritesABlobFoundWithTheWrongSize() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let bytes = [UInt8](repeating: 5, count: 1000)
        let digest = SHA256.hexHash(bytes)
        try await store.addVersion(skinID: "a", files: ["f": bytes], metadata: Make.metadata(), actor: Make.actor)
        try Disk.write(Array(bytes.prefix(10)), to: try store.blobPath(digest: digest))
        try await store.addVersion(skinID: "b", files: ["f": bytes], metadata: Make.metadata(), actor: Make.actor)
        #expect(try await store.fileBytes(skinID: "a", version: 1, path: "f") == bytes)
    }
}
