import Foundation
import TestSupport
import Testing
import ZipArchive
import ZipReading

@Suite("ZipArchiveReader")
struct ZipArchiveReaderTests {
    static let png = SourceTree.pngLike(Array(repeating: 7, count: 100))
    static let zeros = [UInt8](repeating: 0, count: 2 << 20)

    // MARK: Accepted archives

    @Test func extractsFilesInCentralDirectoryOrderAndSkipsDirectories() throws {
        let archive = RawZip(entries: [
            .stored("images/", []),
            .stored("images/a.png", Self.png),
            .stored("config.json", Array("{}".utf8))
        ]).build()
        let extracted = try ZipArchiveReader.extract(archive)
        #expect(extracted.map(\.name.rawValue) == ["images/a.png", "config.json"])
        #expect(extracted.map(\.bytes) == [Self.png, Array("{}".utf8)])
    }

    @Test func acceptsPureASCIINamesWithoutTheUTF8Flag() throws {
        var entry = RawZip.Entry.stored("a.png", Self.png)
        entry.flags = 0
        #expect(try ZipArchiveReader.extract(RawZip(entries: [entry]).build()).first?.bytes == Self.png)
    }

    @Test func acceptsACommentAfterTheEndRecord() throws {
        var zip = RawZip(entries: [.stored("a.png", Self.png)])
        zip.comment = Array(repeating: UInt8(ascii: "c"), count: 65_535)
        #expect(try ZipArchiveReader.extract(zip.build()).count == 1)
    }

