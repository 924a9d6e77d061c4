import Foundation
import LiveryJSON
import SkinModel
import TestSupport
import Testing

/// The articles' own theme files (Tests/Fixtures/themes): refused with one error naming the converter when
/// uploaded as they are, and turned into valid skins by the converters.
@Suite struct ThemeImportTests {
    static let fixtures = Fixture.packageRoot + "/Tests/Fixtures/themes"
    static let auutheme = fixtures + "/auutheme/theme1.json"
    static let chameleon = fixtures + "/chameleon/theme0.json"

    static func document(_ path: String) throws -> JSONValue {
        try JSONValue.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// A JPEG's magic number is all the validator asks of a `.jpg`.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0xFF, 0xD9]
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 8)

    static func manifest() throws -> SkinManifest {
        SkinManifest(id: try #require(SkinID("imported")), title: "Imported", app: "demo")
    }

    @Test(arguments: [(auutheme, "auutheme"), (chameleon, "chameleon")])
    func aThemeUploadedAsConfigGetsOneErrorNamingItsConverter(_ path: String, _ format: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let report = SkinValidator().validate(
            InMemorySkinSource(files: ["config.json": bytes, "skin.json": Bytes.text(Fixture.manifest)]))
        #expect(report.errors.count == 1, "\(report.errors)")
        let issue = try #require(report.errors.first)
        #expect(issue.code == .configForeignTheme)
        #expect(issue.file == "config.json")
        #expect(issue.fix.contains("livery import --from \(format) FILE DIR"))
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }

    @Test func aLiveryModuleNamedLikeASectionIsNotMistakenForATheme() {
        let report = validate(
            Fixture.make(config: ##"{"colors": {"colors": {"a": "#FFFFFF"}}, "image": {"values": {"v": 1}}}"##))
        #expect(report.isValid, "\(report.issues)")
    }

    @Test func theAUUThemeExampleBecomesAValidSkinReportingWhatItLeftOut() throws {
        let imported = ThemeImport(
            format: .auutheme, document: try Self.document(Self.auutheme), manifest: try Self.manifest(),
            images: ["3.jpg": Self.jpeg, "7.jpeg": Self.jpeg, "unused.png": Self.png])
        #expect(imported.report.isValid, "\(imported.report.issues)")
        #expect(imported.dropped.map(\.name) == ["images/image.head.head2", "images/image.head.head3"])
        #expect(imported.dropped.first?.reason.contains("8.jpg") == true)
        #expect(imported.dropped.last?.reason.contains("http://") == true)
        #expect(
            Set(imported.files.keys) == ["skin.json", "config.json", "3.jpg", "7.jpeg"],
            "unreferenced images are not copied")
        let configBytes = try #require(imported.files["config.json"])
        let module = try #require(try JSONValue.parse(configBytes).objectValue?["theme"]?.objectValue)
        #expect(module["colors"]?.objectValue?.count == 10)
        #expect(module["colors"]?.objectValue?["color.background.tableview"] == "0xffffff")
        #expect(
            module["images"]?.objectValue?.keys == [
                "image", "image.background.navbar", "image.refresh.arrow", "image.head.head1"
            ])
        #expect(module["values"]?.objectValue?["appearance.segment"]?.objectValue?["titlecolor"] == "363535")
    }

    @Test func theChameleonExampleBecomesAValidSkinReportingWhatItLeftOut() throws {
        let imported = ThemeImport(
            format: .chameleon, document: try Self.document(Self.chameleon), manifest: try Self.manifest(),
            images: ["home_house_icon_251952.png": Self.png, "human_handsup_icon_251948@2x.png": Self.png])
        #expect(imported.report.isValid, "\(imported.report.issues)")
        #expect(imported.dropped.map(\.name) == ["image/no03"])
        let configBytes = try #require(imported.files["config.json"])
        let module = try #require(try JSONValue.parse(configBytes).objectValue?["theme"]?.objectValue)
        let colors = try #require(module["colors"]?.objectValue)
        #expect(colors.keys.count == 11)
        #expect(colors["text.C001"] == "B17936 0.9")
        #expect(colors["background.C103"] == "random")
        #expect(module["images"]?.objectValue?["no01"] == "home_house_icon_251952")
        #expect(module["values"]?.objectValue?["others.border.width"] == 2)
        #expect(module["values"]?.objectValue?["others.imageView.animationRepeatCount"] == 5)
    }

    @Test(arguments: [("Theme 0", "theme-0"), ("AUU.Theme..Dark", "auu.theme.dark"), ("__x", "x"), ("主题", nil)])
    func idsAreDerivedFromFileNames(_ text: String, _ expected: String?) {
        #expect(SkinID(deriving: text)?.rawValue == expected)
    }
}
