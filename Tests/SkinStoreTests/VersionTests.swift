import Foundation
import LiveryCrypto
import SkinStore
import TestSupport
import Testing

/// Where a version's bytes lie on disk: one blob per distinct content under `blobs/`, named by its SHA-256. (What a
/// version holds and what every store refuses is in the conformance suite.)
@Suite("Skin versions on disk")
struct VersionTests {
    @Test func eachFileIsABlobNamedByItsDigest() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let files = Make.files()
        let version = try await store.addVersion(
            skinID: "spring", files: files, metadata: Make.metadata(), actor: Make.actor)
        for (path, bytes) in files {
            let blob = try store.blobPath(skinID: "spring", version: 1, path: path)
            #expect(blob.hasPrefix("/"))
            #expect(try Disk.read(blob) == bytes)
            let digest = try #require(version.file(at: path)?.sha256)
            #expect(blob == directory.path + "/blobs/" + digest.prefix(2) + "/" + digest.dropFirst(2))
            #expect(try store.blobPath(digest: digest) == blob)
        }
        #expect(throws: StoreError.unknownFile(skinID: "spring", version: 1, path: "nope.png")) {
            try store.blobPath(skinID: "spring", version: 1, path: "nope.png")
        }
    }

    @Test func storesIdenticalContentOnce() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let shared = [UInt8](repeating: 42, count: 5000)
        try await store.addVersion(
            skinID: "a", files: ["x.png": shared, "y.png": shared], metadata: Make.metadata(), actor: Make.actor)
        try await store.addVersion(skinID: "b", files: ["z.png": shared], metadata: Make.metadata(), actor: Make.actor)

        let blobFiles = Disk.list(directory.path + "/blobs").flatMap { prefix in
            Disk.list(directory.path + "/blobs/" + prefix).map { prefix + $0 }
        }
        #expect(Set(blobFiles) == [SHA256.hexHash(shared), SHA256.hexHash(Make.metadata().encoded())])
        #expect(blobFiles.count == 2)
    }

    @Test func aRefusedVersionWritesNoBlob() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        await #expect(throws: StoreError.invalidName("..", reason: "is ..")) {
            try await store.addVersion(skinID: "..", files: Make.files(), metadata: Make.metadata(), actor: Make.actor)
        }
        #expect(store.snapshot.revision == 0)
        #expect(Disk.list(directory.path + "/blobs").isEmpty)
    }

    @Test(arguments: [
        "", "abc", String(repeating: "A", count: 64), String(repeating: "g", count: 64),
        "../" + String(repeating: "a", count: 61)
    ])
    func rejectsMalformedDigests(digest: String) throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect(throws: StoreError.invalidDigest(digest)) { try store.blobPath(digest: digest) }
    }
}

@Suite("Store errors")
struct StoreErrorTests {
    @Test func descriptionsNeutralizeControlCharactersAndNameSystemErrors() {
        #expect(StoreError.unknownSkin("evil\nINFO forged").description == #"no skin "evil?INFO forged""#)
        #expect(
            StoreError.io(operation: "fsync", path: "/data/state.json", errno: ENOSPC).description
                .hasPrefix("fsync /data/state.json: No space left on device"))
    }
}
