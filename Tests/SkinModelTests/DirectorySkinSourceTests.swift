import Foundation
import SkinDirectory
import SkinModel
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct DirectorySkinSourceTests {
    @Test func listsFilesRecursivelyInBytewiseOrder() throws {
        let skin = try Fixture.makeDirectory([
            "b.png": Bytes.png, "a/z.gif": Bytes.gif, "a/b/c.json": Bytes.text("{}"), "B.txt": []
        ])
        let files = try DirectorySkinSource(path: skin.path).listFiles()
        #expect(files.map(\.path) == ["B.txt", "a/b/c.json", "a/z.gif", "b.png"])
        #expect(files.map(\.size) == [0, 2, Bytes.gif.count, Bytes.png.count])
        #expect(files.allSatisfy { $0.kind == .regular && $0.nameIsValidUTF8 })
    }

    @Test func reportsSymlinksWithoutFollowingThem() throws {
        let elsewhere = try Fixture.makeDirectory(["secret.png": Bytes.png])
        let skin = try Fixture.makeDirectory(["ok.png": Bytes.png])
        try FileManager.default.createSymbolicLink(
            atPath: skin.path + "/link.png", withDestinationPath: elsewhere.path + "/secret.png")
        try FileManager.default.createSymbolicLink(atPath: skin.path + "/dir", withDestinationPath: elsewhere.path)
        let source = DirectorySkinSource(path: skin.path)
        let files = try source.listFiles()
        #expect(files.map(\.path) == ["dir", "link.png", "ok.png"])
        #expect(files.map(\.isSymlink) == [true, true, false])
        #expect(throws: SkinSourceError.refusedPath("link.png")) { try source.read("link.png") }
        #expect(throws: SkinSourceError.refusedPath("dir/secret.png")) { try source.read("dir/secret.png") }
    }

    @Test func refusesPathsThatLeaveTheSkin() throws {
        let skin = try Fixture.makeDirectory(["a/x.png": Bytes.png])
        let source = DirectorySkinSource(path: skin.path)
        for path in ["../x.png", "a/../../x", "/etc/passwd", "a//x.png", "./a/x.png", ""] {
            #expect(throws: SkinSourceError.refusedPath(path)) { try source.read(path) }
        }
        #expect(try source.read("a/x.png") == Bytes.png)
        #expect(throws: SkinSourceError.notFound("a/y.png")) { try source.read("a/y.png") }
    }

    @Test func readsOnlyThePrefixAskedFor() throws {
        let big = [UInt8](repeating: 7, count: 200_000)
        let skin = try Fixture.makeDirectory(["big.bin": big])
        let source = DirectorySkinSource(path: skin.path)
        #expect(try source.readPrefix("big.bin", maxBytes: 12) == [UInt8](repeating: 7, count: 12))
        #expect(try source.read("big.bin") == big)
    }

    @Test func flagsNamesThatAreNotUTF8() throws {
        let skin = try Fixture.makeDirectory(["ok.png": Bytes.png])
        let name: [UInt8] = Array((skin.path + "/bad").utf8) + [0xFF, 0xFE] + Array(".png".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        try #require(descriptor >= 0)
        close(descriptor)
        let files = try DirectorySkinSource(path: skin.path).listFiles()
        let bad = try #require(files.first { !$0.nameIsValidUTF8 })
        #expect(bad.path == "bad\u{FFFD}\u{FFFD}.png")
    }

    @Test func reportsSpecialFiles() throws {
        let skin = try Fixture.makeDirectory([:])
        try #require(mkfifo(skin.path + "/pipe", 0o644) == 0)
        let source = DirectorySkinSource(path: skin.path)
        #expect(try source.listFiles().map(\.kind) == [.other])
        #expect(throws: SkinSourceError.notARegularFile("pipe")) { _ = try source.readPrefix("pipe", maxBytes: 1) }
    }

    @Test func reportsAMissingOrWrongRoot() throws {
        #expect(throws: SkinSourceError.rootNotFound) { try DirectorySkinSource(path: "/nonexistent/skin").listFiles() }
        let skin = try Fixture.makeDirectory(["file": []])
        #expect(throws: SkinSourceError.rootNotADirectory) {
            try DirectorySkinSource(path: skin.path + "/file").listFiles()
        }
    }

    @Test func validatorReportsSymlinksNonUTF8AndFIFOsInAFolder() throws {
        let skin = try Fixture.makeDirectory([
            "skin.json": Bytes.text(Fixture.manifest), "config.json": Bytes.text(#"{"m": {"images": {"a": "logo"}}}"#)
        ])
        try FileManager.default.createSymbolicLink(
            atPath: skin.path + "/logo.png", withDestinationPath: "/etc/hostname")
        try #require(mkfifo(skin.path + "/pipe", 0o644) == 0)
        let name: [UInt8] = Array((skin.path + "/caf").utf8) + [0xE9] + Array(".png".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        try #require(descriptor >= 0)
        close(descriptor)
        let report = validate(DirectorySkinSource(path: skin.path))
        #expect(report.codes.sorted() == ["path.not-utf8", "path.special-file", "path.symlink"])
        #expect(report.first(.pathSymlink)?.file == "logo.png")
    }

    @Test func validatorCallsAMissingFolderUnreadable() {
        let report = validate(DirectorySkinSource(path: "/nonexistent/skin"))
        #expect(report.sourceWasUnreadable)
        #expect(report.codes == ["source.unreadable"])
        #expect(report.renderedText(name: "x").hasPrefix("x: UNREADABLE"))
    }
}
