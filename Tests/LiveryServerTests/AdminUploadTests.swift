import Foundation
import HTTPTestSupport
import LiveryCrypto
import TestSupport
import Testing

@testable import LiveryServer

/// `POST /admin/v1/skins`: what is stored, and the hostile corpus, each refused with its own code and nothing
/// stored.
@Suite struct AdminUploadTests {
    /// One hostile or broken upload and how it must be refused.
    struct HostileUpload: Sendable, CustomTestStringConvertible {
        let label: String
        let archive: @Sendable () throws -> [UInt8]
        let status: Int
        let code: String
        /// For 422: an issue code the report must hold.
        var issue: String?
        /// For 422: how many errors the report must hold, when that matters.
        var errorCount: Int?
        var testDescription: String { label }
    }

    static func tinyEntries() -> [RawZip.Entry] {
        SkinArchives.tiny().sorted { $0.key < $1.key }.map { RawZip.Entry.stored($0.key, $0.value) }
    }

    static let corpus: [HostileUpload] = [
        HostileUpload(
            label: "zip slip",
            archive: {
                RawZip(entries: tinyEntries() + [.stored("../escape.json", Array("{}".utf8))]).build()
            }, status: 400, code: "zip_slip"),
        HostileUpload(
            label: "absolute path",
            archive: {
                RawZip(entries: tinyEntries() + [.stored("/etc/livery.json", Array("{}".utf8))]).build()
            }, status: 400, code: "absolute_path"),
        HostileUpload(
            label: "symlink entry",
            archive: {
                var link = RawZip.Entry.stored("images/link.png", Array("/etc/passwd".utf8))
                link.externalAttributes = 0o120777 << 16
                return RawZip(entries: tinyEntries() + [link]).build()
            }, status: 400, code: "symlink_entry"),
        HostileUpload(
            label: "zip bomb by ratio",
            archive: {
                let zeros = [UInt8](repeating: 0, count: 4 << 20)
                return RawZip(
                    entries: tinyEntries() + [
                        .deflated("bomb.json", content: zeros, compressed: try RawZip.deflate(zeros))
                    ]
                ).build()
            }, status: 413, code: "compression_ratio_exceeded"),
        HostileUpload(
            label: "zip bomb by huge declared size",
            archive: {
                var huge = RawZip.Entry.stored("huge.png", Array("tiny".utf8))
                huge.declaredUncompressedSize = 4_000_000_000
                return RawZip(entries: tinyEntries() + [huge]).build()
            }, status: 413, code: "entry_too_large"),
        HostileUpload(
            label: "duplicate names",
            archive: {
                RawZip(entries: tinyEntries() + [.stored("config.json", Array("{}".utf8))]).build()
            }, status: 400, code: "duplicate_entry"),
        HostileUpload(
            label: "duplicate names differing in case",
            archive: {
                RawZip(entries: tinyEntries() + [.stored("Config.JSON", Array("{}".utf8))]).build()
            }, status: 400, code: "duplicate_entry"),
        HostileUpload(
            label: "truncated archive",
            archive: {
                Array(try SkinArchives.zip(SkinArchives.tiny()).dropLast(30))
            }, status: 400, code: "truncated_archive"),
        HostileUpload(
            label: "not a zip",
            archive: {
                Array("this is a tarball, honest".utf8)
            }, status: 400, code: "not_a_zip"),
        HostileUpload(
            label: "encrypted entry",
            archive: {
                var entries = tinyEntries()
                entries[0].flags |= 1
                return RawZip(entries: entries).build()
            }, status: 400, code: "encrypted_entry"),
        HostileUpload(
            label: "invalid config",
            archive: {
                var files = SkinArchives.tiny()
                files["config.json"] = Array(##"{"home": {"colors": {"color_background": "#GG0000"}}}"##.utf8)
                return try SkinArchives.zip(files)
            }, status: 422, code: "invalid_skin", issue: "color.invalid"),
        HostileUpload(
            label: "wrong image magic",
            archive: {
                var files = SkinArchives.tiny()
                files["config.json"] = Array(#"{"home": {"images": {"image_banner": "file://banner.png"}}}"#.utf8)
                files["banner.png"] = [0xFF, 0xD8, 0xFF, 0xE0] + Array("JFIF, not a PNG".utf8)
                return try SkinArchives.zip(files)
            }, status: 422, code: "invalid_skin", issue: "asset.type-mismatch"),
        HostileUpload(
            label: "an AUUTheme theme as config.json",
            archive: {
                var files = SkinArchives.tiny()
                files["config.json"] = Array(
                    #"{"colors": {"color": "FFFFFF", "color.text": "363535"}, "images": {"image": {"type": 2, "color": "ffffff"}}}"#
                        .utf8)
                return try SkinArchives.zip(files)
            }, status: 422, code: "invalid_skin", issue: "config.foreign-theme", errorCount: 1),
        HostileUpload(
            label: "only archiver junk",
            archive: {
                try SkinArchives.zip(["__MACOSX/._skin.json": [0], ".DS_Store": [0]])
            }, status: 400, code: "empty_archive")
    ]

    @Test(arguments: corpus)
    func hostileUploadsAreRefusedWithTheirOwnCodeAndStoreNothing(upload: HostileUpload) async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny(id: "existing")
        let before = harness.mark()
        let response = try await harness.upload(try upload.archive())
        #expect(response.status == upload.status, "\(response.text)")
        let error = try LiveryHarness.error(response)
        #expect(error["code"] as? String == upload.code, "\(response.text)")
        let details = try #require(error["details"] as? [String: Any])
        #expect(details["field"] as? String == "body")
        #expect((details["reason"] as? String)?.isEmpty == false)
        if let issue = upload.issue {
            let report = try #require(details["report"] as? [String: Any])
            #expect(report["valid"] as? Bool == false)
            let codes = (report["issues"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
            #expect(codes.contains(issue), "\(codes)")
            if let count = upload.errorCount { #expect(report["errors"] as? Int == count, "\(codes)") }
        }
        #expect(harness.mark() == before, "a refused upload must leave the store as it was")
        #expect(try await harness.request("GET", "/admin/v1/skins/existing").status == 200)
        await harness.stop()
    }

    @Test func storesAValidSkinAndAnswersWithVersionReportAndSigns() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let files = try SkinArchives.sample("christmas-2026")
        let response = try await harness.upload(try SkinArchives.zip(files))
        #expect(response.status == 201, "\(response.text)")
        #expect(response.header("Location") == "/admin/v1/skins/christmas-2026/versions/1")
        let body = try LiveryHarness.object(response)
        #expect(body["skinId"] as? String == "christmas-2026")
        #expect(body["version"] as? Int == 1)
        #expect(body["fileCount"] as? Int == files.count)
        let signs = try #require(body["signs"] as? [String: String])
        #expect(
            Set(signs.keys) == [
                "@1x-light", "@1x-dark", "@2x-light", "@2x-dark", "@3x-light", "@3x-dark", "@1x-any", "@2x-any",
                "@3x-any"
            ], "every variant served, both appearances in one package included")
        #expect(signs.values.allSatisfy { $0.count == 32 })
        let report = try #require(body["report"] as? [String: Any])
        #expect(report["valid"] as? Bool == true)
        #expect(body["warnings"] as? Int == report["warnings"] as? Int)

        // Stored exactly: every file reads back byte for byte.
        let stored = try #require(harness.store.snapshot.skins["christmas-2026"]?.version(1))
        #expect(stored.files.count == files.count)
        for (path, bytes) in files {
            #expect(
                try await harness.store.fileBytes(skinID: "christmas-2026", version: 1, path: path) == bytes, "\(path)")
        }
        #expect(harness.store.snapshot.skins["christmas-2026"]?.release == nil, "an upload is not a release")
        #expect(harness.store.audit().last?.action == "version.add")

        var changed = files
        changed["config.json"] = (files["config.json"] ?? []) + Array(" ".utf8)
        let second = try await harness.upload(try SkinArchives.zip(changed))
        #expect(second.status == 201)
        #expect(try LiveryHarness.object(second)["version"] as? Int == 2)
        await harness.stop()
    }

    @Test func aRetriedPushOfTheSameFilesAnswersTheExistingVersionAndWritesNothing() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let files = SkinArchives.tiny()
        let first = try await harness.upload(try SkinArchives.zip(files))
        #expect(first.status == 201)
        #expect(try LiveryHarness.object(first)["unchanged"] as? Bool == false)
        let before = harness.mark()
        let blobs = try Self.fileCount(under: harness.dataDirectory + "/store/blobs")

        // The same files, zipped again (in a wrapping folder, so the archive's bytes differ).
        let again = try await harness.upload(try SkinArchives.zip(files, folder: "tiny"))
        #expect(again.status == 200, "\(again.text)")
        let body = try LiveryHarness.object(again)
        let firstBody = try LiveryHarness.object(first)
        #expect(body["unchanged"] as? Bool == true)
        #expect(body["version"] as? Int == 1)
        #expect(body["digest"] as? String == firstBody["digest"] as? String)
        #expect(body["signs"] as? [String: String] == firstBody["signs"] as? [String: String])
        #expect(again.header("ETag") == first.header("ETag"))
        #expect(harness.mark() == before, "no version, no revision, no audit entry")
        #expect(try Self.fileCount(under: harness.dataDirectory + "/store/blobs") == blobs, "no blob written")

        // Changed content is a new version; going back to earlier content is one too (only the latest counts).
        let changed = try await harness.upload(try SkinArchives.zip(SkinArchives.tiny(marker: "2")))
        #expect(changed.status == 201)
        #expect(try LiveryHarness.object(changed)["version"] as? Int == 2)
        let back = try await harness.upload(try SkinArchives.zip(files))
        #expect(back.status == 201)
        #expect(try LiveryHarness.object(back)["version"] as? Int == 3)
        #expect(harness.store.audit().filter { $0.action == "version.add" }.count == 3)
        await harness.stop()
    }

