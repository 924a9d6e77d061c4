import SkinModel
import Testing

@Suite struct AssetPathTests {
    @Test(arguments: [
        // C1 control characters (U+0080–U+009F) are refused like C0 and DEL: zip entry names refuse them.
        ("a\u{80}b.png", AssetPath.Problem.malformed("it contains a control character")),
        ("a\u{85}b.png", .malformed("it contains a control character")),
        ("icons/\u{9F}.png", .malformed("it contains a control character")),
        ("a\u{7F}b.png", .malformed("it contains a control character")),
        ("a\u{0}b.png", .malformed("it contains a control character")),
        // The characters around them are fine.
        ("a\u{A0}b.png", nil), ("a\u{7E}b.png", nil), ("\u{C2}\u{A9}.png", nil), ("新春/福@2x.png", nil),
        // A combining mark after a separator forms one Character with it; the bytes still hold the separator.
        ("/\u{301}etc/passwd", .absolute),
        ("../\u{301}x.png", .parentSegment),
        ("a/..\u{301}/x.png", nil),
        ("a\\\u{301}b.png", .malformed("it contains a backslash; use '/' between folders")),
        ("a/\u{301}.png", nil),
        ("a//\u{301}b", .malformed("it has an empty segment ('//' or a trailing '/')")),
        ("./\u{301}b", .malformed("it has a '.' segment")),
        // Length: what a zip entry name can hold.
        (String(repeating: "a", count: 65_535), nil),
        (String(repeating: "a", count: 65_536), .malformed("it is longer than 65,535 bytes")),
        // Precedence when several rules are broken.
        ("/a\\b", .absolute), ("a\\b\u{85}", .malformed("it contains a backslash; use '/' between folders")),
        ("../a\u{85}", .malformed("it contains a control character")), ("a//../b", .parentSegment),
        ("c:x.png", .absolute), ("1:x.png", nil)
    ])
    func checksRulesOnBytes(_ text: String, _ problem: AssetPath.Problem?) {
        #expect(AssetPath.problem(in: text) == problem)
        #expect((try? AssetPath(validating: text)) == nil ? problem != nil : problem == nil)
    }

    @Test func validatorRefusesAFileNameWithAC1ControlCharacter() throws {
        let source = Fixture.make(
            config: #"{"m": {"images": {"i": "a\u0085b.png"}}}"#, files: ["a\u{85}b.png": Bytes.png])
        let report = validate(source)
        let issue = try #require(report.first(.pathInvalid))
        #expect(issue.file == "a\u{85}b.png")
        #expect(issue.message.contains("control character"))
        #expect(report.skin == nil)
    }
}
