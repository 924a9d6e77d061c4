import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing

/// `"imageReferences": "file-path"`: Ziroom's client opens `path + "/" + value` for each image, so every image
/// reference in every package's `config.json` must name a file of that very package.
@Suite struct FilePathReferenceTests {
    /// Every spelling that names a file of the skin, a solid color and a remote image, with a dark override that
    /// swaps an image, an image that exists only at @2x and one pinned to @3x.
    static func skin(imageReferences: String?) -> [String: [UInt8]] {
        let style = imageReferences.map { #", "imageReferences": "\#($0)""# } ?? ""
        var files: [String: [UInt8]] = [
            "skin.json": Array(#"{"id": "ziroom", "title": "Ziroom", "app": "demo"\#(style)}"#.utf8),
            "config.json": Array(
                #"""
                {"home": {"images": {
                    "home_topLogo": "home_topLogo",
                    "with_extension": "tab.png",
                    "as_file": "file://images/banner.png",
                    "by_name": {"name": "tab"},
                    "by_file": {"file": "file_only@2x.png"},
                    "auu_bundled": {"type": 0, "name": "tab.png", "note": "kept"},
                    "auu_file": {"type": 1, "name": "images/banner"},
                    "pinned": "home_topLogo@3x.png",
                    "solid": {"color": "FFF5E1"},
                    "remote": "https://cdn.example.com/promo.png"
                 }},
                 "dark": {"home": {"images": {"by_name": {"name": "night"}}}}}
                """#.utf8)
        ]
        for name in [
            "home_topLogo.png", "home_topLogo@2x.png", "home_topLogo@3x.png", "tab.png", "tab@2x.png", "tab@3x.png",
            "images/banner@2x.png", "images/banner@3x.png", "file_only@2x.png", "night@3x.png"
        ] {
            files[name] = samplePNG(marker: name)
        }
        return files
    }

    /// Unzips the package with Python's `zipfile` and, for every image value, opens exactly `path + "/" + value`
    /// (a string, or the `name`/`file` of an image object); prints what it checked and what it could not open.
    static let literalClient = #"""
        import json, os, sys, zipfile
        archive, path = sys.argv[1], sys.argv[2]
        zipfile.ZipFile(archive).extractall(path)
        opened, failed = [], []
        configs = [json.load(open(path + "/" + name, encoding="utf-8")) for name in ("config.json", "config-dark.json") if os.path.isfile(path + "/" + name)]
        for module in [module for config in configs for module in config.values()]:
            for key, value in module.get("images", {}).items():
                if isinstance(value, dict):
                    if value.get("type") in (2, 3) or "color" in value:
                        continue
                    value = value.get("name", value.get("file"))
                if value.startswith("https://"):
                    continue
                (opened if os.path.isfile(path + "/" + value) else failed).append(key + "=" + value)
        print(json.dumps({"opened": sorted(opened), "failed": sorted(failed)}))
        """#

    struct ClientReport: Decodable {
        var opened: [String]
        var failed: [String]
    }

    @Test func aLiteralClientOpensEveryImageOfEveryVariant() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-file-path")
        let folder = try scratch.write(Self.skin(imageReferences: "file-path"), under: "skin")
        for variant in PackageVariant.all + PackageVariant.bothAppearances {
            let package = try await buildPackage(of: folder, variant, in: scratch, name: "\(variant).zip")
            let run = try await ExternalProcess.run(
                "python3", ["-c", Self.literalClient, package.path, scratch.path("unzipped-\(variant)")])
            try #require(run.status == 0, "\(run.transcript)")
            let report = try JSONDecoder().decode(ClientReport.self, from: Data(run.standardOutput.utf8))
            #expect(report.failed.isEmpty, "\(variant): \(report.failed)")
            #expect(report.opened.count == (variant.appearance == .any ? 16 : 8), "\(variant): \(report.opened)")
            let config = try parsedConfig(package.contents)
            let images = try #require((config["home"] as? [String: Any])?["images"] as? [String: Any])
            #expect(
                images["home_topLogo"] as? String
                    == "home_topLogo@\(variant.scale)x.png".replacingOccurrences(of: "@1x", with: ""))
            #expect(images["as_file"] as? String == "images/banner@\(max(variant.scale, 2))x.png", "file:// is dropped")
            #expect(images["pinned"] as? String == "home_topLogo@3x.png")
            #expect((images["auu_bundled"] as? [String: Any])?["note"] as? String == "kept")
            #expect((images["solid"] as? [String: Any])?["color"] as? String == "FFF5E1")
            #expect(images["remote"] as? String == "https://cdn.example.com/promo.png")
            let byName = (images["by_name"] as? [String: Any])?["name"] as? String
            #expect(
                byName
                    == (variant.appearance == .dark
                        ? "night@3x.png" : "tab@\(variant.scale)x.png".replacingOccurrences(of: "@1x", with: "")))
        }
    }

    @Test func asWrittenIsTheDefaultAndKeepsEveryReference() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-file-path")
        let folder = try scratch.write(Self.skin(imageReferences: nil), under: "skin")
        let package = try await buildPackage(of: folder, try variant(3, .light), in: scratch)
        let images = try #require(
            (try parsedConfig(package.contents)["home"] as? [String: Any])?["images"] as? [String: Any])
        #expect(images["home_topLogo"] as? String == "home_topLogo")
        #expect(images["as_file"] as? String == "file://images/banner.png")
    }

    @Test func filePathPackagesAreDeterministicAndSignedApart() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-file-path")
        let rewritten = try scratch.write(Self.skin(imageReferences: "file-path"), under: "rewritten")
        let written = try scratch.write(Self.skin(imageReferences: "as-written"), under: "written")
        let first = try SkinPackager(
            skin: try validatedSkin(at: rewritten), source: DirectorySkinSource(path: rewritten))
        let second = try SkinPackager(
            skin: try validatedSkin(at: rewritten), source: DirectorySkinSource(path: rewritten))
        let plain = try SkinPackager(skin: try validatedSkin(at: written), source: DirectorySkinSource(path: written))
        for variant in PackageVariant.all {
            #expect(first.sign(for: variant) == second.sign(for: variant))
            #expect(first.sign(for: variant) != plain.sign(for: variant), "the config differs, so the sign does")
            _ = try first.build(variant, to: scratch.path("a.zip"))
            _ = try second.build(variant, to: scratch.path("b.zip"))
            #expect(try scratch.read("a.zip") == scratch.read("b.zip"))
        }
    }
}
