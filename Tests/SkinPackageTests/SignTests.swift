import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing

/// A package's sign names its content: stable while the packaged bytes stay, changed when they change.
@Suite struct SignTests {
    static func signs(of folder: String) throws -> [PackageVariant: String] {
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        return Dictionary(uniqueKeysWithValues: PackageVariant.all.map { ($0, packager.sign(for: $0)) })
    }

    /// SHA-256 of every variant's archive, built into `scratch`.
    static func archiveDigests(
        of folder: String, in scratch: ScratchDirectory, tag: String
    ) throws -> [PackageVariant: String] {
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        var digests: [PackageVariant: String] = [:]
        for variant in PackageVariant.all {
            digests[variant] = try packager.build(variant, to: scratch.path("\(tag)-\(variant).zip")).sha256
        }
        return digests
    }

    @Test(arguments: Samples.names)
    func signIsStableAcrossPackagersAndProcesses(sample: String) async throws {
        let folder = Samples.folder(sample)
        let first = try Self.signs(of: folder)
        #expect(try Self.signs(of: folder) == first)
        for sign in first.values {
            #expect(sign.count == 32 && sign.allSatisfy { "0123456789abcdef".contains($0) }, "\(sign)")
        }
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let run = try await BuiltProduct.runLivery([
            "pack", folder, "-o", scratch.path("p.zip"), "--scale", "1", "--appearance", "dark"
        ])
        try #require(run.status == 0, "\(run.transcript)")
        #expect(LiveryCommand.fields(of: run.standardOutput)["sign"] == first[try variant(1, .dark)])
    }

    @Test func variantsWithDifferentContentHaveDifferentSigns() throws {
        let signs = try Self.signs(of: Samples.folder("christmas-2026"))
        #expect(Set(signs.values).count == 6, "christmas-2026 has dark overrides, so all six packages differ")
    }

    @Test func changingOneByteOfAnAssetChangesTheSignOfExactlyThePackagesHoldingIt() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("christmas-2026"), to: "skin")
        let signsBefore = try Self.signs(of: folder)
        let archivesBefore = try Self.archiveDigests(of: folder, in: scratch, tag: "before")

        // The last byte (inside the IEND chunk's CRC) changes; the PNG signature the validator checks stays.
        let asset = folder + "/xmas/tab_tree@3x.png"
        var bytes = try #require(readFile(asset))
        bytes[bytes.count - 1] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: asset))

        let signsAfter = try Self.signs(of: folder)
        let archivesAfter = try Self.archiveDigests(of: folder, in: scratch, tag: "after")
        for variant in PackageVariant.all {
            let holdsIt = variant.scale == 3
            #expect((signsAfter[variant] != signsBefore[variant]) == holdsIt, "sign of \(variant)")
            #expect((archivesAfter[variant] != archivesBefore[variant]) == holdsIt, "archive of \(variant)")
        }
    }

    @Test func addingAnUnreferencedFileChangesNoSignAndNoArchive() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("spring-festival-2027"), to: "skin")
        let signsBefore = try Self.signs(of: folder)
        let archivesBefore = try Self.archiveDigests(of: folder, in: scratch, tag: "before")

        try scratch.write("skin/images/unused@3x.png", samplePNG(marker: "unused"))
        try scratch.write("skin/notes/README.txt", Array("draft\n".utf8))
        let report = SkinValidator().validate(DirectorySkinSource(path: folder))
        #expect(report.warnings.filter { $0.code == .assetUnreferenced }.count == 2)

        #expect(try Self.signs(of: folder) == signsBefore)
        #expect(try Self.archiveDigests(of: folder, in: scratch, tag: "after") == archivesBefore)
    }

    @Test func changingConfigChangesEverySign() throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("double-11-2026"), to: "skin")
        let before = try Self.signs(of: folder)
        let config = folder + "/config.json"
        let text = String(decoding: try #require(readFile(config)), as: UTF8.self)
        try Data(text.replacingOccurrences(of: "\"#333\"", with: "\"#444\"").utf8).write(
            to: URL(fileURLWithPath: config))
        let after = try Self.signs(of: folder)
        for variant in PackageVariant.all { #expect(after[variant] != before[variant], "\(variant)") }
    }
}
