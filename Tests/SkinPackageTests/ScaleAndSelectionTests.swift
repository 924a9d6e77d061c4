import Foundation
import SkinDirectory
import SkinModel
import TestSupport
import Testing

/// Which file of each image a package carries, and that nothing unreferenced is packed.
@Suite struct ScaleAndSelectionTests {
    static let manifest = Array(#"{"id": "scale-test", "title": "Scale Test", "app": "demo"}"#.utf8)

    /// A skin folder with `skin.json`, `config.json` and `files` (relative path → bytes).
    static func makeSkin(in scratch: ScratchDirectory, config: String, files: [String: [UInt8]]) throws -> String {
        try scratch.write("skin/skin.json", manifest)
        try scratch.write("skin/config.json", Array(config.utf8))
        for (path, bytes) in files { try scratch.write("skin/" + path, bytes) }
        return scratch.path("skin")
    }

    /// `icon.png`, `icon@2x.png`, `icon@3x.png` for the given scales, each with distinct bytes.
    static func icons(_ scales: [Int]) -> [String: [UInt8]] {
        Dictionary(
            uniqueKeysWithValues: scales.map { scale in
                (scale == 1 ? "icon.png" : "icon@\(scale)x.png", samplePNG(marker: "scale \(scale)"))
            })
    }

    @Test(arguments: [
        // Only @3x: every package takes it, @1x included.
        ([3], 1, "icon@3x.png"), ([3], 2, "icon@3x.png"), ([3], 3, "icon@3x.png"),
        // @1x and @3x: @2x is as far from both, and the higher wins (downscaling looks better).
        ([1, 3], 1, "icon.png"), ([1, 3], 2, "icon@3x.png"), ([1, 3], 3, "icon@3x.png"),
        // @1x and @2x: the @3x package takes the nearest, @2x.
        ([1, 2], 1, "icon.png"), ([1, 2], 2, "icon@2x.png"), ([1, 2], 3, "icon@2x.png"),
        // Only @1x.
        ([1], 3, "icon.png")
    ])
    func packageTakesTheRequestedScaleOrTheNearestPreferringHigher(
        available: [Int], scale: Int, expected: String
    ) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let files = Self.icons(available)
        let folder = try Self.makeSkin(in: scratch, config: #"{"m": {"images": {"icon": "icon"}}}"#, files: files)
        let skin = try validatedSkin(at: folder)
        let asset = try #require(
            skin.config.modules.first?.images.first.flatMap { entry -> ImageAsset? in
                if case .asset(let asset) = entry.value { asset } else { nil }
            })
        #expect(asset.file(forScale: scale)?.rawValue == expected, "the model's rule")

        for appearance in Appearance.allCases {
            let package = try await buildPackage(
                of: folder, try variant(scale, appearance), in: scratch, name: "\(appearance).zip")
            #expect(package.contents.names == ["config.json", expected])
            #expect(ByteString(package.contents.files[expected]) == ByteString(files[expected]))
        }
    }

    @Test func aReferenceNamingOneScaleShipsThatFileInEveryVariant() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let files = Self.icons([1, 2, 3])
        let folder = try Self.makeSkin(
            in: scratch, config: #"{"m": {"images": {"icon": "icon@2x.png"}}}"#, files: files)
        for variant in PackageVariant.all {
            let package = try await buildPackage(of: folder, variant, in: scratch, name: "\(variant).zip")
            #expect(package.contents.names == ["config.json", "icon@2x.png"])
        }
    }

    @Test func unreferencedFilesAreLeftOutOfEveryVariant() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        var files = Self.icons([1, 2, 3])
        files["unused.png"] = samplePNG(marker: "unused")
        files["drafts/old@2x.png"] = samplePNG(marker: "old")
        files["notes.txt"] = Array("designer notes\n".utf8)
        files["anim/unused.json"] = Array(#"{"v": "5.7.4"}"#.utf8)
        files["anim/used.json"] = Array(#"{"v": "5.7.4", "layers": []}"#.utf8)
        let config = #"{"m": {"images": {"icon": "icon"}, "resources": {"anim": "anim/used.json"}}}"#
        let folder = try Self.makeSkin(in: scratch, config: config, files: files)
        let report = SkinValidator().validate(DirectorySkinSource(path: folder))
        let unreferenced = report.warnings.filter { $0.code == .assetUnreferenced }.count
        #expect(unreferenced == 4, "the validator warns about each: \(report.issues)")

        for variant in PackageVariant.all {
            let package = try await buildPackage(of: folder, variant, in: scratch, name: "\(variant).zip")
            let icon = variant.scale == 1 ? "icon.png" : "icon@\(variant.scale)x.png"
            #expect(package.contents.names == ["anim/used.json", "config.json", icon])
        }
    }

    @Test func imagesOnlyTheDarkAppearanceUsesAreLeftOutOfLightPackages() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let files = ["day.png": samplePNG(marker: "day"), "night.png": samplePNG(marker: "night")]
        let config = #"{"m": {"images": {"bg": "day"}}, "dark": {"m": {"images": {"bg": "night"}}}}"#
        let folder = try Self.makeSkin(in: scratch, config: config, files: files)
        let light = try await buildPackage(of: folder, try variant(3, .light), in: scratch, name: "light.zip")
        let dark = try await buildPackage(of: folder, try variant(3, .dark), in: scratch, name: "dark.zip")
        #expect(light.contents.names == ["config.json", "day.png"])
        #expect(dark.contents.names == ["config.json", "night.png"])
        #expect(string(in: try parsedConfig(dark.contents), "m", "images", "bg") == "night")
        #expect(string(in: try parsedConfig(light.contents), "m", "images", "bg") == "day")
    }
}
