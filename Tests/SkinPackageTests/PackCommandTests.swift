import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing

/// `livery pack` as a user runs it: the built binary in a child process.
@Suite struct PackCommandTests {
    @Test func packsAValidSkinAndPrintsItsIdentity() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder("christmas-2026")
        let run = try await BuiltProduct.runLivery([
            "pack", folder, "-o", scratch.path("out.zip"), "--scale", "2", "--appearance", "dark"
        ])
        try #require(run.status == 0, "\(run.transcript)")
        let fields = LiveryCommand.fields(of: run.standardOutput)
        let digest = try await ExternalTool.sha256(ofFile: scratch.path("out.zip"))
        #expect(fields["sha256"] == digest)
        #expect(fields["size"] == String(readFile(scratch.path("out.zip"))?.count ?? -1))
        #expect(fields["entries"] == "8")
        #expect(fields["variant"] == "@2x-dark")
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        #expect(fields["sign"] == packager.sign(for: try variant(2, .dark)))
        #expect(try scratch.listing() == ["out.zip"], "no temporary file is left beside the package")
        _ = try await IndependentReaders.read(scratch.path("out.zip"))
    }

    @Test func defaultsToTheStandardVariantAndPrintsJSONOnRequest() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = Samples.folder("spring-festival-2027")
        let run = try await BuiltProduct.runLivery(["pack", folder, "--output", scratch.path("out.zip"), "--json"])
        try #require(run.status == 0, "\(run.transcript)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(object["variant"] as? String == "@3x-light")
        let digest = try await ExternalTool.sha256(ofFile: scratch.path("out.zip"))
        #expect(object["sha256"] as? String == digest)
        #expect(object["entries"] as? Int == 9)
        #expect((object["size"] as? Int).map(UInt64.init) == readFile(scratch.path("out.zip")).map { UInt64($0.count) })
        let packager = try SkinPackager(skin: try validatedSkin(at: folder), source: DirectorySkinSource(path: folder))
        let summary = try packager.build(.standard, to: scratch.path("in-process.zip"))
        #expect(object["sha256"] as? String == summary.sha256)
        #expect(object["sign"] as? String == packager.sign(for: .standard))
    }

    /// Ways to break the christmas sample, each caught by the validator: (what, file, new content).
    static let breakages: [(String, String, String?)] = [
        ("a bad color", "config.json", ##"{"m": {"colors": {"c": "#GG0000"}}}"##),
        ("a missing image", "config.json", #"{"m": {"images": {"i": "xmas/nothing"}}}"#),
        ("an http URL", "config.json", #"{"m": {"images": {"i": "http://cdn.example.com/a.png"}}}"#),
        ("unparsable JSON", "config.json", "{\"m\": {\"values\": {\"v\": 1,}}}"),
        ("a PNG that is not a PNG", "xmas/snow.gif", "not a gif"),
        ("no skin.json", "skin.json", nil)
    ]

    @Test(arguments: breakages)
    func invalidSkinExitsOneAndWritesNoPackage(what: String, file: String, content: String?) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("christmas-2026"), to: "skin")
        if let content {
            try scratch.write("skin/" + file, Array(content.utf8))
        } else {
            try FileManager.default.removeItem(atPath: folder + "/" + file)
        }
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: false)
        let run = try await BuiltProduct.runLivery(["pack", folder, "-o", scratch.path("out/package.zip")])
        #expect(run.status == 1, "\(what): \(run.transcript)")
        #expect(run.standardOutput.contains("INVALID"), "\(what): the report is printed")
        #expect(run.standardOutput.contains("fix:"), "\(what): the report says how to fix it")
        #expect(try scratch.listing("out") == [], "\(what): nothing is written")
    }

    @Test func invalidSkinLeavesAnExistingPackageUntouchedAndReportsJSONOnRequest() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let folder = try scratch.copy(folder: Samples.folder("christmas-2026"), to: "skin")
        try scratch.write("skin/config.json", Array(##"{"m": {"colors": {"c": "#GG0000"}}}"##.utf8))
        let previous = Array("the previous package".utf8)
        try scratch.write("out/package.zip", previous)
        let run = try await BuiltProduct.runLivery(["pack", folder, "-o", scratch.path("out/package.zip"), "--json"])
        #expect(run.status == 1, "\(run.transcript)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(report["valid"] as? Bool == false)
        let issue = try #require((report["issues"] as? [[String: Any]])?.first)
        #expect(issue["pointer"] as? String == "/m/colors/c")
        #expect(readFile(scratch.path("out/package.zip")) == previous)
        #expect(try scratch.listing("out") == ["package.zip"])
    }

    @Test func unusableInputExitsTwoAndWritesNothing() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        try scratch.write("not-a-folder", Array("plain file".utf8))
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: false)
        for input in [scratch.path("missing-skin"), scratch.path("not-a-folder")] {
            let run = try await BuiltProduct.runLivery(["pack", input, "-o", scratch.path("out/package.zip")])
            #expect(run.status == 2, "\(input): \(run.transcript)")
            #expect(!run.standardError.isEmpty, "\(input): the reason goes to standard error")
            #expect(try scratch.listing("out") == [])
        }
        let json = try await BuiltProduct.runLivery([
            "pack", scratch.path("missing-skin"), "-o", scratch.path("out/package.zip"), "--json"
        ])
        #expect(json.status == 2, "\(json.transcript)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(report["valid"] as? Bool == false)
        #expect(try scratch.listing("out") == [])
    }

    @Test func unwritableOutputExitsTwoAndSaysWhy() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let output = scratch.path("missing-folder/package.zip")
        let run = try await BuiltProduct.runLivery(["pack", Samples.folder("double-11-2026"), "-o", output])
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.standardError.contains("No such file or directory"), "\(run.transcript)")
        #expect(run.standardError.contains("fix: Check that the output folder exists and is writable."))
        #expect(!fileExists(output))
    }

    @Test(arguments: [["--scale", "4"], ["--scale", "0"], ["--appearance", "sepia"]])
    func unknownVariantIsAUsageError(arguments: [String]) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let run = try await BuiltProduct.runLivery(
            ["pack", Samples.folder("double-11-2026"), "-o", scratch.path("p.zip")] + arguments)
        #expect(
            run.status == 2,
            "bad arguments exit 2, as the docs state for every command (not ArgumentParser's 64): \(run.transcript)")
        #expect(run.standardError.contains(arguments[0]), "\(run.transcript)")
        #expect(try scratch.listing() == [])
    }
}