    /// The number of files under `folder`, recursively.
    static func fileCount(under folder: String) throws -> Int {
        let walker = try #require(FileManager.default.enumerator(atPath: folder))
        var count = 0
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                count += 1
            }
        }
        return count
    }

    @Test func stripsOneWrappingFolderAndSkipsArchiverJunk() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        // What macOS "Compress" makes: the folder, a .DS_Store inside it, resource forks under __MACOSX.
        var wrapped: [String: [UInt8]] = [:]
        for (path, bytes) in SkinArchives.tiny() { wrapped["tiny-folder/" + path] = bytes }
        wrapped["tiny-folder/.DS_Store"] = [0]
        wrapped["__MACOSX/tiny-folder/._skin.json"] = [0]
        let archive = try SkinArchives.zip(wrapped)
        let response = try await harness.upload(archive)
        #expect(response.status == 201, "\(response.text)")
        let body = try LiveryHarness.object(response)
        #expect(body["strippedFolder"] as? String == "tiny-folder")
        #expect(
            Set(body["skipped"] as? [String] ?? []) == ["tiny-folder/.DS_Store", "__MACOSX/tiny-folder/._skin.json"])
        let stored = try #require(harness.store.snapshot.skins["tiny"]?.version(1))
        #expect(stored.files.map(\.path) == ["config.json", "skin.json"])
        await harness.stop()
    }

    @Test func acceptsASkinZippedWithInfoZipWhoseUTF8NamesLackTheFlag() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let scratch = try ScratchDirectory(prefix: "livery-infozip")
        var files = SkinArchives.tiny(id: "chunjie")
        files["config.json"] = Array(##"{"home":{"resources":{"resource_lantern":"动画/灯笼.json"}}}"##.utf8)
        files["动画/灯笼.json"] = Array(#"{"v": "5.7.4"}"#.utf8)
        let root = try scratch.write(files, under: "春节")
        let run = try await ExternalProcess.run(
            "sh", ["-c", "cd \"$1\" && LC_ALL=C.UTF-8 zip -q -r -X ../skin.zip .", "sh", root])
        try #require(run.status == 0, "\(run.transcript)")
        let response = try await harness.upload(try scratch.read("skin.zip"))
        #expect(response.status == 201, "\(response.text)")
        #expect(
            try await harness.store.fileBytes(skinID: "chunjie", version: 1, path: "动画/灯笼.json") == files["动画/灯笼.json"])
        await harness.stop()
    }

    @Test func refusesANameInALegacyCodePageAndSaysWhatToDo() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        var entries = [RawZip.Entry.stored("skin.json", SkinArchives.tiny()["skin.json"] ?? [])]
        var legacy = RawZip.Entry.stored("x", Array("{}".utf8))
        legacy.name = [0xB4, 0xBA, 0xBD, 0xDA, 0x2E, 0x6A, 0x73, 0x6F, 0x6E]  // GBK "春节.json"
        legacy.flags = 0
        entries.append(legacy)
        let response = try await harness.upload(RawZip(entries: entries).build())
        #expect(response.status == 400)
        let error = try LiveryHarness.error(response)
        #expect(error["code"] as? String == "non_utf8_name")
        #expect(
            (error["message"] as? String)?.contains("re-create the archive with a tool that stores UTF-8 names") == true
        )
        await harness.stop()
    }

    @Test func refusesBodiesOverTheUploadLimitBeforeReadingThem() async throws {
        // Over a socket: the server enforces the route's limit on the announced length.
        let harness = try await LiveryHarness(transport: .socket) { $0.admin.uploadLimit = 2048 }
        defer { harness.removeFiles() }
        let before = harness.mark()
        let response = try await harness.upload([UInt8](repeating: 0x50, count: 4096))
        #expect(response.status == 413)
        #expect(try LiveryHarness.code(response) == "content_too_large body", "every admin 4xx names the input")
        #expect(harness.mark() == before)
        await harness.stop()
    }

    @Test func refusesArchivesWithMoreEntriesThanConfigured() async throws {
        let harness = try await LiveryHarness { $0.admin.archiveLimits.maxEntries = 3 }
        defer { harness.removeFiles() }
        var files = SkinArchives.tiny()
        for index in 0..<3 { files["extra\(index).json"] = Array("{}".utf8) }
        let response = try await harness.upload(try SkinArchives.zip(files))
        #expect(response.status == 413)
        #expect(try LiveryHarness.code(response) == "too_many_entries body")
        await harness.stop()
    }

    @Test func refusesOtherContentTypes() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let archive = try SkinArchives.zip(SkinArchives.tiny())
        let response = try await harness.request(
            "POST", "/admin/v1/skins", body: archive, contentType: "application/json")
        #expect(response.status == 415)
        #expect(try LiveryHarness.code(response) == "unsupported_media_type Content-Type")
        let none = try await harness.request("POST", "/admin/v1/skins", body: archive)
        #expect(none.status == 415)
        await harness.stop()
    }

    @Test func aStaleIfMatchOnUploadIsRefused() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let first = try await harness.upload(try SkinArchives.zip(SkinArchives.tiny()))
        let etag = try #require(first.header("ETag"))
        try await harness.uploadTiny(marker: "2")
        let before = harness.mark()
        let stale = try await harness.upload(
            try SkinArchives.zip(SkinArchives.tiny(marker: "3")), headers: [("If-Match", etag)])
        #expect(stale.status == 412)
        #expect(try LiveryHarness.code(stale) == "precondition_failed If-Match")
        #expect(harness.mark() == before)
        let mustExist = try await harness.upload(
            try SkinArchives.zip(SkinArchives.tiny(id: "new")), headers: [("If-Match", "*")])
        #expect(mustExist.status == 412)
        await harness.stop()
    }
}
