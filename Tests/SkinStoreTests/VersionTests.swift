import Foundation
import LiveryCrypto
import SkinStore
import Testing
import TestSupport

@Suite("Skin versions")
struct VersionTests {
    @Test func firstVersionIsNumberOneWithSortedFilesDigestsAndMetadata() throws {
        let directory = try ScratchDirectory.forStore()
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000.1239))
        let store = try directory.open(clock: clock)
        let files = Make.files()
        let version = try store.addVersion(skinID: "spring", files: files, metadata: Make.metadata(), actor: "alice")

        #expect(version.number == 1)
        #expect(version.skinID == "spring")
        #expect(version.actor == "alice")
        #expect(version.createdAt == Date(timeIntervalSince1970: 1_800_000_000.123))
        #expect(version.files.map(\.path) == ["config.json", "images/background.png", "images/icon.png"])
        for file in version.files {
            let bytes = try #require(files[file.path])
            #expect(file.size == bytes.count)
            #expect(file.sha256 == SHA256.hexHash(bytes))
        }
        #expect(version.metadata == Make.metadata())
        #expect(version.metadataDigest == SHA256.hexHash(Make.metadata()))
        #expect(version.digest == SkinVersion.digest(files: version.files, metadataDigest: version.metadataDigest))

        let snapshot = store.snapshot
        #expect(snapshot.revision == 1)
        #expect(snapshot.skinIDs == ["spring"])
        let skin = try #require(snapshot.skins["spring"])
        #expect(skin.revision == 1)
        #expect(skin.versions == [version])
        #expect(skin.release == nil)
        #expect(skin.version(1) == version)
        #expect(skin.version(2) == nil)
    }

    @Test func numbersVersionsConsecutivelyPerSkin() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let spring = try Make.versions(3, of: "spring", in: store)
        let winter = try Make.versions(1, of: "winter", in: store)
        #expect(spring.map(\.number) == [1, 2, 3])
        #expect(winter.map(\.number) == [1])
        #expect(store.snapshot.skins["spring"]?.latestVersion?.number == 3)
        #expect(store.snapshot.revision == 4)
    }

    @Test func readsBackFileBytesAndBlobPaths() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let files = Make.files()
        let version = try store.addVersion(skinID: "spring", files: files, metadata: Make.metadata(), actor: Make.actor)
        for (path, bytes) in files {
            #expect(try store.fileBytes(skinID: "spring", version: 1, path: path) == bytes)
            let blob = try store.blobPath(skinID: "spring", version: 1, path: path)
            #expect(blob.hasPrefix("/"))
            #expect(try Disk.read(blob) == bytes)
            let digest = try #require(version.file(at: path)?.sha256)
            #expect(blob == directory.path + "/blobs/" + digest.prefix(2) + "/" + digest.dropFirst(2))
            #expect(try store.blobPath(digest: digest) == blob)
        }
    }

    @Test func storesIdenticalContentOnce() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let shared = [UInt8](repeating: 42, count: 5000)
        try store.addVersion(
            skinID: "a", files: ["x.png": shared, "y.png": shared], metadata: Make.metadata(), actor: Make.actor)
        try store.addVersion(skinID: "b", files: ["z.png": shared], metadata: Make.metadata(), actor: Make.actor)

        let blobFiles = Disk.list(directory.path + "/blobs").flatMap { prefix in
            Disk.list(directory.path + "/blobs/" + prefix).map { prefix + $0 }
        }
        #expect(Set(blobFiles) == [SHA256.hexHash(shared), SHA256.hexHash(Make.metadata())])
        #expect(blobFiles.count == 2)
    }

    @Test func versionDigestIdentifiesFilesPathsAndMetadata() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let files = Make.files()
        let base = try store.addVersion(skinID: "a", files: files, metadata: Make.metadata(), actor: Make.actor)
        let same = try store.addVersion(skinID: "b", files: files, metadata: Make.metadata(), actor: "bob")
        #expect(base.digest == same.digest)

        var changedByte = files
        changedByte["config.json"]?[0] ^= 1
        var moved = files
        moved["config2.json"] = moved.removeValue(forKey: "config.json")
        let variants = [
            try store.addVersion(skinID: "c", files: changedByte, metadata: Make.metadata(), actor: Make.actor),
            try store.addVersion(skinID: "d", files: moved, metadata: Make.metadata(), actor: Make.actor),
            try store.addVersion(skinID: "e", files: files, metadata: Make.metadata("other"), actor: Make.actor),
        ]
        for variant in variants { #expect(variant.digest != base.digest) }
    }

    @Test func acceptsAVersionWithoutFiles() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let version = try store.addVersion(skinID: "bare", files: [:], metadata: Array("{}".utf8), actor: Make.actor)
        #expect(version.files.isEmpty)
        #expect(version.totalSize == 0)
    }

    @Test(arguments: ["", ".", "..", "a/b", "/", "a\0b", "a\\b", "tab\there", String(repeating: "x", count: 256)])
    func rejectsUnsafeSkinIDsAndStoresNothing(id: String) throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect {
            try store.addVersion(skinID: id, files: Make.files(), metadata: Make.metadata(), actor: Make.actor)
        } throws: { error in
            if case .invalidName = error as? StoreError { return true }
            return false
        }
        #expect(store.snapshot.revision == 0)
        #expect(Disk.list(directory.path + "/blobs").isEmpty)
    }

    @Test(arguments: ["", "/etc/passwd", "../x", "a/../b", "a//b", "a/./b", "dir/", "a\0b", "a\\b"])
    func rejectsUnsafeFilePaths(path: String) throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect {
            try store.addVersion(skinID: "spring", files: [path: [1]], metadata: Make.metadata(), actor: Make.actor)
        } throws: { error in
            if case .invalidPath = error as? StoreError { return true }
            return false
        }
        #expect(store.snapshot.revision == 0)
    }

    @Test(arguments: [
        Array("not json".utf8), [], Array(#"{"a":1"#.utf8), [0xEF, 0xBB, 0xBF] + Array("{}".utf8),
        Array(#"{"a":"\#u{0}"}"#.utf8), [0x22, 0xFF, 0x22], Array("{} {}".utf8),
    ])
    func rejectsMetadataThatIsNotOneJSONValue(metadata: [UInt8]) throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect {
            try store.addVersion(skinID: "spring", files: Make.files(), metadata: metadata, actor: Make.actor)
        } throws: { error in
            if case .invalidDocument = error as? StoreError { return true }
            return false
        }
        #expect(store.snapshot.revision == 0)
    }

    @Test func rejectsAnEmptyActor() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect(throws: StoreError.invalidName("", reason: "empty")) {
            try store.addVersion(skinID: "spring", files: [:], metadata: Make.metadata(), actor: "")
        }
    }

    @Test func namesWhatIsMissingWhenReading() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(1, in: store)
        #expect(throws: StoreError.unknownSkin("autumn")) {
            try store.fileBytes(skinID: "autumn", version: 1, path: "config.json")
        }
        #expect(throws: StoreError.unknownVersion(skinID: "spring", version: 2)) {
            try store.fileBytes(skinID: "spring", version: 2, path: "config.json")
        }
        #expect(throws: StoreError.unknownFile(skinID: "spring", version: 1, path: "nope.png")) {
            try store.blobPath(skinID: "spring", version: 1, path: "nope.png")
        }
    }

    @Test(arguments: ["", "abc", String(repeating: "A", count: 64), String(repeating: "g", count: 64), "../" + String(repeating: "a", count: 61)])
    func rejectsMalformedDigests(digest: String) throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect(throws: StoreError.invalidDigest(digest)) { try store.blobPath(digest: digest) }
    }

    @Test func findsFilesByPathInByteOrder() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let paths = ["b", "a/z", "a", "Z", "é", "a-b", "a/b/c"]
        var files = [String: [UInt8]]()
        for (index, path) in paths.enumerated() { files[path] = [UInt8(index)] }
        let version = try store.addVersion(skinID: "s", files: files, metadata: Make.metadata(), actor: Make.actor)
        #expect(version.files.map(\.path) == ["Z", "a", "a-b", "a/b/c", "a/z", "b", "é"])
        for path in paths { #expect(version.file(at: path)?.path == path) }
        #expect(version.file(at: "c") == nil)
    }
}

@Suite("Store errors")
struct StoreErrorTests {
    @Test func descriptionsNeutralizeControlCharactersAndNameSystemErrors() {
        #expect(StoreError.unknownSkin("evil\nINFO forged").description == #"no skin "evil?INFO forged""#)
        #expect(StoreError.io(operation: "fsync", path: "/data/state.json", errno: ENOSPC).description
            .hasPrefix("fsync /data/state.json: No space left on device"))
    }
}
