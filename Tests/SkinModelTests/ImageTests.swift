import SkinModel
import Testing

@Suite struct ImageTests {
    static let files: [String: [UInt8]] = [
        "tab_home.png": Bytes.png, "tab_home@2x.png": Bytes.png, "tab_home@3x.png": Bytes.png,
        "icons/star@2x.png": Bytes.png, "icons/star@3x.png": Bytes.png,
        "photo.jpg": Bytes.jpeg, "anim.gif": Bytes.gif, "pic.webp": Bytes.webp
    ]

    static func path(_ text: String) -> AssetPath {
        (try? AssetPath(validating: text)) ?? { fatalError("bad test path") }()
    }

    static let tabHome = [
        ScaledFile(scale: 1, path: path("tab_home.png")), ScaledFile(scale: 2, path: path("tab_home@2x.png")),
        ScaledFile(scale: 3, path: path("tab_home@3x.png"))
    ]
    static let star = [
        ScaledFile(scale: 2, path: path("icons/star@2x.png")), ScaledFile(scale: 3, path: path("icons/star@3x.png"))
    ]

    @Test(arguments: [
        (#""tab_home""#, ImageReference.asset(ImageAsset(loading: .named, reference: "tab_home", variants: tabHome))),
        (#""tab_home.png""#, .asset(ImageAsset(loading: .named, reference: "tab_home.png", variants: tabHome))),
        (
            #""tab_home@2x.png""#,
            .asset(ImageAsset(loading: .named, reference: "tab_home@2x.png", variants: [tabHome[1]], isPinned: true))
        ),
        (
            #""tab_home@3x""#,
            .asset(ImageAsset(loading: .named, reference: "tab_home@3x", variants: [tabHome[2]], isPinned: true))
        ),
        (#""icons/star""#, .asset(ImageAsset(loading: .named, reference: "icons/star", variants: star))),
        (
            #""photo""#,
            .asset(
                ImageAsset(
                    loading: .named, reference: "photo", variants: [ScaledFile(scale: 1, path: path("photo.jpg"))]))
        ),
        (
            #""anim.gif""#,
            .asset(
                ImageAsset(
                    loading: .named, reference: "anim.gif", variants: [ScaledFile(scale: 1, path: path("anim.gif"))]))
        ),
        (
            #""pic""#,
            .asset(
                ImageAsset(loading: .named, reference: "pic", variants: [ScaledFile(scale: 1, path: path("pic.webp"))]))
        ),
        (#""file://tab_home.png""#, .asset(ImageAsset(loading: .file, reference: "tab_home.png", variants: tabHome))),
        (#""file://icons/star""#, .asset(ImageAsset(loading: .file, reference: "icons/star", variants: star))),
        (#"{"name": "tab_home"}"#, .asset(ImageAsset(loading: .named, reference: "tab_home", variants: tabHome))),
        (
            #"{"file": "icons/star.png"}"#,
            .asset(ImageAsset(loading: .file, reference: "icons/star.png", variants: star))
        ),
        (#"{"color": "ffffff"}"#, .solidColor(.fixed(SkinColor(red: 255, green: 255, blue: 255)))),
        (#"{"color": "rgba<1,2,3,0.5>"}"#, .solidColor(.fixed(SkinColor(red: 1, green: 2, blue: 3, alpha: 0.5)))),
        (
            #"{"type": 0, "name": "tab_home.png"}"#,
            .asset(ImageAsset(loading: .named, reference: "tab_home.png", variants: tabHome))
        ),
        (
            #"{"type": 1, "name": "icons/star"}"#,
            .asset(ImageAsset(loading: .file, reference: "icons/star", variants: star))
        ),
        (#"{"type": 2, "color": "a040ad"}"#, .solidColor(.fixed(SkinColor(red: 0xA0, green: 0x40, blue: 0xAD)))),
        (
            #"{"color": "a040ad", "type": 2, "note": "extra keys are AUUTheme's own"}"#,
            .solidColor(.fixed(SkinColor(red: 0xA0, green: 0x40, blue: 0xAD)))
        ),
        (#"{"type": 3, "path": "https://cdn.example.com/a.png"}"#, .remote(url: "https://cdn.example.com/a.png")),
        (#""https://cdn.example.com/banner.png?v=2""#, .remote(url: "https://cdn.example.com/banner.png?v=2"))
    ])
    func acceptsEverySpelling(_ json: String, _ expected: ImageReference) throws {
        let report = validate(Fixture.make(section: "images", value: json, files: ImageTests.files))
        #expect(report.errors.isEmpty, "\(report.errors)")
        let skin = try #require(report.skin)
        #expect(skin.config.modules[0].images.first?.value == expected)
    }

    @Test(arguments: [
        // (value, code, pointer, fragment of the message)
        (#""missing""#, "asset.missing", "/m/images/k", "\"missing\" is not in the skin"),
        (#""tab_home.jpg""#, "asset.missing", "/m/images/k", "tab_home.jpg, tab_home@2x.jpg"),
        (#""icons/star@1x.png""#, "asset.missing", "/m/images/k", "not in the skin"),
        (#""http://cdn.example.com/a.png""#, "image.insecure-url", "/m/images/k", "plain http://"),
        (
            #"{"type": 3, "path": "http://cdn.example.com/a.png"}"#, "image.insecure-url", "/m/images/k/path",
            "plain http://"
        ),
        (#""ftp://cdn.example.com/a.png""#, "image.url-invalid", "/m/images/k", "not a usable remote image URL"),
        (#""https://""#, "image.url-invalid", "/m/images/k", "not a usable remote image URL"),
        (#"{"type": 3, "path": "banner.png"}"#, "image.url-invalid", "/m/images/k/path", "not a URL"),
        (#""../secret.png""#, "path.escape", "/m/images/k", "climbs out"),
        (#""file://../secret.png""#, "path.escape", "/m/images/k", "climbs out"),
        (#""/etc/passwd""#, "path.absolute", "/m/images/k", "absolute path"),
        (#""file:///etc/passwd""#, "path.absolute", "/m/images/k", "absolute path"),
        (#""C:/skin/a.png""#, "path.absolute", "/m/images/k", "absolute path"),
        (#""icons\\star.png""#, "path.invalid", "/m/images/k", "backslash"),
        (#""./tab_home.png""#, "path.invalid", "/m/images/k", "'.' segment"),
        (#""config.json""#, "path.reserved", "/m/images/k", "not an asset"),
        (#"{"color": "nope"}"#, "color.invalid", "/m/images/k/color", "\"nope\" is not a color"),
        (##"{"type": 2, "color": "#12"}"##, "color.invalid", "/m/images/k/color", "is not a color"),
        (#"{"name": "a", "file": "b"}"#, "image.invalid", "/m/images/k", "several of name, file, color"),
        (#"{"nmae": "tab_home"}"#, "image.invalid", "/m/images/k", "unknown key \"nmae\""),
        (#"{"name": 3}"#, "image.invalid", "/m/images/k/name", "non-empty string"),
        (#"{"type": 4, "name": "tab_home"}"#, "image.invalid", "/m/images/k/type", "not one of AUUTheme's"),
        (#"{"type": 2, "name": "tab_home"}"#, "image.invalid", "/m/images/k", "needs a non-empty string \"color\""),
        ("42", "image.invalid", "/m/images/k", "string or an object"),
        (#""notes.txt""#, "image.type-unsupported", "/m/images/k", "not a PNG, JPEG, GIF or WebP"),
        (#""dup""#, "image.ambiguous", "/m/images/k", "dup.png, dup.webp")
    ])
    func rejectsBadImagesWithCodeAndPointer(
        _ json: String, _ code: String, _ pointer: String, _ fragment: String
    ) throws {
        var files = ImageTests.files
        files["notes.txt"] = Bytes.text("hello")
        files["dup.png"] = Bytes.png
        files["dup.webp"] = Bytes.webp
        let report = validate(Fixture.make(section: "images", value: json, files: files))
        let issue = try #require(report.issues.first { $0.code.rawValue == code }, "\(report.issues)")
        #expect(issue.severity == .error)
        #expect(issue.pointer == pointer)
        #expect(issue.message.contains(fragment), "\(issue.message)")
        #expect(!issue.fix.isEmpty)
        #expect(report.skin == nil)
    }

    @Test func suggestsTheNameWithTheRightCase() throws {
        let report = validate(Fixture.make(section: "images", value: #""Tab_Home""#, files: ImageTests.files))
        #expect(try #require(report.first(.assetMissing)).fix.hasPrefix(#"Did you mean "tab_home"?"#))
    }

    @Test func limitsDidYouMeanSearchesSoHugeConfigsStayLinear() throws {
        let entries = (0..<80).map { #""k\#($0)": "tab_hom\#($0)""# }.joined(separator: ", ")
        let report = validate(Fixture.make(config: #"{"m": {"images": {\#(entries)}}}"#, files: ImageTests.files))
        let missing = report.issues.filter { $0.code == .assetMissing }
        #expect(missing.count == 80)
        #expect(missing.filter { $0.fix.hasPrefix("Did you mean") }.count == 50)
    }

    @Test func warnsOnceWhenAScaleVariantIsMissing() throws {
        let files: [String: [UInt8]] = ["logo@2x.png": Bytes.png]
        let report = validate(
            Fixture.make(
                config: #"{"m": {"images": {"a": "logo", "b": "logo.png"}}}"#, files: files))
        #expect(report.isValid)
        #expect(report.warnings.map(\.code) == [.assetScaleMissing])
        let warning = try #require(report.first(.assetScaleMissing))
        #expect(warning.pointer == "/m/images/a")
        #expect(warning.message.contains("has @2x but no @3x (logo@3x.png)"))
    }

    @Test func doesNotWarnForSingleScaleImagesOrPinnedFiles() {
        let files: [String: [UInt8]] = ["anim.gif": Bytes.gif, "x@2x.png": Bytes.png]
        let report = validate(Fixture.make(config: #"{"m": {"images": {"a": "anim", "b": "x@2x.png"}}}"#, files: files))
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    @Test(arguments: [(1, "tab_home.png"), (2, "tab_home@2x.png"), (3, "tab_home@3x.png")])
    func picksTheRequestedScale(_ scale: Int, _ expected: String) {
        #expect(
            ImageAsset(loading: .named, reference: "tab_home", variants: ImageTests.tabHome).file(forScale: scale)?
                .rawValue == expected)
    }

    @Test(arguments: [
        // (available scales, requested, chosen)
        ([2, 3], 1, 2) as ([Int], Int, Int), ([1, 3], 2, 3), ([1, 2], 3, 2), ([1], 3, 1), ([3], 1, 3), ([1, 3], 1, 1)
    ])
    func fallsBackToTheNearestScalePreferringHigher(_ available: [Int], _ requested: Int, _ chosen: Int) {
        let asset = ImageAsset(
            loading: .named, reference: "x",
            variants: available.map { ScaledFile(scale: $0, path: ImageTests.path("x@\($0)x.png")) })
        #expect(asset.file(forScale: requested)?.rawValue == "x@\(chosen)x.png")
    }
}
