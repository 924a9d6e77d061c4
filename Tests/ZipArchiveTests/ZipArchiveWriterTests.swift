import Foundation
import LiveryCrypto
import TestSupport
import Testing
import ZipArchive
import ZipReading

@Suite("ZipArchiveWriter")
struct ZipArchiveWriterTests {
    /// Writer configurations every archive test runs under.
    enum Configuration: String, CaseIterable, CustomTestStringConvertible {
        /// Defaults: 1 MiB buffers, in-memory spill.
        case defaults
        /// 4 KiB buffers and a 1 KiB spill limit: stored files take the two-pass path, deflate spills to disk.
        case tinyBuffers
        /// Zip64 thresholds at zero: every size, offset and count goes through Zip64 records.
        case forcedZip64
        /// Sources in memory instead of files.
        case inMemorySources

        var options: ZipArchiveWriter.Options {
            var options = ZipArchiveWriter.Options()
            switch self {
            case .defaults, .inMemorySources: break
            case .tinyBuffers:
                options.bufferSize = 4096
                options.spillMemoryLimit = 1024
            case .forcedZip64:
                options.zip64Threshold = 0
                options.zip64EntryCountThreshold = 0
            }
            return options
        }

        var testDescription: String { rawValue }
    }

    @Test(arguments: Configuration.allCases)
    func archivesOpenInIndependentReadersWithIdenticalBytes(_ configuration: Configuration) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let tree = SourceTree.make()
        let root = try tree.writeAll(to: scratch)
        let entries = try tree.entries(root: root, inMemory: configuration == .inMemorySources)
        let archive = scratch.path("skin.zip")

        let summary = try ZipArchiveWriter.write(entries, to: archive, options: configuration.options)

        try await verifyWithIndependentReaders(archive, expected: tree.files, scratch: scratch)
        let bytes = try scratch.read("skin.zip")
        #expect(summary.size == UInt64(bytes.count))
        #expect(summary.sha256 == SHA256.hexHash(bytes))
        #expect(summary.entryCount == tree.files.count)

