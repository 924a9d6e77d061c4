import Foundation
import TestSupport
import Testing

@Suite struct ScratchDirectoryTests {
    @Test func holdsWhatIsWrittenAndIsRemovedWithEverythingInIt() throws {
        var root = ""
        do {
            let scratch = try ScratchDirectory(prefix: "testsupport-scratch")
            root = scratch.path
            #expect(root.hasPrefix(FileManager.default.temporaryDirectory.path + "/testsupport-scratch-"))
            #expect(try scratch.listing().isEmpty)
            let file = try scratch.write("a/b/c.bin", [1, 2, 3])
            #expect(file == scratch.path("a/b/c.bin"))
            #expect(try scratch.read("a/b/c.bin") == [1, 2, 3])
            #expect(try scratch.write(["x.txt": [7], "y/z.txt": []], under: "tree") == scratch.path("tree"))
            #expect(try scratch.listing("tree") == ["x.txt", "y"])
            #expect(try scratch.copy(folder: scratch.path("tree"), to: "copy") == scratch.path("copy"))
            #expect(try scratch.read("copy/x.txt") == [7])
            #expect(try scratch.listing() == ["a", "copy", "tree"])
        }
        #expect(!root.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: root), "the folder goes with the last reference")
    }

    @Test func twoScratchFoldersNeverShareAPath() throws {
        let first = try ScratchDirectory(prefix: "testsupport-scratch")
        let second = try ScratchDirectory(prefix: "testsupport-scratch")
        #expect(first.path != second.path)
    }
}
