import Foundation
import LiveryJSON
import SkinModel
import TestSupport
import Testing

/// `skin.json`'s `preview`: one image or one per appearance, a PNG, JPEG or WebP whose header declares a size within
/// the limits, read hostile-first.
@Suite struct PreviewImageTests {
    // Headers written by hand from the formats' specifications; only the bytes a header reader needs.

    static func png(width: UInt32, height: UInt32) -> [UInt8] { TestImages.png(width: width, height: height) }
    static func jpeg(width: UInt16, height: UInt16) -> [UInt8] { TestImages.jpeg(width: width, height: height) }

    /// RIFF/WEBP with a VP8X chunk (24-bit canvas width and height minus one).
    static func webpExtended(width: Int, height: Int) -> [UInt8] {
        Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0] + [0, 0, 0, 0]
            + littleEndian24(width - 1) + littleEndian24(height - 1)
    }

    /// RIFF/WEBP with a VP8L chunk (0x2F, then 14-bit width and height minus one).
    static func webpLossless(width: Int, height: Int) -> [UInt8] {
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        return Array("RIFF".utf8) + [26, 0, 0, 0] + Array("WEBPVP8L".utf8) + [5, 0, 0, 0, 0x2F]
            + [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24 & 0xFF)] + [
                0, 0, 0, 0, 0
            ]
    }

    /// RIFF/WEBP with a lossy VP8 chunk (frame tag, start code 9D 01 2A, 14-bit width and height).
    static func webpLossy(width: Int, height: Int) -> [UInt8] {
        Array("RIFF".utf8) + [30, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [10, 0, 0, 0] + [
            0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A
        ]
            + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)] + [0, 0]
    }

    static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    static func skin(preview: String, files: [String: [UInt8]]) -> InMemorySkinSource {
        var all = files
        all["config.json"] = Bytes.text(#"{"m": {"values": {"v": 1}}}"#)
        all["skin.json"] = Bytes.text(#"{"id": "ink", "title": "Ink", "app": "demo", "preview": \#(preview)}"#)
        return InMemorySkinSource(files: all)
    }

    @Test(arguments: [
        ("preview.png", png(width: 750, height: 1334), ImageHeader(format: .png, width: 750, height: 1334)),
        ("preview.jpg", jpeg(width: 1080, height: 1920), ImageHeader(format: .jpeg, width: 1080, height: 1920)),
        ("preview.webp", webpExtended(width: 640, height: 4096), ImageHeader(format: .webp, width: 640, height: 4096)),
        ("lossless.webp", webpLossless(width: 300, height: 16), ImageHeader(format: .webp, width: 300, height: 16)),
        ("lossy.webp", webpLossy(width: 512, height: 512), ImageHeader(format: .webp, width: 512, height: 512))
    ])
    func aPreviewInEachFormatIsValidAndNotPacked(_ name: String, _ bytes: [UInt8], _ expected: ImageHeader) throws {
        #expect(try ImageHeader.read(bytes).get() == expected)
        let report = SkinValidator().validate(Self.skin(preview: "\"\(name)\"", files: [name: bytes]))
        #expect(report.issues.isEmpty, "\(report.issues)")
        let skin = try #require(report.skin)
        #expect(skin.manifest.preview == PreviewImages(light: try AssetPath(validating: name)))
        let standard = try #require(PackageVariant(scale: 3, appearance: .light))
        #expect(
            skin.packagePlan(for: standard).names == ["config.json"], "previews are served on their own, not packed")
    }

    @Test func onePreviewPerAppearance() throws {
        let report = SkinValidator().validate(
            Self.skin(
                preview: #"{"light": "previews/day.png", "dark": "previews/night.jpg"}"#,
                files: [
                    "previews/day.png": Self.png(width: 750, height: 1334),
                    "previews/night.jpg": Self.jpeg(width: 750, height: 1334)
                ]))
        #expect(report.issues.isEmpty, "\(report.issues)")
        let preview = try #require(report.skin?.manifest.preview)
        #expect(preview.light.rawValue == "previews/day.png" && preview.dark?.rawValue == "previews/night.jpg")
        #expect(
            report.skin?.manifest.jsonValue.objectValue?["preview"]
                == #"{"light": "previews/day.png", "dark": "previews/night.jpg"}"#.jsonForTest)
    }

    @Test(
        arguments: [
            (#""missing.png""#, [:], "preview.missing", "/preview"),
            (
                #""anim.gif""#, ["anim.gif": Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]], "preview.type-unsupported",
                "/preview"
            ),
            (
                #""cut.png""#, ["cut.png": Array(png(width: 750, height: 1334).prefix(20))], "preview.type-unsupported",
                "/preview"
            ),
            (#""tiny.png""#, ["tiny.png": png(width: 8, height: 8)], "preview.dimensions", "/preview"),
            (
                #"{"light": "wide.jpg"}"#, ["wide.jpg": jpeg(width: 5000, height: 1000)], "preview.dimensions",
                "/preview/light"
            ),
            (
                #"{"light": "ok.png", "dark": "huge.webp"}"#,
                ["ok.png": png(width: 750, height: 1334), "huge.webp": webpExtended(width: 16384, height: 16384)],
                "preview.dimensions", "/preview/dark"
            ),
            (#"{"light": 3}"#, [:], "preview.invalid", "/preview/light"),
            (#"{"dark": "night.png"}"#, [:], "preview.invalid", "/preview"),
            (
                #"{"light": "a.png", "thumb": "b.png"}"#, ["a.png": png(width: 100, height: 100)], "preview.invalid",
                "/preview/thumb"
            ),
            (#""../outside.png""#, [:], "preview.invalid", "/preview"),
            ("true", [:], "preview.invalid", "/preview")
        ] as [(String, [String: [UInt8]], String, String)])
    func badPreviewsAreErrorsNamingTheirPlace(
        _ preview: String, _ files: [String: [UInt8]], _ code: String, _ pointer: String
    ) throws {
        let report = SkinValidator().validate(Self.skin(preview: preview, files: files))
        #expect(!report.isValid)
        let issue = try #require(report.issues.first { $0.code.rawValue == code }, "\(report.issues)")
        #expect(issue.file == "skin.json" && issue.pointer == pointer)
        #expect(!issue.fix.isEmpty)
    }

    /// Hostile-first: every truncation of a valid header, and random bytes after each magic number (fixed seed,
    /// bounded count), give an answer and never trap.
    @Test func headersThatEndEarlyOrHoldGarbageNeverTrap() {
        for valid in [
            Self.png(width: 750, height: 1334), Self.jpeg(width: 750, height: 1334),
            Self.webpExtended(width: 75, height: 75),
            Self.webpLossless(width: 75, height: 75), Self.webpLossy(width: 75, height: 75)
        ] {
            for count in 0..<valid.count { _ = ImageHeader.read(Array(valid.prefix(count))) }
        }
        var random = SplitMix64(seed: 15)
        let magics: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], Array("RIFF\0\0\0\0WEBP".utf8)
        ]
        for round in 0..<3000 {
            let length = Int(random.next() % 96)
            let tail = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let result = ImageHeader.read(magics[round % magics.count] + tail)
            if case .success(let header) = result { #expect(header.width > 0 && header.height > 0) }
        }
    }

    @Test func theSampleSkinsIconsAreReadAsTheirIHDRSays() throws {
        let bytes = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: Fixture.packageRoot + "/skins/spring-festival-2027/tab_home.png"))
        )
        #expect(try ImageHeader.read(bytes).get() == ImageHeader(format: .png, width: 28, height: 28))
    }
}

extension String {
    /// The JSON value this text parses to (test data written as JSON).
    var jsonForTest: JSONValue? { try? JSONValue.parse(self) }
}