        // Our own reader agrees too.
        let extracted = try ZipArchiveReader.extract(bytes)
        #expect(Dictionary(uniqueKeysWithValues: extracted.map { ($0.name.rawValue, $0.bytes) }) == tree.files)
    }

    @Test func sameEntriesInAnyOrderGiveByteIdenticalArchives() throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let tree = SourceTree.make()
        let root = try tree.writeAll(to: scratch)
        let entries = try tree.entries(root: root)
        var random = SplitMix64(seed: 7)

        let first = try ZipArchiveWriter.write(entries, to: scratch.path("first.zip"))
        let second = try ZipArchiveWriter.write(entries.shuffled(using: &random), to: scratch.path("second.zip"))
        var memory = ZipMemoryOutput()
        let third = try ZipArchiveWriter.write(try tree.entries(root: root, inMemory: true), to: &memory)

        #expect(first == second)
        #expect(first == third)
        #expect(try scratch.read("first.zip") == scratch.read("second.zip"))
        #expect(try scratch.read("first.zip") == memory.bytes)
    }

    /// Computed once with this writer and zlib 1.2.13. A change here changes every package's identity (its
    /// SHA-256), so clients would download every skin again: it must be deliberate.
    static let fixtureSHA256 = "d2e2f601fbe4d1d55a0ec684cba5706673ecfc367be710733d1b846e45199586"

    @Test func archiveMatchesTheRecordedFixtureHash() throws {
        var memory = ZipMemoryOutput()
        let summary = try ZipArchiveWriter.write(try SourceTree.make().entries(root: "", inMemory: true), to: &memory)
        #expect(
            summary.sha256 == Self.fixtureSHA256,
            "archive identity changed (zlib \(ZipArchiveWriter.zlibVersion))")
    }

    @Test func anotherProcessWritesTheSameBytes() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let tree = SourceTree.make()
        let root = try tree.writeAll(to: scratch)
        let here = try ZipArchiveWriter.write(try tree.entries(root: root), to: scratch.path("here.zip"))

        let driver = try zipBenchExecutable()
        let run = try await ExternalProcess.run(driver, [root, scratch.path("there.zip")])
        try #require(run.status == 0, "zip-bench failed: \(run.transcript)")
        #expect(run.standardOutput.split(separator: " ").first.map(String.init) == here.sha256)
        #expect(try scratch.read("here.zip") == scratch.read("there.zip"))
    }

    @Test func storesCompressedFormatsAndDeflatesTheRest() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let text = Array(String(repeating: "holiday skin ", count: 500).utf8)
        var random = SplitMix64(seed: 3)
        let entries = [
            ZipEntry(name: try ZipEntryName("a.json"), source: .bytes(text)),
            ZipEntry(name: try ZipEntryName("b.svg"), source: .bytes(text)),
            ZipEntry(name: try ZipEntryName("c.txt"), source: .bytes(text)),
            ZipEntry(name: try ZipEntryName("d.unknown"), source: .bytes(text)),
            ZipEntry(name: try ZipEntryName("e.PNG"), source: .bytes(text)),  // compressible, but PNG: stored
            ZipEntry(name: try ZipEntryName("f.webp"), source: .bytes(text)),
            ZipEntry(name: try ZipEntryName("g.json"), source: .bytes(text), compression: .store),
            ZipEntry(name: try ZipEntryName("h.png"), source: .bytes(text), compression: .deflate(level: 9)),
            ZipEntry(name: try ZipEntryName("i.json"), source: .bytes(random.bytes(3000))),  // deflate would grow it
            ZipEntry(name: try ZipEntryName("j.json"), source: .bytes([])),
            ZipEntry(name: try ZipEntryName("k.json"), source: .bytes(text), compression: .deflate(level: 0))
        ]
        let archive = scratch.path("mixed.zip")
        try ZipArchiveWriter.write(entries, to: archive)

        let methods = Dictionary(uniqueKeysWithValues: try await pythonEntryInfo(archive).map { ($0.name, $0.method) })
        #expect(
            methods == [
                "a.json": 8, "b.svg": 8, "c.txt": 8, "d.unknown": 8, "e.PNG": 0, "f.webp": 0, "g.json": 0, "h.png": 8,
                "i.json": 0, "j.json": 0, "k.json": 0
            ])
        let infos = try await pythonEntryInfo(archive)
        let deflated = try #require(infos.first { $0.name == "a.json" })
        #expect(deflated.compressedSize < deflated.size / 10)
    }

    @Test func headersCarryFixedTimeModeAndUTF8FlagWithoutExtrasOrDataDescriptors() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let tree = SourceTree.make()
        let root = try tree.writeAll(to: scratch)
        let archive = scratch.path("skin.zip")
        try ZipArchiveWriter.write(try tree.entries(root: root), to: archive)

        let infos = try await pythonEntryInfo(archive)
        #expect(
            infos.map(\.name) == tree.files.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        for info in infos {
            #expect(info.dateTime == [1980, 1, 1, 0, 0, 0])
            #expect(info.externalAttributes >> 16 == 0o100644)
            #expect(info.createSystem == 3)
            #expect(info.flags == 0x0800, "UTF-8 flag only: no data descriptor (bit 3), no encryption")
            #expect(info.extraLength == 0)
            #expect(info.extractVersion == (info.method == 8 ? 20 : 10))
        }
        let bytes = try scratch.read("skin.zip")
        #expect(!contains(bytes, [0x50, 0x4B, 0x06, 0x06]), "no Zip64 end record in a small archive")
        #expect(!contains(bytes, [0x50, 0x4B, 0x07, 0x08]), "no data descriptor signature")
    }

    @Test func loweredThresholdWritesZip64FieldsExactlyWhereValuesExceedIt() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        var random = SplitMix64(seed: 5)
        let files: [String: [UInt8]] = [
            "a.txt": Array("small".utf8), "b.png": random.bytes(5000), "c.txt": Array("late".utf8)
        ]
        let entries = try files.map { ZipEntry(name: try ZipEntryName($0.key), source: .bytes($0.value)) }
        var options = ZipArchiveWriter.Options()
        options.zip64Threshold = 1000  // sizes and offsets above 1000 bytes need Zip64
        let archive = scratch.path("zip64.zip")
        try ZipArchiveWriter.write(entries, to: archive, options: options)

        let bytes = try scratch.read("zip64.zip")
        #expect(contains(bytes, [0x50, 0x4B, 0x06, 0x06]), "Zip64 end of central directory record (offset > 1000)")
        #expect(contains(bytes, [0x50, 0x4B, 0x06, 0x07]), "Zip64 end of central directory locator")
        let infos = Dictionary(uniqueKeysWithValues: try await pythonEntryInfo(archive).map { ($0.name, $0) })
        // a.txt: small, at offset 0: no Zip64. b.png: both sizes (8 + 8, plus the 4-byte field header).
        // c.txt: small, but its offset is past 1000: only the offset (8 + 4).
        #expect(infos["a.txt"]?.extraLength == 0)
        #expect(infos["a.txt"]?.extractVersion == 10)
        #expect(infos["b.png"]?.extraLength == 20)
        #expect(infos["b.png"]?.extractVersion == 45)
        #expect(infos["c.txt"]?.extraLength == 12)
        #expect(infos["c.txt"]?.extractVersion == 45)
        try await verifyWithIndependentReaders(archive, expected: files, scratch: scratch)
        #expect(try ZipArchiveReader.extract(bytes).map(\.bytes) == [files["a.txt"], files["b.png"], files["c.txt"]])
    }

    @Test func moreThan65535EntriesUseZip64EndRecords() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let count = 65_537
        let entries = try (0..<count).map { index in
            ZipEntry(
                name: try ZipEntryName("f/\(String(format: "%05d", index)).txt"),
                source: .bytes(Array("\(index)".utf8)), compression: .store)
        }
        let archive = scratch.path("many.zip")
        let summary = try ZipArchiveWriter.write(entries, to: archive)
        #expect(summary.entryCount == count)

        let bytes = try scratch.read("many.zip")
        #expect(contains(Array(bytes.suffix(200)), [0x50, 0x4B, 0x06, 0x06]))
        let python = try await ExternalProcess.run(
            "python3",
            [
                "-c",
                """
                import sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                names = z.namelist()
                assert len(names) == \(count), len(names)
                assert z.read('f/65536.txt') == b'65536'
                """, archive
            ])
        #expect(python.status == 0, "\(python.transcript)")
        let unzip = try await ExternalProcess.run("unzip", ["-t", "-q", archive])
        #expect(unzip.status == 0, "\(unzip.transcript)")
        let list = try await ExternalProcess.run("bsdtar", ["-tf", archive])
        #expect(list.status == 0)
        #expect(list.standardOutput.split(separator: "\n").count == count)

        var limits = ZipArchiveReader.Limits()
        limits.maxEntries = 70_000
        let extracted = try ZipArchiveReader.extract(bytes, limits: limits)
        #expect(extracted.count == count)
        #expect(extracted.last?.bytes == Array("65536".utf8))
    }

    @Test func duplicateNamesAreRejected() throws {
        var output = ZipMemoryOutput()
        let name = try ZipEntryName("images/a.png")
        #expect(throws: ZipError.duplicateEntryName(name)) {
            try ZipArchiveWriter.write(
                [
                    ZipEntry(name: name, source: .bytes([1])),
                    ZipEntry(name: try ZipEntryName("b"), source: .bytes([])),
                    ZipEntry(name: name, source: .bytes([2]))
                ],
                to: &output)
        }
        #expect(output.bytes.isEmpty)
    }

    @Test func compressionLevelsOutsideZeroToNineAreRejected() throws {
        var output = ZipMemoryOutput()
        #expect(throws: ZipError.invalidCompressionLevel(10)) {
            try ZipArchiveWriter.write(
                [ZipEntry(name: try ZipEntryName("a"), source: .bytes([1]), compression: .deflate(level: 10))],
                to: &output)
        }
        var options = ZipArchiveWriter.Options()
        options.deflateLevel = -1
        #expect(throws: ZipError.invalidCompressionLevel(-1)) {
            try ZipArchiveWriter.write([], to: &output, options: options)
        }
        options = ZipArchiveWriter.Options()
        options.zip64Threshold = 0xFFFF_FFFF
        #expect(throws: ZipError.self) { try ZipArchiveWriter.write([], to: &output, options: options) }
    }

    @Test func emptyEntryListGivesAnEmptyValidArchive() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let archive = scratch.path("empty.zip")
        let summary = try ZipArchiveWriter.write([], to: archive)
        #expect(summary.size == 22)
        let python = try await ExternalProcess.run(
            "python3", ["-c", "import sys,zipfile; assert zipfile.ZipFile(sys.argv[1]).namelist() == []", archive])
        #expect(python.status == 0, "\(python.transcript)")
        #expect(try ZipArchiveReader.extract(scratch.read("empty.zip")).isEmpty)
    }

    @Test func missingSourceFailsLeavingTheDestinationAndNoTemporaryFile() throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let destination = try scratch.write("out/skin.zip", Array("previous archive".utf8))
        let missing = scratch.path("no/such/file.json")
        let entries = [
            ZipEntry(name: try ZipEntryName("a.json"), source: .bytes(Array("{}".utf8))),
            ZipEntry(name: try ZipEntryName("b.json"), source: .file(path: missing))
        ]
        do {
            try ZipArchiveWriter.write(entries, to: destination)
            Issue.record("writing with a missing source succeeded")
        } catch {
            #expect(error == .sourceUnreadable(path: missing, errno: ENOENT))
            #expect(error.code == "source_unreadable")
            #expect(!error.message.contains(scratch.path))
            #expect(!error.description.contains(scratch.path))
            #expect(error.logDescription.contains(missing))
        }
        #expect(try scratch.read("out/skin.zip") == Array("previous archive".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) == ["skin.zip"])
    }

    @Test func directoriesAndFIFOsAreNotAcceptedAsSources() throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        try FileManager.default.createDirectory(atPath: scratch.path("dir"), withIntermediateDirectories: true)
        #expect(mkfifo(scratch.path("fifo"), 0o600) == 0)
        var output = ZipMemoryOutput()
        for path in [scratch.path("dir"), scratch.path("fifo")] {
            #expect(throws: ZipError.sourceNotRegularFile(path: path)) {
                try ZipArchiveWriter.write(
                    [ZipEntry(name: try ZipEntryName("x"), source: .file(path: path))], to: &output)
            }
        }
    }

    @Test func symbolicLinksAreRefusedNotFollowed() throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let secret = try scratch.write("outside/secret.txt", Array("not for the archive".utf8))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link.png"), withDestinationPath: secret)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("loop.png"), withDestinationPath: scratch.path("loop.png"))
        for (path, level) in [
            (scratch.path("link.png"), nil), (scratch.path("link.png"), 6), (scratch.path("loop.png"), nil)
        ] as [(String, Int?)] {
            let entry = ZipEntry(
                name: try ZipEntryName("a.png"), source: .file(path: path),
                compression: level.map { .deflate(level: $0) } ?? .store)
            try scratch.write("out/skin.zip", Array("previous archive".utf8))
            let error = #expect(throws: ZipError.sourceIsSymbolicLink(path: path)) {
                try ZipArchiveWriter.write([entry], to: scratch.path("out/skin.zip"))
            }
            #expect(error?.code == "source_is_symbolic_link")
            #expect(error.map { !$0.message.contains(scratch.path) } == true)
            #expect(error?.logDescription.contains(path) == true)
            #expect(try scratch.read("out/skin.zip") == Array("previous archive".utf8))
        }
        // The file the link points to is archived when named directly.
        var output = ZipMemoryOutput()
        try ZipArchiveWriter.write(
            [ZipEntry(name: try ZipEntryName("a.txt"), source: .file(path: secret))], to: &output)
    }

    @Test func writingIntoAMissingDirectoryFails() throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        let destination = scratch.path("missing/skin.zip")
        do {
            try ZipArchiveWriter.write([], to: destination)
            Issue.record("writing into a missing directory succeeded")
        } catch {
            #expect(error.code == "output_failed")
            #expect(error.path == destination)
            #expect(!error.message.contains(scratch.path))
        }
    }

    /// A sink that runs an action on its first write and can fail on demand.
    struct InterferingOutput: ZipOutput {
        struct Failure: Error {}
        var bytes: [UInt8] = []
        var onFirstWrite: () -> Void = {}
        var fail = false
        private var writes = 0

        init(onFirstWrite: @escaping () -> Void = {}, fail: Bool = false) {
            self.onFirstWrite = onFirstWrite
            self.fail = fail
        }

        mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
            if fail { throw Failure() }
            if writes == 0 { onFirstWrite() }
            writes += 1
            self.bytes.append(contentsOf: bytes)
        }
    }

    @Test(arguments: [false, true])
    func sourceChangingWhileBeingWrittenIsDetected(_ grow: Bool) throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        var random = SplitMix64(seed: 11)
        let path = try scratch.write("big.png", random.bytes(100_000))
        var options = ZipArchiveWriter.Options()
        options.bufferSize = 4096  // the file takes the two-pass path; the header is flushed before pass two
        var output = InterferingOutput(onFirstWrite: {
            // Rewrite the file with different bytes (same length, or longer).
            try? Data(random.bytes(grow ? 120_000 : 100_000)).write(to: URL(fileURLWithPath: path))
        })
        #expect(throws: ZipError.sourceChanged(path: path)) {
            try ZipArchiveWriter.write(
                [ZipEntry(name: try ZipEntryName("big.png"), source: .file(path: path))], to: &output, options: options)
        }
    }

    @Test func outputFailureIsReportedAsOutputFailed() throws {
        var output = InterferingOutput(fail: true)
        do {
            try ZipArchiveWriter.write([ZipEntry(name: try ZipEntryName("a"), source: .bytes([1, 2, 3]))], to: &output)
            Issue.record("a failing sink did not fail the write")
        } catch {
            #expect(error.code == "output_failed")
        }
    }

    @Test func summaryHashCoversExactlyTheBytesGivenToTheSink() throws {
        var output = ZipMemoryOutput()
        var options = ZipArchiveWriter.Options()
        options.bufferSize = 4096
        let summary = try ZipArchiveWriter.write(
            try SourceTree.make().entries(root: "", inMemory: true), to: &output, options: options)
        #expect(summary.sha256 == SHA256.hexHash(output.bytes))
        #expect(summary.size == UInt64(output.bytes.count))
    }

    @Test func largeCompressibleFileSpillsToDiskAndStillRoundTrips() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-zip-tests")
        // ~3 MB of JSON-ish text, compressing to ~100 KB: bigger than a 16 KiB spill limit.
        let text = Array(SourceTree.json(modules: 15_000).utf8)
        let path = try scratch.write("big.json", text)
        var options = ZipArchiveWriter.Options()
        options.spillMemoryLimit = 16 << 10
        options.temporaryDirectory = scratch.path
        let archive = scratch.path("big.zip")
        try ZipArchiveWriter.write(
            [ZipEntry(name: try ZipEntryName("big.json"), source: .file(path: path))], to: archive, options: options)
        try await verifyWithIndependentReaders(archive, expected: ["big.json": text], scratch: scratch)
        // The spill file was unlinked at once: nothing but our files remains.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter {
            $0.hasPrefix("livery-zip-spill")
        }
        #expect(leftovers.isEmpty)
    }
}

/// The `zip-bench` driver built next to this test bundle (`swift build --build-tests` builds it).
func zipBenchExecutable() throws -> String {
    try BuiltProduct.path("zip-bench")
}
