import LiveryJSON
import SkinModel
import Testing

@Suite struct ValidatorTests {
    /// One broken skin per error kind, with the code, file and pointer the report must carry.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var source: InMemorySkinSource
        var code: String
        var file: String?
        var pointer: String
        var limits: ValidationLimits = .standard
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "config.json is not JSON",
            source: Fixture.make(config: "{\n  \"m\": {\n    \"colors\": {\"a\": \"#fff\",}\n  }\n}"),
            code: "json.syntax", file: "config.json", pointer: ""),
        Case(
            name: "skin.json repeats a key",
            source: Fixture.make(config: "{}", manifest: #"{"id": "a", "id": "b", "title": "T", "app": "demo"}"#),
            code: "json.duplicate-key", file: "skin.json", pointer: ""),
        Case(
            name: "a Lottie file is not JSON",
            source: Fixture.make(
                section: "resources", value: #""anim.json""#, files: ["anim.json": Bytes.text("{\"v\": ")]),
            code: "json.syntax", file: "anim.json", pointer: ""),
        Case(
            name: "skin.json is missing", source: Fixture.make(config: "{}", manifest: nil),
            code: "manifest.missing", file: "skin.json", pointer: ""),
        Case(
            name: "skin.json is an array", source: Fixture.make(config: "{}", manifest: "[]"),
            code: "manifest.not-object", file: "skin.json", pointer: ""),
        Case(
            name: "skin.json lacks the app",
            source: Fixture.make(config: "{}", manifest: #"{"id": "a", "title": "T"}"#),
            code: "manifest.field-missing", file: "skin.json", pointer: ""),
        Case(
            name: "the skin id is not allowed",
            source: Fixture.make(config: "{}", manifest: #"{"id": "../etc", "title": "T", "app": "demo"}"#),
            code: "manifest.field-invalid", file: "skin.json", pointer: "/id"),
        Case(
            name: "the release window is empty",
            source: Fixture.make(
                config: "{}",
                manifest:
                    #"{"id": "a", "title": "T", "app": "demo", "release": {"startsAt": "2027-01-02T00:00:00Z", "endsAt": "2027-01-01T00:00:00Z"}}"#
            ),
            code: "release.window-empty", file: "skin.json", pointer: "/release/endsAt"),
        Case(
            name: "config.json is missing",
            source: InMemorySkinSource(files: ["skin.json": Bytes.text(Fixture.manifest)]),
            code: "config.missing", file: "config.json", pointer: ""),
        Case(
            name: "config.json is a string", source: Fixture.make(config: #""hello""#),
            code: "config.not-object", file: "config.json", pointer: ""),
        Case(
            name: "a module is a string", source: Fixture.make(config: #"{"home": "red"}"#),
            code: "config.module-invalid", file: "config.json", pointer: "/home"),
        Case(
            name: "a section is unknown", source: Fixture.make(config: #"{"home": {"colours": {}}}"#),
            code: "config.section-unknown", file: "config.json", pointer: "/home/colours"),
        Case(
            name: "a section is an array", source: Fixture.make(config: #"{"home": {"colors": []}}"#),
            code: "config.section-invalid", file: "config.json", pointer: "/home/colors"),
        Case(
            name: "an identifier has an empty part",
            source: Fixture.make(config: ##"{"home": {"colors": {"color..bg": "#fff"}}}"##),
            code: "config.identifier-invalid", file: "config.json", pointer: "/home/colors/color..bg"),
        Case(
            name: "a color is malformed", source: Fixture.make(section: "colors", value: #""rgba<300,0,0>""#),
            code: "color.invalid", file: "config.json", pointer: "/m/colors/k"),
        Case(
            name: "an image is missing", source: Fixture.make(section: "images", value: #""tab_home""#),
            code: "asset.missing", file: "config.json", pointer: "/m/images/k"),
        Case(
            name: "a resource is missing", source: Fixture.make(section: "resources", value: #""refresh.gif""#),
            code: "asset.missing", file: "config.json", pointer: "/m/resources/k"),
        Case(
            name: "a resource is a URL", source: Fixture.make(section: "resources", value: #""https://x.com/a.gif""#),
            code: "resource.invalid", file: "config.json", pointer: "/m/resources/k"),
        Case(
            name: "a resource is not a string", source: Fixture.make(section: "resources", value: "[]"),
            code: "resource.invalid", file: "config.json", pointer: "/m/resources/k"),
        Case(
            name: "a resource climbs out", source: Fixture.make(section: "resources", value: #""a/../../x.gif""#),
            code: "path.escape", file: "config.json", pointer: "/m/resources/k"),
        Case(
            name: "a resource is absolute", source: Fixture.make(section: "resources", value: #""/tmp/x.gif""#),
            code: "path.absolute", file: "config.json", pointer: "/m/resources/k"),
        Case(
            name: "an image is plain http", source: Fixture.make(section: "images", value: #""http://x.com/a.png""#),
            code: "image.insecure-url", file: "config.json", pointer: "/m/images/k"),
        Case(
            name: "a PNG holds a JPEG",
            source: Fixture.make(section: "images", value: #""a.png""#, files: ["a.png": Bytes.jpeg]),
            code: "asset.type-mismatch", file: "a.png", pointer: ""),
        Case(
            name: "a JPEG holds text",
            source: Fixture.make(section: "images", value: #""a.jpg""#, files: ["a.jpg": Bytes.text("<html>")]),
            code: "asset.type-mismatch", file: "a.jpg", pointer: ""),
        Case(
            name: "a GIF is empty",
            source: Fixture.make(section: "resources", value: #""a.gif""#, files: ["a.gif": []]),
            code: "asset.type-mismatch", file: "a.gif", pointer: ""),
        Case(
            name: "a WebP holds a PNG",
            source: Fixture.make(section: "images", value: #""a.webp""#, files: ["a.webp": Bytes.png]),
            code: "asset.type-mismatch", file: "a.webp", pointer: ""),
        Case(
            name: "a file is over the size limit",
            source: Fixture.make(
                section: "resources", value: #""big.gif""#,
                files: ["big.gif": Bytes.gif + [UInt8](repeating: 0, count: 100)]),
            code: "file.too-large", file: "big.gif", pointer: "", limits: ValidationLimits(maxFileBytes: 100)),
        Case(
            name: "the skin is over the total limit",
            source: Fixture.make(
                section: "resources", value: #""a.gif""#,
                files: ["a.gif": Bytes.gif + [UInt8](repeating: 0, count: 400)]),
            code: "skin.too-large", file: nil, pointer: "", limits: ValidationLimits(maxTotalBytes: 300)),
        Case(
            name: "the skin has too many files",
            source: Fixture.make(config: "{}", files: ["a.txt": [], "b.txt": []]),
            code: "skin.too-many-files", file: nil, pointer: "", limits: ValidationLimits(maxFileCount: 3)),
        Case(
            name: "an entry climbs out",
            source: InMemorySkinSource(files: [
                "skin.json": Bytes.text(Fixture.manifest), "config.json": Bytes.text("{}"), "../evil.png": Bytes.png
            ]),
            code: "path.escape", file: "../evil.png", pointer: ""),
        Case(
            name: "an entry is absolute",
            source: InMemorySkinSource(files: [
                "skin.json": Bytes.text(Fixture.manifest), "config.json": Bytes.text("{}"), "/etc/evil": []
            ]),
            code: "path.absolute", file: "/etc/evil", pointer: ""),
        Case(
            name: "an entry is a symlink",
            source: InMemorySkinSource(entries: [
                .init(path: "skin.json", bytes: Bytes.text(Fixture.manifest)),
                .init(path: "config.json", bytes: Bytes.text(#"{"m": {"images": {"k": "a.png"}}}"#)),
                .init(path: "a.png", bytes: Bytes.text("/etc/passwd"), kind: .symlink)
            ]),
            code: "path.symlink", file: "a.png", pointer: ""),
        Case(
            name: "an entry name is not UTF-8",
            source: InMemorySkinSource(entries: [
                .init(path: "skin.json", bytes: Bytes.text(Fixture.manifest)),
                .init(path: "config.json", bytes: Bytes.text("{}")),
                .init(path: "bad\u{FFFD}.png", bytes: Bytes.png, nameIsValidUTF8: false)
            ]),
            code: "path.not-utf8", file: "bad\u{FFFD}.png", pointer: ""),
        Case(
            name: "two names differ only by case",
            source: Fixture.make(
                config: #"{"m": {"resources": {"a": "Logo.gif", "b": "logo.gif"}}}"#,
                files: ["Logo.gif": Bytes.gif, "logo.gif": Bytes.gif]),
            code: "path.case-collision", file: "logo.gif", pointer: ""),
        Case(
            name: "two files claim the same scale",
            source: Fixture.make(section: "images", value: #""x""#, files: ["x.png": Bytes.png, "x@1x.png": Bytes.png]),
            code: "asset.scale-conflict", file: "x@1x.png", pointer: ""),
        Case(
            name: "a dark override has no light value",
            source: Fixture.make(
                config: ##"{"m": {"colors": {"a": "#fff"}}, "dark": {"m": {"colors": {"b": "#000"}}}}"##),
            code: "dark.key-unknown", file: "config.json", pointer: "/dark/m/colors/b"),
        Case(
            name: "a dark override names an unknown module",
            source: Fixture.make(
                config: ##"{"m": {"colors": {"a": "#fff"}}, "dark": {"n": {"colors": {"a": "#000"}}}}"##),
            code: "dark.key-unknown", file: "config.json", pointer: "/dark/n"),
        Case(
            name: "dark is not an object", source: Fixture.make(config: #"{"m": {}, "dark": true}"#),
            code: "dark.invalid", file: "config.json", pointer: "/dark"),
        Case(
            name: "a dark color is malformed",
            source: Fixture.make(
                config: ##"{"m": {"colors": {"a": "#fff"}}, "dark": {"m": {"colors": {"a": "black"}}}}"##),
            code: "color.invalid", file: "config.json", pointer: "/dark/m/colors/a")
    ]

    @Test(arguments: cases)
    func everyErrorKindHasItsCodeFileAndPointer(_ test: Case) throws {
        let report = validate(test.source, limits: test.limits)
        let issue = try #require(report.issues.first { $0.code.rawValue == test.code }, "\(report.issues)")
        #expect(issue.severity == .error)
        #expect(issue.file == test.file)
        #expect(issue.pointer == test.pointer)
        #expect(issue.message.hasSuffix(".") && issue.fix.hasSuffix(".") || issue.fix.hasSuffix("?"), "\(issue)")
        #expect(!report.isValid)
        #expect(report.skin == nil)
        #expect(!report.errors.isEmpty)
    }

    @Test func syntaxErrorsCarryLineAndColumn() throws {
        let report = validate(Fixture.make(config: "{\n  \"m\": {\n    \"colors\": {\"a\": \"#fff\",}\n  }\n}"))
        let issue = try #require(report.first(.jsonSyntax))
        #expect(issue.line == 3 && issue.column == 28)
        #expect(issue.location == "config.json:3:28")
        #expect(issue.message.contains("line 3, column 28"))
    }

    @Test func aMinimalSkinIsValidAndSilent() throws {
        let report = validate(Fixture.make(config: #"{"m": {"values": {"title": "新春"}}}"#))
        #expect(report.issues.isEmpty)
        let skin = try #require(report.skin)
        #expect(skin.manifest.id.rawValue == "test-skin")
        #expect(skin.manifest.release == nil)
    }

    @Test func anEmptyConfigIsAWarningOnly() {
        let report = validate(Fixture.make(config: "{}"))
        #expect(report.isValid)
        #expect(report.warnings.map(\.code) == [.configEmpty])
    }

    @Test func unreferencedFilesAreWarningsAndLeftOut() throws {
        let report = validate(
            Fixture.make(
                section: "images", value: #""a""#,
                files: ["a.png": Bytes.png, "notes.txt": Bytes.text("x"), ".DS_Store": []]))
        #expect(report.isValid)
        #expect(report.warnings.map(\.code) == [.assetUnreferenced, .assetUnreferenced])
        #expect(report.warnings.map(\.file) == [".DS_Store", "notes.txt"])
        let plan = try #require(report.skin).packagePlan(for: .standard)
        #expect(plan.names == ["a.png", "config.json"])
    }

    @Test func filesReferencedOnlyInDarkModeAreNotUnreferenced() {
        let report = validate(
            Fixture.make(
                config: #"{"m": {"images": {"bg": "light"}}, "dark": {"m": {"images": {"bg": "night"}}}}"#,
                files: ["light.png": Bytes.png, "night.png": Bytes.png]))
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    @Test func unknownManifestKeysAreWarnings() throws {
        let report = validate(
            Fixture.make(config: #"{"m": {}}"#, manifest: #"{"id": "a", "title": "T", "app": "demo", "relase": {}}"#))
        #expect(report.isValid)
        #expect(try #require(report.first(.manifestKeyUnknown)).fix.hasPrefix(#"Did you mean "release"?"#))
    }

    @Test func reportsAllProblemsAtOnce() {
        let report = validate(
            Fixture.make(
                config:
                    ##"{"m": {"colors": {"a": "nope", "b": "#12"}, "images": {"c": "gone"}, "resources": {"d": "x.gif"}}}"##,
                manifest: #"{"id": "Bad", "title": "T", "app": "demo"}"#))
        #expect(
            report.codes == [
                "manifest.field-invalid", "color.invalid", "color.invalid", "asset.missing", "asset.missing"
            ])
    }

    @Test func issuesAreDeterministic() {
        let source = Fixture.make(
            config: #"{"m": {"colors": {"a": "nope"}, "images": {"c": "gone"}}}"#,
            files: ["z.txt": [], "a.txt": [], "m/b.png": Bytes.jpeg])
        #expect(validate(source).issues == validate(source).issues)
        #expect(validate(source).jsonValue.serialized() == validate(source).jsonValue.serialized())
    }

    @Test func reportEncodesAsJSONForHTTPBodies() throws {
        let report = validate(Fixture.make(section: "colors", value: #""nope""#))
        let json = try JSONValue.parse(report.jsonValue.serialized(.pretty))
        let object = try #require(json.objectValue)
        #expect(object.keys == ["valid", "skin", "errors", "warnings", "issues"])
        #expect(object["valid"] == false)
        #expect(object["skin"] == "test-skin")
        #expect(object["errors"] == 1)
        let issue = try #require(object["issues"]?.arrayValue?.first?.objectValue)
        #expect(issue.keys == ["severity", "code", "file", "pointer", "value", "message", "fix"])
        #expect(issue["code"] == "color.invalid")
        #expect(issue["pointer"] == "/m/colors/k")
        #expect(issue["value"] == "nope")
    }

    @Test func textRenderingNamesFilePointerAndFix() {
        let text = validate(Fixture.make(section: "colors", value: #""nope""#)).renderedText(name: "skins/x")
        #expect(text.hasPrefix("skins/x (test-skin): INVALID, 1 error, 0 warnings\n"))
        #expect(
            text.contains(
                "error [color.invalid] config.json#/m/colors/k\n  value: \"nope\"\n  \"nope\" is not a color.\n  fix: Write it as one of:"
            ))
    }
}

@Suite struct ImageReferenceStyleTests {
    @Test(arguments: [("as-written", ImageReferenceStyle.asWritten), ("file-path", .filePath)])
    func skinJSONChoosesTheStyle(_ text: String, _ expected: ImageReferenceStyle) throws {
        let manifest = #"{"id": "s", "title": "S", "app": "demo", "imageReferences": "\#(text)"}"#
        let report = validate(Fixture.make(config: #"{"m": {"values": {"v": 1}}}"#, manifest: manifest))
        #expect(report.issues.isEmpty, "\(report.issues)")
        #expect(report.skin?.manifest.imageReferences == expected)
    }

    @Test(arguments: [#""file""#, #""File-Path""#, "true", "1"])
    func anythingElseIsAnErrorNamingTheField(_ value: String) throws {
        let manifest = #"{"id": "s", "title": "S", "app": "demo", "imageReferences": \#(value)}"#
        let report = validate(Fixture.make(config: #"{"m": {"values": {"v": 1}}}"#, manifest: manifest))
        let issue = try #require(report.first(.manifestFieldInvalid))
        #expect(issue.pointer == "/imageReferences")
        #expect(issue.fix.contains("file-path"))
    }
}
