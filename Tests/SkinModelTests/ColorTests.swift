import LiveryJSON
import SkinModel
import Testing

@Suite struct ColorTests {
    @Test(arguments: [
        ("#D7000F", SkinColor(red: 0xD7, green: 0x00, blue: 0x0F)),
        ("#d7000f", SkinColor(red: 0xD7, green: 0x00, blue: 0x0F)),
        ("FFD23F", SkinColor(red: 0xFF, green: 0xD2, blue: 0x3F)),
        ("0xFFF5E1", SkinColor(red: 0xFF, green: 0xF5, blue: 0xE1)),
        ("0Xfff5e1", SkinColor(red: 0xFF, green: 0xF5, blue: 0xE1)),
        ("#165B3380", SkinColor(red: 0x16, green: 0x5B, blue: 0x33, alpha: 128.0 / 255)),
        ("#165B33FF", SkinColor(red: 0x16, green: 0x5B, blue: 0x33, alpha: 1)),
        ("fff", SkinColor(red: 255, green: 255, blue: 255)),
        ("#a4c", SkinColor(red: 0xAA, green: 0x44, blue: 0xCC)),
        ("B17936 0.9", SkinColor(red: 0xB1, green: 0x79, blue: 0x36, alpha: 0.9)),
        ("#B17936 0.5", SkinColor(red: 0xB1, green: 0x79, blue: 0x36, alpha: 0.5)),
        ("0xB17936 1", SkinColor(red: 0xB1, green: 0x79, blue: 0x36, alpha: 1)),
        ("694D9F 0", SkinColor(red: 0x69, green: 0x4D, blue: 0x9F, alpha: 0)),
        ("rgba<254,220,189,0.9>", SkinColor(red: 254, green: 220, blue: 189, alpha: 0.9)),
        ("rgba<254,220,189>", SkinColor(red: 254, green: 220, blue: 189)),
        ("rgba<0,0,0,1.0>", SkinColor(red: 0, green: 0, blue: 0, alpha: 1)),
        ("hex<B2D235 0.9>", SkinColor(red: 0xB2, green: 0xD2, blue: 0x35, alpha: 0.9)),
        ("hex<B2D235>", SkinColor(red: 0xB2, green: 0xD2, blue: 0x35))
    ])
    func parsesEverySpelling(_ text: String, _ expected: SkinColor) {
        #expect(SkinColor(parsing: text) == expected)
    }

    @Test(arguments: [
        "", "#", "#GG0000", "12345", "#1234", "1234567", "D7000F0F", "0xD7000F0F", "#D7000F0F0", "0xfff",
        "random", " #FFFFFF", "#FFFFFF ", "FFFFFF  0.9", "FFFFFF 1.5", "FFFFFF -0.1", "FFFFFF .5", "FFFFFF 0.",
        "fff 0.5", "rgba<256,0,0>", "rgba<1,2>", "rgba<1,2,3,4>", "rgba<1, 2, 3>", "rgba<-1,2,3>", "rgba<1,2,3,>",
        "RGBA<1,2,3>", "rgba(1,2,3)", "rgba<1,2,3", "hex<B2D235 2>", "hex<#B2D235>", "hex<fff>", "hex<>", "red"
    ])
    func rejectsEverythingElse(_ text: String) {
        #expect(SkinColor(parsing: text) == nil)
    }

    @Test func describesItselfAsRGBAHex() throws {
        #expect(try #require(SkinColor(parsing: "rgba<254,220,189,0.9>")).description == "#FEDCBDE6")
    }

    @Test(arguments: [
        (##""#GG0000""##, "\"#GG0000\" is not a color."),
        ("12", "A color must be a string, not 12."),
        (#""D7000F0F""#, "\"D7000F0F\" is not a color.")
    ])
    func invalidColorsAreErrorsQuotingTheValue(_ json: String, _ message: String) throws {
        let report = validate(Fixture.make(section: "colors", value: json))
        let issue = try #require(report.first(.colorInvalid))
        #expect(issue.severity == .error)
        #expect(issue.file == "config.json")
        #expect(issue.pointer == "/m/colors/k")
        #expect(issue.message == message)
        #expect(issue.value == (try JSONValue.parse(json)))
        #expect(issue.fix.contains("rgba<254,220,189,0.9>"))
        #expect(!report.isValid)
    }

    @Test func eightDigitsWithoutHashGetAHintAboutAlphaOrder() throws {
        let report = validate(Fixture.make(section: "colors", value: #""D7000F0F""#))
        #expect(try #require(report.first(.colorInvalid)).fix.contains("leading '#'"))
    }

    @Test func validColorsAreKeptVerbatimInThePackage() throws {
        let report = validate(Fixture.make(config: #"{"m": {"colors": {"a": "B17936 0.9", "b": "hex<B2D235>"}}}"#))
        let skin = try #require(report.skin)
        #expect(
            skin.config.modules[0].colors.map(\.value) == [
                .fixed(SkinColor(red: 0xB1, green: 0x79, blue: 0x36, alpha: 0.9)),
                .fixed(SkinColor(red: 0xB2, green: 0xD2, blue: 0x35))
            ])
        let config = skin.config.effectiveDocument(for: .light)
        #expect(config.objectValue?["m"]?.objectValue?["colors"]?.objectValue?["a"] == "B17936 0.9")
    }
}

/// Chameleon's `"C103": "random"`: the app picks a color each time; Livery accepts it and passes it on as written.
@Suite struct RandomColorTests {
    @Test func chameleonsRandomIsAcceptedAsAColorAndAsASolidImageColor() throws {
        let report = validate(
            Fixture.make(
                config: #"{"background": {"colors": {"C103": "random"}, "images": {"no04": {"color": "random"}}}}"#))
        #expect(report.errors.isEmpty, "\(report.errors)")
        let module = try #require(report.skin?.config.modules.first)
        #expect(module.colors.map(\.value) == [.random])
        #expect(module.images.map(\.value) == [.solidColor(.random)])
    }

    @Test func randomReachesEveryPackagedConfigAsWritten() throws {
        let config =
            #"{"background": {"colors": {"C103": "random", "C104": "6E6B41"}}, "dark": {"background": {"colors": {"C104": "random"}}}}"#
        let skin = try #require(validate(Fixture.make(config: config)).skin)
        for appearance in Appearance.allCases {
            let packaged = try JSONValue.parse(skin.config.effectiveConfigBytes(for: appearance))
            let colors = packaged.objectValue?["background"]?.objectValue?["colors"]?.objectValue
            #expect(colors?["C103"] == .string("random"))
            #expect(colors?["C104"] == .string(appearance == .dark ? "random" : "6E6B41"))
        }
    }

    @Test(arguments: ["Random", "RANDOM", " random", "random 0.5", "rgba<random>"])
    func onlyTheLowercaseWordIsRandom(_ text: String) throws {
        let report = validate(Fixture.make(section: "colors", value: "\"\(text)\""))
        #expect(try #require(report.first(.colorInvalid)).fix.contains("\"random\""))
    }

    @Test func aFixedColorStillParsesAsItself() {
        #expect(ConfigColor(parsing: "694D9F") == .fixed(SkinColor(red: 0x69, green: 0x4D, blue: 0x9F)))
        #expect(ConfigColor(parsing: "random") == .random)
        #expect(SkinColor(parsing: "random") == nil, "a random color has no fixed channels")
    }
}
