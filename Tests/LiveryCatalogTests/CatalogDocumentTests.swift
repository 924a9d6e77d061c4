import Foundation
import LiveryCatalog
import Testing

/// Parsing catalog documents hostile-first: every bad field is named by its JSON pointer, nothing traps.
@Suite struct CatalogDocumentTests {
    static let valid = #"""
        {"app":"demo","platform":"ios","revision":7,"horizonEndsAt":"2027-01-01T00:00:00Z","complete":true,"killed":false,
        "skins":[{"skinId":"x","kind":"holiday","order":null,"startsAt":"2026-12-01T00:00:00.250Z",
        "endsAt":"2026-12-02T00:00:00Z","priority":1,"platforms":["ios"],"minAppVersion":"7.0","maxAppVersion":null,
        "rollout":40,"packages":{"@3x-light":{"skinSign":"s","packageUrl":"/p/s.zip","sha256":"ab","size":3}},"future":1},
        {"skinId":"t","kind":"theme","order":null,"startsAt":null,"endsAt":null,"priority":0,"platforms":["ios"],
        "minAppVersion":null,"maxAppVersion":null,"rollout":100,"title":"T","description":"D","packages":{}}],
        "expiresAt":"2026-12-01T00:06:00Z"}
        """#

    @Test func aValidDocumentParsesWithEveryFieldAndIgnoresUnknownOnes() throws {
        let document = try CatalogDocument.parse(Array(Self.valid.utf8))
        #expect(document.app == "demo" && document.platform == "ios" && document.revision == 7)
        #expect(document.complete && !document.killed && document.skins.count == 2)
        let skin = document.skins[0]
        #expect(skin.startsAt == Date(timeIntervalSince1970: 1_796_083_200.25))
        #expect(skin.minAppVersion == CatalogAppVersion("7.0.0") && skin.maxAppVersion == nil && skin.rollout == 40)
        #expect(skin.packages["@3x-light"]?.size == 3)
        let theme = document.skins[1]
        #expect(
            theme.kind == .theme && theme.title == "T" && theme.startsAt == .distantPast
                && theme.endsAt == .distantFuture)
        #expect(document.expiresAt == CatalogInstant.parse("2026-12-01T00:06:00Z"))
    }

    @Test(arguments: [
        (#""rollout":40"#, #""rollout":101"#, "/skins/0/rollout"),
        (#""rollout":40"#, #""rollout":"40""#, "/skins/0/rollout"),
        (#""endsAt":"2026-12-02T00:00:00Z""#, #""endsAt":"2026-12-01T00:00:00Z""#, "/skins/0/endsAt"),
        (#""startsAt":"2026-12-01T00:00:00.250Z""#, #""startsAt":"2026-12-01 00:00:00""#, "/skins/0/startsAt"),
        (#""startsAt":"2026-12-01T00:00:00.250Z""#, #""startsAt":"2026-02-30T00:00:00Z""#, "/skins/0/startsAt"),
        (#""minAppVersion":"7.0""#, #""minAppVersion":"7.x""#, "/skins/0/minAppVersion"),
        (#""kind":"holiday""#, #""kind":"banner""#, "/skins/0/kind"),
        (#""size":3"#, #""size":-3"#, "/skins/0/packages/@3x-light/size"),
        (#""skinId":"x""#, #""skinId":"""#, "/skins/0/skinId"),
        (#""killed":false"#, #""killed":0"#, "/killed"),
        (#""revision":7,"#, "", "/revision")
    ])
    func aBadFieldIsRefusedNamingItsPointer(original: String, replacement: String, pointer: String) throws {
        let text = Self.valid.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.valid)
        #expect(throws: CatalogDocumentError.self) { try CatalogDocument.parse(Array(text.utf8)) }
        do {
            _ = try CatalogDocument.parse(Array(text.utf8))
        } catch {
            #expect(error.pointer == pointer, "\(error)")
        }
    }

    @Test func malformedJSONDuplicateKeysAndDeepNestingAreRefused() {
        for text in [
            "", "{", #"{"app":"a","app":"b"}"#, String(repeating: "[", count: 10_000), "\u{FEFF}{}", "[1,2]"
        ] {
            #expect(throws: CatalogDocumentError.self, "\(text.prefix(20))") {
                try CatalogDocument.parse(Array(text.utf8))
            }
        }
    }

    @Test func appVersionsCompareNumericallyWithMissingPartsAsZero() throws {
        let v = { (text: String) throws -> CatalogAppVersion in try #require(CatalogAppVersion(text)) }
        #expect(try v("7.10") > v("7.9"))
        #expect(try v("7.0") == v("7.0.0.0"))
        #expect(try v("7.1.9.999") < v("7.2"))
        for bad in ["", "7.", ".7", "1.2.3.4.5", "1234567890", "7.a", "-1", " 7"] {
            #expect(CatalogAppVersion(bad) == nil, "\(bad)")
        }
    }

    @Test func theBucketIsTheFirstEightBytesOfSHA256BigEndianModulo100() {
        // SHA-256("winter:device-1") starts 4f9bd50f72b4757a = 5736412812712113530, which is 30 modulo 100.
        let bucket = CatalogDecision.bucket(deviceId: "device-1", skinId: "winter")
        #expect(bucket == 30)
        #expect(CatalogDecision.includes(deviceId: nil, skinId: "winter", rollout: 100))
        #expect(!CatalogDecision.includes(deviceId: "device-1", skinId: "winter", rollout: 0))
        #expect(!CatalogDecision.includes(deviceId: "", skinId: "winter", rollout: 99))
        #expect(CatalogDecision.includes(deviceId: "device-1", skinId: "winter", rollout: bucket + 1))
        #expect(!CatalogDecision.includes(deviceId: "device-1", skinId: "winter", rollout: bucket))
    }
}
