import Foundation
import LiveryCrypto
import SkinStore
import TestSupport
import Testing

/// Bytes damaged on disk are found where they are read, and a store that lost its state record does not open
/// empty over the data it still holds.
@Suite struct StoreIntegrityTests {
    @Test func aNewStoreWritesItsStateRecordAtOnce() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect(Disk.exists(directory.path + "/state.json"))
        #expect(store.snapshot.revision == 0)
    }

    @Test func refusesToOpenEmptyOverBlobsWhenTheStateRecordIsGone() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try await Make.versions(1, in: store)
        store.close()
        try FileManager.default.removeItem(atPath: directory.path + "/state.json")
        // The audit log goes too: the blobs alone must be enough to refuse.
        try FileManager.default.removeItem(atPath: directory.path + "/audit.log")

        #expect { try directory.open() } throws: {
            ($0 as? StoreError)?.isCorruptFile(endingWith: "/state.json") == true
        }
        #expect(!Disk.exists(directory.path + "/state.json"), "nothing was written over the remains")
    }

    enum Damage: String, CaseIterable {
        case flipInPlace, truncate, remove
    }

    @Test(arguments: Damage.allCases)
    func aDamagedBlobIsRefusedWhereItIsReadNamingIt(damage: Damage) async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let version = try await Make.versions(1, in: store)[0]
        let file = try #require(version.file(at: "images/background.png"))
        let blob = try store.blobPath(digest: file.sha256)
        #expect(try await store.verifiedFilePath(of: file, skinID: "spring", version: 1) == blob)

        var bytes = try Disk.read(blob)
        switch damage {
        case .flipInPlace:
            bytes[10] ^= 0x01
            try Disk.write(bytes, to: blob)
        case .truncate: try Disk.write(Array(bytes.prefix(3)), to: blob)
        case .remove: try FileManager.default.removeItem(atPath: blob)
        }

        await #expect {
            try await store.verifiedFilePath(of: file, skinID: "spring", version: 1)
        } throws: { error in
            guard case .corruptFile(let path, let reason) = error as? StoreError else { return false }
            return path == blob && reason.contains("spring v1 images/background.png")
        }
        await #expect {
            try await store.fileBytes(skinID: "spring", version: 1, path: "images/background.png")
        } throws: {
            ($0 as? StoreError)?.isCorruptFile(endingWith: String(file.sha256.dropFirst(2))) == true
        }
    }
}
