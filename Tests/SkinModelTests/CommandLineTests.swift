import Foundation
import LiveryJSON
import SkinModel
import TestSupport
import Testing

/// Runs the built `livery` binary (a missing binary fails these tests; it does not skip them).
@Suite struct CommandLineTests {
    static let samples = Fixture.packageRoot + "/skins"

    /// A skin with an invalid color, in a scratch folder removed when the value goes away.
    static func brokenSkin() throws -> ScratchDirectory {
        try Fixture.makeDirectory([
            "skin.json": Bytes.text(Fixture.manifest),
            "config.json": Bytes.text(##"{"home_tabbar": {"colors": {"color_background": "#GG0000"}}}"##)
        ])
    }

    @Test func validateExitsZeroForAValidSkin() async throws {
        let output = try await BuiltProduct.runLivery(["validate", Self.samples + "/christmas-2026"])
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("(christmas-2026): valid, 0 errors, 0 warnings"))
    }

    /// `livery occurrences --every` computes a rule without a server, one line per year (issue 27); negative
    /// offsets parse as values, for `occurrences` and for `release`.
    @Test func occurrencesListsTheYearsOfARuleWithNegativeOffsets() async throws {
        let output = try await BuiltProduct.runLivery([
            "occurrences", "--every", "chinese:1-1", "--from-offset", "-7d", "--to-offset", "15d", "--time-zone",
            "Asia/Shanghai",
            "--at", "2026-12-01T00:00:00Z", "--count", "2"
        ])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardOutput == """
                2027 2027-01-30T00:00:00+08:00 2027-02-21T23:59:59+08:00
                2028 2028-01-19T00:00:00+08:00 2028-02-10T23:59:59+08:00

                """)
        let leap = try await BuiltProduct.runLivery([
            "occurrences", "--every", "chinese:L6-15", "--time-zone", "Asia/Shanghai"
        ])
        #expect(
            leap.status == 2 && leap.standardError.contains("/recurs/leapMonth"),
            "a leap sixth month is rare: refused, naming the years")
        // No server answers on port 1: the command gets past its arguments to the token or the connection.
        let release = try await BuiltProduct.runLivery(
            [
                "release", "spring", "--every", "chinese:1-1", "--from-offset", "-7d", "--to-offset", "15d", "--server",
                "http://127.0.0.1:1"
            ])
        #expect(release.standardError.hasPrefix("livery: "), "the arguments parse: \(release.standardError)")
    }

    @Test func validateExitsOneAndNamesFilePointerAndFix() async throws {
        let skin = try Self.brokenSkin()
        let output = try await BuiltProduct.runLivery(["validate", skin.path])
        #expect(output.status == 1)
        #expect(
            output.standardOutput.contains("error [color.invalid] config.json#/home_tabbar/colors/color_background"))
        #expect(output.standardOutput.contains("\"#GG0000\" is not a color."))
        #expect(output.standardOutput.contains("fix: Write it as one of:"))
    }

    @Test func validateExitsTwoForAMissingFolder() async throws {
        let output = try await BuiltProduct.runLivery(["validate", "/nonexistent/skin"])
        #expect(output.status == 2)
        #expect(output.standardError.contains("the skin folder does not exist"))
    }

    @Test func validatePrintsJSONOnRequest() async throws {
        let skin = try Self.brokenSkin()
        let output = try await BuiltProduct.runLivery(["validate", skin.path, "--json"])
        #expect(output.status == 1)
        let report = try #require(try JSONValue.parse(output.standardOutput).objectValue)
        #expect(report["valid"] == false)
        #expect(report["issues"]?.arrayValue?.first?.objectValue?["pointer"] == "/home_tabbar/colors/color_background")
    }

    @Test func validateReportsCoverageAgainstABase() async throws {
        let output = try await BuiltProduct.runLivery([
            "validate", Self.samples + "/spring-festival-2027", "--base", Self.samples + "/tools/demo-base-config.json"
        ])
        #expect(output.status == 0)
        #expect(
            output.standardOutput.contains(
                "coverage against the base config: 21 overridden, 1 falling back, 0 unknown to the base"))
        #expect(output.standardOutput.contains("falls back    home_tabbar/colors/color_badge -> the app's default"))
    }

    @Test func validateExitsTwoForAnUnusableBase() async throws {
        let broken = try Fixture.makeDirectory(["base.json": Bytes.text("{\n  \"a\": 1,\n}")])
        let output = try await BuiltProduct.runLivery([
            "validate", Self.samples + "/christmas-2026", "--base", broken.path("base.json")
        ])
        #expect(output.status == 2)
        #expect(output.standardError.contains("base.json:3:1: not valid JSON"))
        #expect(output.standardError.contains("fix:"))
        let missing = try await BuiltProduct.runLivery([
            "validate", Self.samples + "/christmas-2026", "--base", "/nonexistent/base.json"
        ])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("/nonexistent/base.json: cannot read the file."))
    }

    @Test func validateHonoursSizeLimits() async throws {
        let output = try await BuiltProduct.runLivery([
            "validate", Self.samples + "/spring-festival-2027", "--max-file-bytes", "10000"
        ])
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("[file.too-large] images/banner@2x.png"))
    }

    @Test func resolvePrintsTheChainAndExitsZeroWhenFound() async throws {
        let output = try await BuiltProduct.runLivery([
            "resolve", Self.samples + "/double-11-2026", "home/colors/color.text.title"
        ])
        #expect(output.status == 0)
        #expect(
            output.standardOutput == """
                home/colors/color.text.title  (not set)
                home/colors/color.text        = "#333"

                """)
    }

    @Test func resolveExitsOneWhenNothingIsSet() async throws {
        let output = try await BuiltProduct.runLivery([
            "resolve", Self.samples + "/double-11-2026", "loading/resources/resource.lottie", "--json"
        ])
        #expect(output.status == 1)
        let result = try #require(try JSONValue.parse(output.standardOutput).objectValue)
        #expect(
            result["chain"] == [
                "loading/resources/resource.lottie", "loading/resources/resource", "loading/resources/__default__"
            ])
        #expect(result["value"] == .null)
    }

    @Test func resolveAppliesDarkOverrides() async throws {
        let key = "home_tabbar/colors/color_background"
        let light = try await BuiltProduct.runLivery(["resolve", Self.samples + "/christmas-2026", key])
        let dark = try await BuiltProduct.runLivery([
            "resolve", Self.samples + "/christmas-2026", key, "--appearance", "dark"
        ])
        #expect(light.standardOutput.contains("= \"#F8F8F8\""))
        #expect(dark.standardOutput.contains("= \"#1C1C1E\""))
    }

    @Test func resolveExitsTwoWithoutAConfig() async throws {
        let output = try await BuiltProduct.runLivery(["resolve", "/nonexistent/skin", "m/colors/a"])
        #expect(output.status == 2)
        #expect(output.standardError.contains("config.json"))
    }

    @Test func resolveRejectsAMalformedKey() async throws {
        let output = try await BuiltProduct.runLivery(["resolve", Self.samples + "/double-11-2026", "home/colours/a"])
        #expect(output.status != 0 && output.status != 1)
        #expect(output.standardError.contains("MODULE/SECTION/IDENTIFIER"))
    }
}

