import SkinModel
import Testing

@Suite struct PackagePlanTests {
    @Test(arguments: [
        (1, Appearance.light, ["banner@2x.png", "config.json", "icon.png", "loading.gif"]),
        (2, .light, ["banner@2x.png", "config.json", "icon@2x.png", "loading.gif"]),
        (3, .light, ["banner@3x.png", "config.json", "icon@3x.png", "loading.gif"]),
        (1, .dark, ["banner_dark@2x.png", "config.json", "icon.png", "loading.gif"]),
        (2, .dark, ["banner_dark@2x.png", "config.json", "icon@2x.png", "loading.gif"]),
        (3, .dark, ["banner_dark@3x.png", "config.json", "icon@3x.png", "loading.gif"])
    ])
    func eachVariantHoldsExactlyItsFiles(_ scale: Int, _ appearance: Appearance, _ expected: [String]) throws {
        var files = DarkModeTests.files
        files["loading.gif"] = Bytes.gif
        let config = DarkModeTests.config.replacingOccurrences(
            of: #""tab":"#, with: #""loading": {"resources": {"spinner": "loading.gif"}}, "tab":"#)
        let report = validate(Fixture.make(config: config, files: files))
        let skin = try #require(report.skin, "\(report.issues)")
        let variant = try #require(PackageVariant(scale: scale, appearance: appearance))
        let plan = skin.packagePlan(for: variant)
        #expect(plan.names == expected)
        #expect(plan.variant == variant)
        #expect(
            plan.entries.first { $0.name == "config.json" }?.content
                == .bytes(skin.config.effectiveConfigBytes(for: appearance)))
        for entry in plan.entries where entry.name != "config.json" {
            #expect(entry.content == .sourceFile(relativePath: entry.name))
        }
    }

    @Test func theStreamedDigestInputIsThePlansWithoutHoldingTheConfig() throws {
        let files: [String: [UInt8]] = [
            "Z.png": Bytes.png, "a.png": Bytes.png, "é.png": Bytes.png, "d.json": Array("{}".utf8)
        ]
        let report = validate(
            Fixture.make(
                config:
                    #"{"m": {"images": {"1": "Z", "2": "a", "5": "é"}, "resources": {"7": "d.json"}, "values": {"t": "\u00e9\n", "n": [1, {"x": null}]}}}"#,
                files: files))
        let skin = try #require(report.skin, "\(report.issues)")
        let identity: (String) -> [UInt8] = { Array("id:\($0)".utf8) }
        for variant in PackageVariant.all {
            var streamed: [UInt8] = []
            var pieces = 0
            skin.feedContentDigestInput(for: variant, fileIdentity: identity) {
                streamed.append(contentsOf: $0)
                pieces += 1
            }
            #expect(streamed == skin.packagePlan(for: variant).contentDigestInput(fileIdentity: identity))
            #expect(pieces > 1)
        }
        let document = skin.config.effectiveDocument(for: .dark)
        #expect(document.serializedCount(.pretty) == document.serialized(.pretty).count)
        var chunks: [[UInt8]] = []
        document.serialize(.compact, chunkSize: 8) { chunks.append(Array($0)) }
        #expect(chunks.count > 2 && Array(chunks.joined()) == document.serialized(.compact))
    }

    @Test func entriesAreSortedBytewiseAndUnique() throws {
        let files: [String: [UInt8]] = [
            "Z.png": Bytes.png, "a.png": Bytes.png, "b/c.png": Bytes.png, "b.png": Bytes.png, "é.png": Bytes.png
        ]
        let report = validate(
            Fixture.make(
                config:
                    #"{"m": {"images": {"1": "Z", "2": "a", "3": "b/c", "4": "b", "5": "é", "6": "a.png"}, "resources": {"7": "a.png"}}}"#,
                files: files))
        let plan = try #require(report.skin).packagePlan(for: .standard)
        #expect(plan.names == ["Z.png", "a.png", "b.png", "b/c.png", "config.json", "é.png"])
    }

    @Test func pinnedScaleFilesShipInEveryVariant() throws {
        let files: [String: [UInt8]] = ["logo@2x.png": Bytes.png, "logo@3x.png": Bytes.png]
        let skin = try #require(validate(Fixture.make(section: "images", value: #""logo@2x.png""#, files: files)).skin)
        for variant in PackageVariant.all {
            #expect(skin.packagePlan(for: variant).names == ["config.json", "logo@2x.png"])
        }
    }

    @Test func remoteAndSolidColorImagesAddNoFiles() throws {
        let skin = try #require(
            validate(
                Fixture.make(
                    config: #"{"m": {"images": {"a": "https://cdn.example.com/a.png", "b": {"color": "fff"}}}}"#)
            ).skin)
        #expect(skin.packagePlan(for: .standard).names == ["config.json"])
    }

    @Test func plansAreDeterministicAndDigestInputTracksContent() throws {
        let files: [String: [UInt8]] = ["a.png": Bytes.png]
        let first = try #require(validate(Fixture.make(section: "images", value: #""a""#, files: files)).skin)
        let second = try #require(validate(Fixture.make(section: "images", value: #""a""#, files: files)).skin)
        let plan = first.packagePlan(for: .standard)
        #expect(plan == second.packagePlan(for: .standard))
        let identity: (String) -> [UInt8] = { Array("sha-of-\($0)".utf8) }
        let input = plan.contentDigestInput(fileIdentity: identity)
        #expect(input == second.packagePlan(for: .standard).contentDigestInput(fileIdentity: identity))
        #expect(input.starts(with: Array("livery-plan/1\nN5:a.pngF12:sha-of-a.png\nN11:config.jsonB".utf8)))
        // Another file identity (changed bytes) or another config changes the digest input.
        #expect(input != plan.contentDigestInput(fileIdentity: { _ in Array("other".utf8) }))
        let changed = try #require(validate(Fixture.make(section: "images", value: #""a.png""#, files: files)).skin)
        #expect(input != changed.packagePlan(for: .standard).contentDigestInput(fileIdentity: identity))
    }

    @Test func generatedConfigIsPrettyDeterministicJSON() throws {
        let skin = try #require(validate(Fixture.make(config: #"{"m":{"values":{"b":1,"a":[true,null]}}}"#)).skin)
        let bytes = skin.config.effectiveConfigBytes(for: .light)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "{\n  \"m\": {\n    \"values\": {\n      \"b\": 1,\n      \"a\": [\n        true,\n        null\n      ]\n    }\n  }\n}\n"
        )
    }
}
