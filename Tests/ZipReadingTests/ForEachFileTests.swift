import Foundation
import TestSupport
import Testing
import ZipReading

/// `ZipArchiveReader.forEachFile`: the whole structure is checked before the first file is handed over, then one
/// verified file at a time.
@Suite struct ForEachFileTests {
    static let png = Array(repeating: UInt8(7), count: 100)
    static let json = Array(##"{"home":{"colors":{"bg":"#FFFFFF"}}}"##.utf8)

    static func archive() throws -> [UInt8] {
        RawZip(entries: [
            .stored("images/", []),
            .stored("images/a.png", png),
            .deflated("config.json", content: json, compressed: try RawZip.deflate(json))
        ]).build()
    }

    static func names(_ archive: [UInt8]) throws -> [String] {
        var seen: [String] = []
        try archive.withUnsafeBytes { raw in
            try ZipArchiveReader.forEachFile(in: raw) { entry in seen.append(entry.name.rawValue) }
        }
        return seen
    }

    @Test func handsOverTheFilesExtractReturnsInTheSameOrder() throws {
        let archive = try Self.archive()
        var handed: [ExtractedEntry] = []
        try ZipArchiveReader.forEachFile(in: Data(archive)) { handed.append($0) }
        #expect(handed == (try ZipArchiveReader.extract(archive)))
        #expect(handed.map(\.name.rawValue) == ["images/a.png", "config.json"])
        #expect(handed.map(\.bytes) == [Self.png, Self.json])
    }

    @Test func readsAnArchiveFileMappedLikeItsBytes() throws {
        let scratch = try ScratchDirectory(prefix: "livery-zipreading")
        let path = try scratch.write("package.zip", try Self.archive())
        var handed: [ExtractedEntry] = []
        try ZipArchiveReader.forEachFile(inArchiveAt: URL(fileURLWithPath: path)) { handed.append($0) }
        #expect(handed == (try ZipArchiveReader.extract(try Self.archive())))
    }

    /// A later entry escaping the folder, a later symbolic link, a later duplicate: refused before the first
    /// (harmless) file reaches the caller.
    @Test(arguments: [
        (RawZip.Entry.stored("../evil.png", png), ZipReadError.unsafePath(name: "../evil.png")),
        (
            {
                var link = RawZip.Entry.stored("images/link.png", Array("/etc/passwd".utf8));
                link.externalAttributes = 0o120777 << 16; return link
            }(),
            ZipReadError.symlink(name: "images/link.png")
        ),
        (RawZip.Entry.stored("IMAGES/A.png", png), ZipReadError.duplicateEntry(name: "IMAGES/A.png"))
    ])
    func refusesAHostileArchiveBeforeHandingOverAnything(_ hostile: RawZip.Entry, _ expected: ZipReadError) throws {
        let archive = RawZip(entries: [.stored("images/a.png", Self.png), hostile]).build()
        var handed = 0
        #expect(throws: expected) {
            try archive.withUnsafeBytes { raw in try ZipArchiveReader.forEachFile(in: raw) { _ in handed += 1 } }
        }
        #expect(handed == 0)
    }

    @Test func refusesAnEntryOverTheLimitsBeforeHandingOverAnything() throws {
        let big = [UInt8](repeating: 0, count: 1 << 20)
        let archive = RawZip(entries: [
            .stored("a.png", Self.png), .deflated("bomb.json", content: big, compressed: try RawZip.deflate(big))
        ]).build()
        var handed = 0
        #expect(throws: ZipReadError.compressionRatioExceeded(name: "bomb.json", limit: 100)) {
            try ZipArchiveReader.forEachFile(in: Data(archive)) { _ in handed += 1 }
        }
        #expect(handed == 0)
    }

    /// A damaged CRC can only be seen by inflating: the files before it have been handed over, then it throws
    /// (which is why callers unpack into a fresh folder and remove it on any error).
    @Test func stopsAtTheFirstEntryWhoseBytesDoNotMatchItsCRC() throws {
        var damaged = RawZip.Entry.stored("b.png", Self.png)
        damaged.crc = 0xDEAD_BEEF
        let archive = RawZip(entries: [.stored("a.png", Self.png), damaged, .stored("c.png", Self.png)]).build()
        var handed: [String] = []
        #expect(throws: ZipReadError.crcMismatch(name: "b.png")) {
            try ZipArchiveReader.forEachFile(in: Data(archive)) { handed.append($0.name.rawValue) }
        }
        #expect(handed == ["a.png"])
    }

    struct Stop: Error, Equatable {}

    @Test func anErrorFromTheCallerStopsTheWalkAndIsRethrownAsItIs() throws {
        var handed = 0
        #expect(throws: Stop()) {
            try ZipArchiveReader.forEachFile(in: Data(try Self.archive())) { _ in
                handed += 1
                throw Stop()
            }
        }
        #expect(handed == 1)
    }
}