/// `livery import` with the real binary, on the articles' example files.
@Suite struct ImportCommandTests {
    @Test func importsTheChameleonExampleWithImagesFromResourcesAndExitsZero() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        let theme = try scratch.write("themes/theme0/theme0.json", try scratch.readAbsolute(ThemeImportTests.chameleon))
        try scratch.write("themes/theme0/resources/home_house_icon_251952@2x.png", ThemeImportTests.png)
        try scratch.write("themes/theme0/resources/home_house_icon_251952@3x.png", ThemeImportTests.png)
        try scratch.write("themes/theme0/human_handsup_icon_251948.png", ThemeImportTests.png)
        let output = try await BuiltProduct.runLivery([
            "import", "--from", "chameleon", theme, scratch.path("skin"), "--app", "reader"
        ])
        #expect(output.status == 0, "\(output.transcript)")
        #expect(output.standardOutput.contains("skin 'theme0', app 'reader', title 'theme0'"))
        #expect(output.standardOutput.contains("Not carried over (1):\n  image/no03: "))
        #expect(try scratch.read("skin/home_house_icon_251952@3x.png") == ThemeImportTests.png)
        #expect(try scratch.read("skin/human_handsup_icon_251948.png") == ThemeImportTests.png)
        let validated = try await BuiltProduct.runLivery(["validate", scratch.path("skin")])
        #expect(validated.status == 0, "\(validated.transcript)")
    }

    @Test func neverFollowsALinkedResourcesFolderOrLinkedImagesAndReportsEachLink() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        try scratch.write("elsewhere/home_house_icon_251952@3x.png", ThemeImportTests.png)
        try scratch.write("elsewhere/human_handsup_icon_251948.png", ThemeImportTests.png)
        // A linked resources folder, and a linked image beside the theme.
        let linked = try scratch.write("linked/theme0.json", try scratch.readAbsolute(ThemeImportTests.chameleon))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("linked/resources"), withDestinationPath: "../elsewhere")
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("linked/human_handsup_icon_251948.png"),
            withDestinationPath: "../elsewhere/human_handsup_icon_251948.png")
        let output = try await BuiltProduct.runLivery(["import", "--from", "chameleon", linked, scratch.path("skin")])
        #expect(!output.standardOutput.contains("Every value was carried over"), "\(output.transcript)")
        #expect(output.standardOutput.contains("  resources: a symbolic link; not followed"), "\(output.transcript)")
        #expect(
            output.standardOutput.contains("  human_handsup_icon_251948.png: not a regular file"),
            "\(output.transcript)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("skin/home_house_icon_251952@3x.png")))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("skin/human_handsup_icon_251948.png")))

        // A real resources folder holding a link to a file elsewhere.
        let inside = try scratch.write("inside/theme0.json", try scratch.readAbsolute(ThemeImportTests.chameleon))
        try scratch.write("inside/resources/home_house_icon_251952@2x.png", ThemeImportTests.png)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("inside/resources/home_house_icon_251952@3x.png"),
            withDestinationPath: scratch.path("elsewhere/home_house_icon_251952@3x.png"))
        let second = try await BuiltProduct.runLivery(["import", "--from", "chameleon", inside, scratch.path("skin2")])
        #expect(
            second.standardOutput.contains("  resources/home_house_icon_251952@3x.png: not a regular file"),
            "\(second.transcript)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("skin2/home_house_icon_251952@3x.png")))
        #expect(try scratch.read("skin2/home_house_icon_251952@2x.png") == ThemeImportTests.png)
    }

    @Test func importsTheAUUThemeExampleNamingItsOptions() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        let theme = try scratch.write("theme1.json", try scratch.readAbsolute(ThemeImportTests.auutheme))
        try scratch.write("3.jpg", ThemeImportTests.jpeg)
        try scratch.write("7.jpeg", ThemeImportTests.jpeg)
        let output = try await BuiltProduct.runLivery([
            "import", "--from", "auutheme", theme, scratch.path("out/skin"), "--id", "qq-purple", "--title", "QQ Purple"
        ])
        #expect(output.status == 0, "\(output.transcript)")
        #expect(output.standardOutput.contains("images/image.head.head2: "))
        #expect(output.standardOutput.contains("images/image.head.head3: "))
        let manifest = try JSONValue.parse(try scratch.read("out/skin/skin.json")).objectValue
        #expect(manifest?["id"] == "qq-purple" && manifest?["title"] == "QQ Purple" && manifest?["app"] == "demo")
    }

    @Test func refusesAnExistingFolderAndAnUnknownFormat() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-import")
        let theme = try scratch.write("theme1.json", try scratch.readAbsolute(ThemeImportTests.auutheme))
        try scratch.write("taken/keep.txt", Array("x".utf8))
        let existing = try await BuiltProduct.runLivery(["import", "--from", "auutheme", theme, scratch.path("taken")])
        #expect(existing.status == 2)
        #expect(existing.standardError.contains("already exists"))
        #expect(try scratch.read("taken/keep.txt") == Array("x".utf8))
        let unknown = try await BuiltProduct.runLivery(["import", "--from", "themekit", theme, scratch.path("new")])
        #expect(unknown.status == 2)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("new")))
    }

    @Test func validatingAnUnconvertedThemeGivesOneErrorNamingTheConverter() async throws {
        let skin = try Fixture.makeDirectory([
            "skin.json": Bytes.text(Fixture.manifest),
            "config.json": [UInt8](try Data(contentsOf: URL(fileURLWithPath: ThemeImportTests.auutheme)))
        ])
        let output = try await BuiltProduct.runLivery(["validate", skin.path])
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("1 error"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("error [config.foreign-theme] config.json"))
        #expect(output.standardOutput.contains("livery import --from auutheme FILE DIR"))
    }
}

extension ScratchDirectory {
    /// The bytes of the file at the absolute `path` (a fixture outside the scratch folder).
    func readAbsolute(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
}
