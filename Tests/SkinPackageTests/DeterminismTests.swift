import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing

/// The same skin and variant give the same bytes: in one process, across processes, from disk or memory.
@Suite struct DeterminismTests {
    @Test(arguments: Samples.names)
    func twoBuildsInOneProcessAreByteIdenticalWhateverTheFileTimesAndModes(sample: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder(sample), to: "skin")
        let first = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        for variant in PackageVariant.all { _ = try first.build(variant, to: scratch.path("first-\(variant).zip")) }

        // Times and permissions are not part of a package.
        for file in ReferenceOracle.files(under: folder) {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_900_000_000), .posixPermissions: 0o600],
                ofItemAtPath: folder + "/" + file)
        }
        let second = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        for variant in PackageVariant.all {
            let again = try second.build(variant, to: scratch.path("second-\(variant).zip"))
            let firstBytes = try #require(readFile(scratch.path("first-\(variant).zip")))
            #expect(
                ByteString(readFile(scratch.path("second-\(variant).zip"))) == ByteString(firstBytes),
                "\(sample) \(variant)")
            let digest = try await ExternalTool.sha256(ofFile: scratch.path("first-\(variant).zip"))
            #expect(again.sha256 == digest)
        }
    }

    @Test(arguments: Samples.names)
    func twoLiveryProcessesWriteTheSameSHA256(sample: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder(sample)
        var printed: [String] = []
        for name in ["a.zip", "b.zip"] {
            let run = try await BuiltProduct.runLivery([
                "pack", folder, "-o", scratch.path(name), "--scale", "2", "--appearance", "dark"
            ])
            try #require(run.status == 0, "\(run.transcript)")
            printed.append(LiveryCommand.fields(of: run.standardOutput)["sha256"] ?? "")
        }
        let first = try await ExternalTool.sha256(ofFile: scratch.path("a.zip"))
        let second = try await ExternalTool.sha256(ofFile: scratch.path("b.zip"))
        #expect(first == second)
        #expect(printed == [first, first], "livery prints the archive's real SHA-256")
        // And the test process itself builds the very same bytes.
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        let summary = try packager.build(try variant(2, .dark), to: scratch.path("in-process.zip"))
        #expect(summary.sha256 == first)
    }

    @Test(arguments: Samples.names)
    func packingFromMemoryGivesTheSameBytesAndSignsAsFromDisk(sample: String) throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder(sample)
        var files: [String: [UInt8]] = [:]
        for file in ReferenceOracle.files(under: folder) { files[file] = readFile(folder + "/" + file) }
        let memory = InMemorySkinSource(files: files)
        let fromMemory = try SkinPackager(skin: try #require(SkinValidator().validate(memory).skin), source: memory)
        let fromDisk = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        for variant in PackageVariant.all {
            #expect(fromMemory.sign(for: variant) == fromDisk.sign(for: variant))
            let memorySummary = try fromMemory.build(variant, to: scratch.path("memory.zip"))
            let diskSummary = try fromDisk.build(variant, to: scratch.path("disk.zip"))
            #expect(memorySummary == diskSummary)
            #expect(ByteString(readFile(scratch.path("memory.zip"))) == ByteString(readFile(scratch.path("disk.zip"))))
        }
    }
}
