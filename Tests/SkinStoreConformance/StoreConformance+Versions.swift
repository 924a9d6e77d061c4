import Foundation
import LiveryCrypto
import SkinStore
import Testing

/// Versions and the input every change refuses (moved here from the file store's own
/// tests, so PostgreSQL keeps the same promises).
extension StoreConformance {
    static func versions(_ store: any SkinStore, clock: ConformanceClock) async throws {
        // Times are kept to the millisecond.
        clock.advance(seconds: 0.1239)
        let files = files()
        let version = try await store.addVersion(
            skinID: "spring", files: files, metadata: metadata(), expectedRevision: nil, release: nil, actor: "alice")
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
        #expect(version.metadataDigest == SHA256.hexHash(metadata().encoded()))
        #expect(version.digest == SkinVersion.digest(files: version.files, metadataDigest: version.metadataDigest))
        let skin = try #require(store.snapshot.skins["spring"])
        #expect(skin.revision == 1 && skin.versions == [version] && skin.release == nil)
        #expect(skin.version(1) == version && skin.version(2) == nil)

        // Numbers count per skin.
        try await add(store, variant: 1)
        try await add(store, variant: 2)
        let winter = try await add(store, skinID: "winter")
        #expect(store.snapshot.skins["spring"]?.versions.map(\.number) == [1, 2, 3])
        #expect(winter.number == 1)
        #expect(store.snapshot.revision == 4)

        // The digest names the files' bytes, their paths and the metadata, not who or when.
        func stored(
            _ skinID: String, _ files: [String: [UInt8]], _ metadata: VersionMetadata = metadata()
        ) async throws -> SkinVersion {
            try await store.addVersion(
                skinID: skinID, files: files, metadata: metadata, expectedRevision: nil, release: nil, actor: "bob")
        }
        #expect(try await stored("same", files).digest == version.digest)
        var changedByte = files
        changedByte["config.json"]?[0] ^= 1
        var moved = files
        moved["config2.json"] = moved.removeValue(forKey: "config.json")
        #expect(try await stored("byte", changedByte).digest != version.digest)
        #expect(try await stored("moved", moved).digest != version.digest)
        #expect(try await stored("meta", files, VersionMetadata(source: "other")).digest != version.digest)

        // A version may hold no file; paths sort by their bytes and are found by path.
        let bare = try await stored("bare", [:])
        #expect(bare.files.isEmpty && bare.totalSize == 0)
        let paths = ["b", "a/z", "a", "Z", "é", "a-b", "a/b/c"]
        var ordered = [String: [UInt8]]()
        for (index, path) in paths.enumerated() { ordered[path] = [UInt8(index)] }
        let sorted = try await stored("sorted", ordered)
        #expect(sorted.files.map(\.path) == ["Z", "a", "a-b", "a/b/c", "a/z", "b", "é"])
        for path in paths { #expect(sorted.file(at: path)?.path == path) }
        #expect(sorted.file(at: "c") == nil)
    }

    static func unsafeInput(_ store: any SkinStore) async throws {
        try await add(store)
        try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        let before = store.snapshot

        for id in ["", ".", "..", "a/b", "/", "a\0b", "a\\b", "tab\there", String(repeating: "x", count: 256)] {
            await expectRefused(
                "skin id \(id.debugDescription)", matching: { if case .invalidName = $0 { true } else { false } }
            ) { () async throws(StoreError) in
                try await store.addVersion(
                    skinID: id, files: files(), metadata: metadata(), expectedRevision: nil, release: nil, actor: actor)
            }
        }
        for path in ["", "/etc/passwd", "../x", "a/../b", "a//b", "a/./b", "dir/", "a\0b", "a\\b"] {
            await expectRefused(
                "path \(path.debugDescription)", matching: { if case .invalidPath = $0 { true } else { false } }
            ) { () async throws(StoreError) in
                try await store.addVersion(
                    skinID: "spring", files: [path: [1]], metadata: metadata(), expectedRevision: nil, release: nil,
                    actor: actor)
            }
        }
        await expectRefused(
            "an empty actor", matching: { $0 == .invalidName("", reason: "empty") }
        ) { () async throws(StoreError) in
            try await store.addVersion(
                skinID: "spring", files: [:], metadata: metadata(), expectedRevision: nil, release: nil, actor: "")
        }
        await expectRefused(
            "an empty audit action", matching: { $0 == .invalidName("", reason: "empty") }
        ) { () async throws(StoreError) in
            try await store.setRelease(
                skinID: "spring", version: 1, plan: plan(), expectedRevision: nil, actor: actor, action: "")
        }
        await expectRefused(
            "app id ..", matching: { $0 == .invalidName("..", reason: "is ..") }
        ) { () async throws(StoreError) in
            try await store.setKillSwitch(app: "..", enabled: true, reason: "", expectedRevision: nil, actor: actor)
        }
        await expectRefused(
            "a reason with NUL", matching: { $0 == .invalidText(field: "reason", reason: "contains NUL") }
        ) { () async throws(StoreError) in
            try await store.setKillSwitch(app: nil, enabled: true, reason: "a\0b", expectedRevision: nil, actor: actor)
        }
        await expectRefused(
            "a reason too long", matching: { if case .invalidText = $0 { true } else { false } }
        ) { () async throws(StoreError) in
            try await store.setKillSwitch(
                app: nil, enabled: true, reason: String(repeating: "x", count: StoreChanges.maximumTextLength + 1),
                expectedRevision: nil, actor: actor)
        }
        #expect(store.snapshot == before, "refused input changes nothing")
        #expect(try await store.audit(since: nil, limit: 100).count == before.revision)
    }

    /// Expects `change` to be refused with an error `expected` accepts.
    static func expectRefused(
        _ what: String, matching expected: (StoreError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation,
        _ change: () async throws(StoreError) -> some Sendable
    ) async {
        do throws(StoreError) {
            _ = try await change()
            Issue.record("\(what) was not refused", sourceLocation: sourceLocation)
        } catch {
            #expect(expected(error), "\(what): \(error)", sourceLocation: sourceLocation)
        }
    }
}