    @Test func acceptsZip64ExtraFieldsOnSmallEntries() throws {
        var entry = RawZip.Entry.deflated(
            "a.json", content: Self.zeros.prefix(1000).map { $0 },
            compressed: try RawZip.deflate(Array(Self.zeros.prefix(1000))))
        entry.forceZip64 = true
        #expect(
            try ZipArchiveReader.extract(RawZip(entries: [entry]).build()).first?.bytes
                == Array(Self.zeros.prefix(1000)))
    }

    /// Archives from other writers: Info-ZIP `zip` (directory entries, extra fields), Python zipfile writing to
    /// a pipe (data descriptors, bit 3), Python with forced Zip64, and libarchive (`bsdtar --format zip`).
    @Test(arguments: ["zip", "python-stream", "python-zip64", "bsdtar"])
    func readsArchivesFromOtherWriters(_ writer: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        var tree = SourceTree.make(largeSize: 50_000)
        if writer == "zip" {
            // Info-ZIP 3.0 stores UTF-8 names without flag bit 11; see rejectsInfoZipNonASCIINamesWithoutTheFlag.
            tree.files["notes/春节.txt"] = nil
        }
        let root = try tree.writeAll(to: scratch)
        let archive = scratch.path("other.zip")
        let topLevel = Set(tree.files.keys.map { String($0.split(separator: "/")[0]) }).sorted()
        let run: ExternalProcess.Output
        switch writer {
        case "zip":
            run = try await ExternalProcess.run("sh", ["-c", "cd \"$1\" && zip -q -r -X \"$2\" .", "sh", root, archive])
        case "bsdtar":
            run = try await ExternalProcess.run("bsdtar", ["--format", "zip", "-cf", archive, "-C", root] + topLevel)
        default:
            let script = #"""
                import io, os, sys, zipfile
                root, archive, mode = sys.argv[1], sys.argv[2], sys.argv[3]
                class Unseekable(io.RawIOBase):
                    def __init__(self, f): self.f = f
                    def writable(self): return True
                    def write(self, b): return self.f.write(b)
                with open(archive, 'wb') as raw:
                    target = Unseekable(raw) if mode == 'python-stream' else raw
                    with zipfile.ZipFile(target, 'w', zipfile.ZIP_DEFLATED) as z:
                        for directory, _, files in os.walk(root):
                            for name in sorted(files):
                                full = os.path.join(directory, name)
                                with open(full, 'rb') as src, z.open(os.path.relpath(full, root), 'w', force_zip64=(mode == 'python-zip64')) as dst:
                                    dst.write(src.read())
                """#
            run = try await ExternalProcess.run("python3", ["-c", script, root, archive, writer])
        }
        try #require(run.status == 0, "\(writer) failed: \(run.transcript)")
        let extracted = try ZipArchiveReader.extract(try scratch.read("other.zip"))
        #expect(Dictionary(uniqueKeysWithValues: extracted.map { ($0.name.rawValue, $0.bytes) }) == tree.files)
    }

    /// Info-ZIP `zip` 3.0 writes UTF-8 names without flag bit 11: names whose bytes are valid UTF-8 are
    /// accepted whatever the flag says.
    @Test func acceptsInfoZipUTF8NamesWithoutTheFlag() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let files: [String: [UInt8]] = ["春节.txt": Array("hi".utf8), "图片/灯笼@2x.txt": Array("lantern".utf8), "a.txt": [1]]
        let root = try SourceTree(files: files).writeAll(to: scratch)
        let archive = scratch.path("infozip.zip")
        let run = try await ExternalProcess.run(
            "sh", ["-c", "cd \"$1\" && LC_ALL=C.UTF-8 zip -q -r -X \"$2\" .", "sh", root, archive])
        try #require(run.status == 0, "\(run.transcript)")
        let bytes = try scratch.read("infozip.zip")
        // The premise: Info-ZIP left bit 11 clear on the non-ASCII names (general purpose flags at offset 8 of
        // each central directory record, signature 50 4B 01 02).
        let flags = (0..<(bytes.count - 10)).filter { bytes[$0..<($0 + 4)] == [0x50, 0x4B, 0x01, 0x02] }
            .map { UInt16(bytes[$0 + 8]) | UInt16(bytes[$0 + 9]) << 8 }
        try #require(flags.count == files.count + 1)  // and the folder's own entry
        #expect(flags.allSatisfy { $0 & 0x0800 == 0 })
        let extracted = try ZipArchiveReader.extract(bytes)
        #expect(Dictionary(uniqueKeysWithValues: extracted.map { ($0.name.rawValue, $0.bytes) }) == files)
    }

    // MARK: Hostile corpus: each archive is rejected with its own error

    /// One hostile archive and the error it must produce.
    struct HostileCase: CustomTestStringConvertible, Sendable {
        var label: String
        var archive: @Sendable () throws -> [UInt8]
        var limits = ZipArchiveReader.Limits()
        var expected: ZipReadError
        var testDescription: String { label }
    }

    static let hostileCorpus: [HostileCase] = [
        HostileCase(
            label: "zip slip with ..", archive: { RawZip(entries: [.stored("../evil.png", png)]).build() },
            expected: .unsafePath(name: "../evil.png")),
        HostileCase(
            label: "zip slip inside a path",
            archive: { RawZip(entries: [.stored("images/../../evil.png", png)]).build() },
            expected: .unsafePath(name: "images/../../evil.png")),
        HostileCase(
            label: "absolute path", archive: { RawZip(entries: [.stored("/etc/cron.d/evil", png)]).build() },
            expected: .unsafePath(name: "/etc/cron.d/evil")),
        HostileCase(
            label: "backslash path", archive: { RawZip(entries: [.stored("..\\evil.png", png)]).build() },
            expected: .unsafePath(name: "..\\evil.png")),
        HostileCase(
            label: "drive letter", archive: { RawZip(entries: [.stored("C:/evil.png", png)]).build() },
            expected: .unsafePath(name: "C:/evil.png")),
        HostileCase(
            label: "symlink entry",
            archive: {
                var link = RawZip.Entry.stored("images/link.png", Array("/etc/passwd".utf8))
                link.externalAttributes = 0o120777 << 16
                return RawZip(entries: [link]).build()
            }, expected: .symlink(name: "images/link.png")),
        HostileCase(
            label: "FIFO entry",
            archive: {
                var fifo = RawZip.Entry.stored("pipe", [])
                fifo.externalAttributes = 0o010644 << 16
                return RawZip(entries: [fifo]).build()
            }, expected: .specialFile(name: "pipe")),
        HostileCase(
            label: "zip bomb by entry ratio",
            archive: {
                RawZip(entries: [.deflated("bomb.json", content: zeros, compressed: try RawZip.deflate(zeros))]).build()
            }, expected: .compressionRatioExceeded(name: "bomb.json", limit: 100)),
        HostileCase(
            label: "zip bomb by overall ratio",
            archive: {
                // Each entry is below the 64 KiB floor of the per-entry check; together they are 1.2 MB at ~1000:1.
                let piece = Array(zeros.prefix(60_000))
                let compressed = try RawZip.deflate(piece)
                return RawZip(
                    entries: (0..<20).map { .deflated("part\($0).json", content: piece, compressed: compressed) }
                ).build()
            }, expected: .compressionRatioExceeded(name: nil, limit: 100)),
        HostileCase(
            label: "huge declared size",
            archive: {
                var entry = RawZip.Entry.deflated(
                    "huge.json", content: Array("{}".utf8),
                    compressed: try RawZip.deflate(Array(repeating: 32, count: 100)))
                entry.declaredUncompressedSize = 4_000_000_000
                return RawZip(entries: [entry]).build()
            }, expected: .entryTooLarge(name: "huge.json", size: 4_000_000_000, limit: 64 << 20)),
        HostileCase(
            label: "huge declared Zip64 size",
            archive: {
                var entry = RawZip.Entry.deflated(
                    "huge.json", content: Array("{}".utf8),
                    compressed: try RawZip.deflate(Array(repeating: 32, count: 100)))
                entry.declaredUncompressedSize = 1 << 62
                return RawZip(entries: [entry]).build()
            }, expected: .entryTooLarge(name: "huge.json", size: 1 << 62, limit: 64 << 20)),
        HostileCase(
            label: "total declared size over the limit",
            archive: {
                RawZip(entries: (0..<3).map { .stored("f\($0).png", Array(repeating: UInt8($0), count: 500)) }).build()
            }, limits: ZipArchiveReader.Limits(maxTotalUncompressed: 1000),
            expected: .archiveTooLarge(size: 1500, limit: 1000)),
        HostileCase(
            label: "inflates beyond its declared size",
            archive: {
                let text = Array(String(repeating: "0123456789abcdef", count: 6_000).utf8)
                var entry = RawZip.Entry.deflated("liar.json", content: text, compressed: try RawZip.deflate(text))
                entry.declaredUncompressedSize = 1000
                return RawZip(entries: [entry]).build()
            }, expected: .sizeMismatch(name: "liar.json")),
        HostileCase(
            label: "inflates short of its declared size",
            archive: {
                let text = Array(String(repeating: "0123456789abcdef", count: 100).utf8)
                var entry = RawZip.Entry.deflated("short.json", content: text, compressed: try RawZip.deflate(text))
                entry.declaredUncompressedSize = 2000
                return RawZip(entries: [entry]).build()
            }, expected: .sizeMismatch(name: "short.json")),
        HostileCase(
            label: "duplicate names",
            archive: {
                RawZip(entries: [.stored("a.png", png), .stored("b.png", png), .stored("a.png", png)]).build()
            }, expected: .duplicateEntry(name: "a.png")),
        HostileCase(
            label: "names equal ignoring case",
            archive: {
                RawZip(entries: [.stored("images/Tab.png", png), .stored("images/tab.PNG", png)]).build()
            }, expected: .duplicateEntry(name: "images/tab.PNG")),
        HostileCase(
            label: "names equal after Unicode normalization",
            archive: {
                RawZip(entries: [.stored("caf\u{E9}.png", png), .stored("cafe\u{301}.png", png)]).build()
            }, expected: .duplicateEntry(name: "cafe\u{301}.png")),
        HostileCase(
            label: "file that is also a parent directory",
            archive: {
                RawZip(entries: [.stored("images", png), .stored("images/a.png", png)]).build()
            }, expected: .pathConflict(name: "images/a.png")),
        HostileCase(
            label: "file that is also a directory entry",
            archive: {
                RawZip(entries: [.stored("Images/", []), .stored("images", png)]).build()
            }, expected: .pathConflict(name: "images")),
        HostileCase(
            label: "truncated archive",
            archive: {
                let whole = RawZip(entries: [.stored("a.png", png), .stored("b.png", png)]).build()
                return Array(whole.prefix(whole.count - 30))
            }, expected: .truncated),
        HostileCase(label: "not a zip", archive: { png }, expected: .notAZip),
        HostileCase(label: "empty upload", archive: { [] }, expected: .notAZip),
        HostileCase(
            label: "encrypted flag",
            archive: {
                var entry = RawZip.Entry.stored("secret.png", png)
                entry.flags |= 1
                return RawZip(entries: [entry]).build()
            }, expected: .encrypted(name: "secret.png")),
        HostileCase(
            label: "AES method 99",
            archive: {
                var entry = RawZip.Entry.stored("secret.png", png)
                entry.method = 99
                return RawZip(entries: [entry]).build()
            }, expected: .encrypted(name: "secret.png")),
        HostileCase(
            label: "bad CRC",
            archive: {
                var entry = RawZip.Entry.stored("a.png", png)
                entry.crc = 0xDEAD_BEEF
                return RawZip(entries: [entry]).build()
            }, expected: .crcMismatch(name: "a.png")),
        HostileCase(
            label: "unsupported method (bzip2)",
            archive: {
                var entry = RawZip.Entry.stored("a.json", Array("{}".utf8))
                entry.method = 12
                return RawZip(entries: [entry]).build()
            }, expected: .unsupportedCompression(name: "a.json", method: 12)),
        HostileCase(
            label: "too many entries",
            archive: {
                RawZip(entries: (0..<6).map { .stored("f\($0).json", []) }).build()
            }, limits: ZipArchiveReader.Limits(maxEntries: 5), expected: .tooManyEntries(count: 6, limit: 5)),
        HostileCase(
            label: "declared entry count beyond the limit",
            archive: {
                var zip = RawZip(entries: [.stored("a.json", [])])
                zip.declaredCount = 60_000
                return zip.build()
            }, expected: .tooManyEntries(count: 60_000, limit: 10_000)),
        HostileCase(
            label: "non-UTF-8 name without the flag",
            archive: {
                var entry = RawZip.Entry.stored("x", png)
                entry.name = [0x82, 0xA0, 0x2E, 0x70, 0x6E, 0x67]  // Shift-JIS "あ.png"
                entry.flags = 0
                return RawZip(entries: [entry]).build()
            },
            expected: .nonUTF8Name(
                name: String(decoding: [0x82, 0xA0, 0x2E, 0x70, 0x6E, 0x67] as [UInt8], as: UTF8.self))),
        HostileCase(
            label: "invalid UTF-8 with the flag",
            archive: {
                var entry = RawZip.Entry.stored("x", png)
                entry.name = [0xC3, 0x28, 0x2E, 0x70, 0x6E, 0x67]
                return RawZip(entries: [entry]).build()
            },
            expected: .nonUTF8Name(
                name: String(decoding: [0xC3, 0x28, 0x2E, 0x70, 0x6E, 0x67] as [UInt8], as: UTF8.self))),
        HostileCase(
            label: "control character in a name", archive: { RawZip(entries: [.stored("a\u{1}b.png", png)]).build() },
            expected: .invalidName(name: "a\u{1}b.png")),
        HostileCase(
            label: "local header name differs",
            archive: {
                var entry = RawZip.Entry.stored("a.png", png)
                entry.localName = Array("../x.png".utf8)
                return RawZip(entries: [entry]).build()
            }, expected: .corrupt(reason: "a local header's name differs from the central directory")),
        HostileCase(
            label: "local header CRC differs",
            archive: {
                var entry = RawZip.Entry.stored("a.png", png)
                entry.localCRC = 1
                return RawZip(entries: [entry]).build()
            }, expected: .corrupt(reason: "a local header disagrees with the central directory")),
        HostileCase(
            label: "two entries sharing one local header",
            archive: {
                var second = RawZip.Entry.stored("a.png", png)
                second.centralOffsetOverride = 0
                second.name = Array("b.png".utf8)
                second.localName = Array("a.png".utf8)
                return RawZip(entries: [.stored("a.png", png), second]).build()
            }, expected: .corrupt(reason: "entries overlap")),
        HostileCase(
            label: "data prepended to the archive",
            archive: {
                Array("#!/bin/sh\nexit 0\n".utf8) + RawZip(entries: [.stored("a.png", png)]).build()
            }, expected: .corrupt(reason: "the central directory is out of place"))
    ]

    @Test(arguments: hostileCorpus)
    func rejectsHostileArchiveWithItsOwnError(_ hostile: HostileCase) throws {
        let archive = try hostile.archive()
        #expect(throws: hostile.expected) { try ZipArchiveReader.extract(archive, limits: hostile.limits) }
    }

    @Test func everyHostileKindHasItsOwnCode() {
        let kinds: [ZipReadError] = [
            .notAZip, .truncated, .corrupt(reason: "x"), .unsafePath(name: ""), .invalidName(name: ""),
            .nonUTF8Name(name: ""), .symlink(name: ""), .specialFile(name: ""), .duplicateEntry(name: ""),
            .pathConflict(name: ""), .tooManyEntries(count: 0, limit: 0), .entryTooLarge(name: "", size: 0, limit: 0),
            .archiveTooLarge(size: 0, limit: 0), .compressionRatioExceeded(name: nil, limit: 0),
            .sizeMismatch(name: ""),
            .encrypted(name: ""), .unsupportedCompression(name: "", method: 0), .crcMismatch(name: ""), .outOfMemory
        ]
        #expect(Set(kinds.map(\.code)).count == kinds.count)
        // The corpus exercises every kind an upload can trigger (out of memory aside).
        let exercised = Set(Self.hostileCorpus.map(\.expected.code))
        #expect(exercised == Set(kinds.map(\.code)).subtracting(["out_of_memory"]))
    }

    @Test func messagesQuoteNoEntryNames() {
        let error = ZipReadError.unsafePath(name: "../../etc/passwd")
        #expect(!error.message.contains("passwd"))
        #expect(!error.description.contains("passwd"))
        #expect(error.entryName == "../../etc/passwd")
        #expect(error.code == "unsafe_path")
    }

    @Test func namesLongerOrDeeperThanTheLimitsAreRejected() throws {
        let long = String(repeating: "x", count: 1_021) + ".png"  // 1,025 bytes
        #expect(throws: ZipReadError.invalidName(name: long)) {
            try ZipArchiveReader.extract(RawZip(entries: [.stored(long, [])]).build())
        }
        let deep = String(repeating: "a/", count: 32) + "x.png"  // 33 segments
        #expect(throws: ZipReadError.invalidName(name: deep)) {
            try ZipArchiveReader.extract(RawZip(entries: [.stored(deep, [])]).build())
        }
        let limits = ZipArchiveReader.Limits(maxNameLength: 2_000, maxPathDepth: 40)
        #expect(
            try ZipArchiveReader.extract(
                RawZip(entries: [.stored(long, []), .stored(deep, [])]).build(), limits: limits
            ).count == 2)
    }

    @Test func manyDeepDistinctPathsAreAccepted() throws {
        // The worst case the default limits allow for the collision check: 10,000 entries, 32 segments each,
        // distinct from the first segment (320,000 tree nodes).
        let deep = String(repeating: "a/", count: 30)  // "dN/" + 30 + "x" = 32 segments
        let archive = RawZip(entries: (0..<10_000).map { .stored("d\($0)/" + deep + "x", []) }).build()
        #expect(try ZipArchiveReader.extract(archive).count == 10_000)
    }

    @Test func endRecordIsOnlySearchedForInTheLast65557Bytes() throws {
        // A valid archive followed by more than 65,535 bytes: its end record is out of reach.
        let archive = RawZip(entries: [.stored("a.png", Self.png)]).build() + [UInt8](repeating: 0, count: 70_000)
        #expect(throws: ZipReadError.truncated) { try ZipArchiveReader.extract(archive) }
    }

    @Test func truncationAtEveryLengthIsRejectedWithoutCrashing() throws {
        let archive = RawZip(entries: [
            .stored("a.png", Self.png),
            .deflated(
                "b.json", content: Array(repeating: 65, count: 3000),
                compressed: try RawZip.deflate(Array(repeating: 65, count: 3000)))
        ]).build()
        for length in 0..<archive.count {
            #expect(throws: ZipReadError.self) { try ZipArchiveReader.extract(Array(archive.prefix(length))) }
        }
    }
}
