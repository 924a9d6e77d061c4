import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing

/// `appearance=any` packages (packaging side): one download per scale holding the light `config.json`, the dark
/// `config-dark.json` and every file either needs, deterministic and signed apart, read back by independent readers.
@Suite struct AnyAppearanceTests {
    @Test(arguments: [1, 2, 3])
    func holdsBothConfigsAndEveryFileEitherNeeds(_ scale: Int) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-any")
        let folder = Samples.folder("christmas-2026")
        let both = try #require(PackageVariant(scale: scale, contents: .any))
        let light = try await buildPackage(of: folder, try variant(scale, .light), in: scratch, name: "light.zip")
        let dark = try await buildPackage(of: folder, try variant(scale, .dark), in: scratch, name: "dark.zip")
        let any = try await buildPackage(of: folder, both, in: scratch, name: "any.zip")
        let expected = Set(light.contents.names).union(dark.contents.names).union(["config-dark.json"])
        #expect(Set(any.contents.names) == expected)
        #expect(any.contents.names.count == expected.count, "each file once")
        #expect(
            any.contents.files["config.json"] == light.contents.files["config.json"],
            "the light config, as the light package has it")
        #expect(
            any.contents.files["config-dark.json"] == dark.contents.files["config.json"],
            "the dark config, as the dark package has it")
        #expect(
            Set(dark.contents.names).subtracting(light.contents.names).isEmpty == false,
            "the sample's dark mode needs files light does not")
        for name in expected where !name.hasPrefix("config") {
            #expect(any.contents.files[name] == (light.contents.files[name] ?? dark.contents.files[name]), "\(name)")
        }
    }

    @Test func isDeterministicAndSignedApartFromEachAppearance() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-any")
        let folder = Samples.folder("christmas-2026")
        let first = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        let second = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        var signs = Set<String>()
        for both in PackageVariant.bothAppearances {
            #expect(both.description == "@\(both.scale)x-any")
            #expect(first.sign(for: both) == second.sign(for: both))
            _ = try first.build(both, to: scratch.path("a.zip"))
            _ = try second.build(both, to: scratch.path("b.zip"))
            #expect(try scratch.read("a.zip") == scratch.read("b.zip"))
            signs.insert(first.sign(for: both))
            for single in [try variant(both.scale, .light), try variant(both.scale, .dark)] {
                signs.insert(first.sign(for: single))
            }
        }
        #expect(signs.count == 9, "nine variants, nine signs")
    }

    @Test func aSkinFileCannotTakeTheDarkConfigsName() throws {
        let report = SkinValidator().validate(
            InMemorySkinSource(files: [
                "skin.json": Array(#"{"id": "s", "title": "S", "app": "demo"}"#.utf8),
                "config.json": Array(#"{"m": {"resources": {"r": "config-dark.json"}}}"#.utf8),
                "config-dark.json": Array("{}".utf8)
            ]))
        #expect(report.errors.map(\.code) == [.pathReserved])
    }

    @Test func packWritesTheBothAppearancesVariantFromTheCommandLine() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-any")
        let folder = Samples.folder("christmas-2026")
        let run = try await BuiltProduct.runLivery([
            "pack", folder, "-o", scratch.path("any.zip"), "--scale", "2", "--appearance", "any"
        ])
        try #require(run.status == 0, "\(run.transcript)")
        let fields = LiveryCommand.fields(of: run.standardOutput)
        #expect(fields["variant"] == "@2x-any")
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        #expect(fields["sign"] == packager.sign(for: try #require(PackageVariant(scale: 2, contents: .any))))
        let contents = try await IndependentReaders.read(scratch.path("any.zip"))
        #expect(contents.names.contains("config.json") && contents.names.contains("config-dark.json"))
    }
}
