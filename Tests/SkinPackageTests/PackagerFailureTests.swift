import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import Synchronization
import TestSupport
import Testing
import ZipArchive
import ZipReading

/// How building fails: a typed error naming the skin file or the output, and nothing left at the output path.
@Suite struct PackagerFailureTests {
    /// A directory source that claims a file-system path for `brokenPath` where there is no file, as if the file
    /// vanished between the packager's checks and the writer opening it.
    struct VanishingFileSource: SkinSource {
        let base: DirectorySkinSource
        let brokenPath: String
        let missingFile: String

        func listFiles() throws(SkinSourceError) -> [SkinFile] { try base.listFiles() }
        func read(_ path: String) throws(SkinSourceError) -> [UInt8] { try base.read(path) }
        func filePath(of path: String) -> String? { path == brokenPath ? missingFile : base.filePath(of: path) }
    }

    @Test func sourceRemovedAfterTheSkinWasHashedIsReportedByItsSkinPath() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("christmas-2026"), to: "skin")
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        try FileManager.default.removeItem(atPath: folder + "/xmas/snow.gif")
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: false)
        #expect(throws: SkinPackageError.unreadable("xmas/snow.gif")) {
            try packager.build(.standard, to: scratch.path("out/package.zip"))
        }
        #expect(try scratch.listing("out") == [])
    }

    @Test func writerFailingToOpenASourceIsReportedByItsSkinPath() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder("christmas-2026")
        let source = VanishingFileSource(
            base: DirectorySkinSource(path: folder), brokenPath: "xmas/snow.gif", missingFile: scratch.path("gone.gif"))
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        let vanishing = try SkinPackager(skin: packager.skin, source: source)
        #expect(throws: SkinPackageError.unreadable("xmas/snow.gif")) {
            try vanishing.build(.standard, to: scratch.path("package.zip"))
        }
        #expect(!fileExists(scratch.path("package.zip")))
    }

    @Test func unwritableDestinationThrowsWriteFailedWithTheSystemReason() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder("double-11-2026")
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        let destination = scratch.path("missing/package.zip")
        let error = #expect(throws: SkinPackageError.self) { try packager.build(.standard, to: destination) }
        guard case .writeFailed(let message)? = error else {
            Issue.record("expected writeFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("No such file or directory"), "\(message)")
        #expect(!fileExists(destination))
    }

    @Test func failedBuildLeavesAnExistingPackageUntouched() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("double-11-2026"), to: "skin")
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        let previous = Array("the previous package".utf8)
        try scratch.write("out/package.zip", previous)
        try FileManager.default.removeItem(atPath: folder + "/promo/confetti.json")
        #expect(throws: SkinPackageError.unreadable("promo/confetti.json")) {
            try packager.build(.standard, to: scratch.path("out/package.zip"))
        }
        #expect(readFile(scratch.path("out/package.zip")) == previous)
        #expect(try scratch.listing("out") == ["package.zip"])
    }

    @Test func errorDescriptionsShowControlCharactersEscaped() {
        #expect(SkinPackageError.invalidEntryName("a\u{85}b.png").description == #"invalid entry name 'a\u{85}b.png'"#)
        #expect(SkinPackageError.unreadable("x\u{1B}[2J.png").description == #"cannot read skin file 'x\u{1b}[2J.png'"#)
    }

    /// Every skin the validator accepts must pack. `ZipEntryName` refuses C1 control characters (U+0080–U+009F)
    /// in names, so the validator refuses them too (`path.invalid`), both the file and the reference to it.
    @Test func skinWithAC1ControlCharacterInAFileNameIsRejectedByValidation() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        try scratch.write("skin/skin.json", Array(#"{"id": "c1-name", "title": "C1 name", "app": "demo"}"#.utf8))
        try scratch.write("skin/config.json", Array(#"{"m": {"images": {"i": "a\u0085b.png"}}}"#.utf8))
        try scratch.write("skin/a\u{85}b.png", samplePNG(marker: "c1"))
        let source = DirectorySkinSource(path: scratch.path("skin"))
        let report = SkinValidator().validate(source)
        #expect(report.skin == nil)
        #expect(report.issues.contains { $0.code == .pathInvalid && $0.file == "a\u{85}b.png" && $0.pointer.isEmpty })
        #expect(report.issues.contains { $0.code == .pathInvalid && $0.pointer == "/m/images/i" })
        #expect(throws: ZipError.self) { try ZipEntryName("a\u{85}b.png") }
    }

    /// When a file is swapped for a symbolic link, shared by a test and the source it hands to the packager.
    final class Swap: Sendable {
        private let done = Mutex(false)
        var hasHappened: Bool { done.withLock { $0 } }
        func happen() { done.withLock { $0 = true } }
    }

    /// A directory source whose `filePath(of:)` answers `linkPath` for `swappedPath` once `swap` has happened, as
    /// if the file had been replaced by a symbolic link just after the source checked it: the race that opening
    /// with `O_NOFOLLOW` closes.
    struct SwappedForLinkSource: SkinSource {
        let base: DirectorySkinSource
        let swappedPath: String
        let linkPath: String
        let swap: Swap

        func listFiles() throws(SkinSourceError) -> [SkinFile] { try base.listFiles() }
        func read(_ path: String) throws(SkinSourceError) -> [UInt8] { try base.read(path) }
        func filePath(of path: String) -> String? {
            path == swappedPath && swap.hasHappened ? linkPath : base.filePath(of: path)
        }
    }

    /// A skin source over `folder` whose `xmas/snow.gif` turns into a link to a file outside the skin on `swap`.
    static func swappingSource(
        _ folder: String, _ scratch: ScratchDirectory, _ swap: Swap
    ) throws -> SwappedForLinkSource {
        let outside = try scratch.write("outside/secret.gif", Array("GIF89a not part of the skin".utf8))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link.gif"), withDestinationPath: outside)
        return SwappedForLinkSource(
            base: DirectorySkinSource(path: folder), swappedPath: "xmas/snow.gif", linkPath: scratch.path("link.gif"),
            swap: swap)
    }

    @Test func hashingRefusesAFileSwappedForASymbolicLink() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder("christmas-2026")
        let swap = Swap()
        swap.happen()
        let source = try Self.swappingSource(folder, scratch, swap)
        #expect(throws: SkinPackageError.symbolicLink("xmas/snow.gif")) {
            try SkinPackager(skin: try validatedSkin(at: folder), source: source)
        }
    }

    @Test func writingRefusesAFileSwappedForASymbolicLinkAfterHashing() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder("christmas-2026")
        let swap = Swap()
        let packager = try SkinPackager(
            skin: try validatedSkin(at: folder), source: try Self.swappingSource(folder, scratch, swap))
        swap.happen()
        let error = #expect(throws: SkinPackageError.symbolicLink("xmas/snow.gif")) {
            try packager.build(.standard, to: scratch.path("package.zip"))
        }
        #expect(error?.description == "skin file 'xmas/snow.gif' is a symbolic link (never followed)")
        #expect(!fileExists(scratch.path("package.zip")))
    }

    @Test func fileSwappedForASymbolicLinkOnDiskIsNeverPacked() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("christmas-2026"), to: "skin")
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        let outside = try scratch.write("outside/secret.gif", Array("GIF89a not part of the skin".utf8))
        try FileManager.default.removeItem(atPath: folder + "/xmas/snow.gif")
        try FileManager.default.createSymbolicLink(atPath: folder + "/xmas/snow.gif", withDestinationPath: outside)
        #expect(throws: SkinPackageError.self) { try packager.build(.standard, to: scratch.path("package.zip")) }
        #expect(!fileExists(scratch.path("package.zip")))
    }
}
