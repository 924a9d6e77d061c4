import Foundation
import LiveryJSON
import SkinModel
import Testing

@Suite struct ReleasePlanTests {
    static func parse(_ json: String) throws -> ParseResult<ReleasePlan> {
        ReleasePlan.parse(try JSONValue.parse(json))
    }

    static func instant(_ text: String) -> Date {
        // UTC "YYYY-MM-DDTHH:MM:SS" via Foundation, independent of the parser under test.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = text.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        let components = DateComponents(
            year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5])
        return calendar.date(from: components) ?? .distantPast
    }

    @Test func parsesTheIssueExampleWithDefaultsFilledIn() throws {
        let result = try Self.parse(
            """
            {"startsAt": "2027-02-05T00:00:00+08:00", "endsAt": "2027-02-20T00:00:00+08:00",
             "priority": 10, "platforms": ["ios", "android"], "minAppVersion": "7.0.0",
             "maxAppVersion": null, "rollout": 100}
            """)
        #expect(result.issues.isEmpty)
        let plan = try #require(result.value)
        #expect(plan.startsAt == Self.instant("2027-02-04T16:00:00"))
        #expect(plan.endsAt == Self.instant("2027-02-19T16:00:00"))
        #expect(plan.startsAtText == "2027-02-05T00:00:00+08:00")
        #expect(plan.timeZone == nil)
        #expect(plan.priority == 10)
        #expect(plan.platforms == [.ios, .android])
        #expect(plan.minAppVersion == AppVersion("7"))
        #expect(plan.maxAppVersion == nil)
        #expect(plan.rollout == 100)
    }

    @Test func aThemeMayHaveNoWindowAndIsThenAlwaysActive() throws {
        let result = try Self.parse(#"{"kind": "theme", "order": 2, "platforms": ["ios"]}"#)
        #expect(result.issues.isEmpty, "\(result.issues)")
        let plan = try #require(result.value)
        #expect(plan.kind == .theme && plan.order == 2 && !plan.hasWindow)
        #expect(
            plan.isActive(at: Self.instant("1990-01-01T00:00:00"))
                && plan.isActive(at: Self.instant("2099-12-31T00:00:00")))
        #expect(
            plan.jsonValue.compactText
                == #"{"priority":0,"platforms":["ios"],"minAppVersion":null,"maxAppVersion":null,"rollout":100,"kind":"theme","order":2}"#
        )
        #expect(ReleasePlan.parse(plan.jsonValue).value == plan, "what is stored reads back equal")
    }

    @Test func aThemeWithAWindowAndAHolidayKeepTheirShape() throws {
        let theme = try #require(
            try Self.parse(#"{"kind": "theme", "startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z"}"#)
                .value)
        #expect(theme.hasWindow && theme.order == nil)
        #expect(
            theme.jsonValue.objectValue?["kind"] == "theme"
                && theme.jsonValue.objectValue?["startsAt"] == "2027-02-05T00:00:00Z")
        let holiday = try #require(
            try Self.parse(
                #"{"kind": "holiday", "startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z"}"#
            ).value)
        #expect(holiday.kind == .holiday)
        #expect(holiday.jsonValue.objectValue?["kind"] == nil, "holiday releases are stored as before")
    }

    @Test func macOSIsAPlatformAReleaseMayTarget() throws {
        let plan = try #require(
            try Self.parse(
                #"{"startsAt": "2026-12-20T00:00:00Z", "endsAt": "2026-12-27T00:00:00Z", "platforms": ["macos", "ios"]}"#
            ).value)
        #expect(plan.platforms == [.macos, .ios])
        #expect(plan.jsonValue.objectValue?["platforms"] == .array([.string("ios"), .string("macos")]))
        let version = try #require(AppVersion("1.0"))
        #expect(plan.targets(platform: .macos, appVersion: version))
        #expect(!plan.targets(platform: .android, appVersion: version))
    }

    @Test func defaultsArePriorityZeroAllPlatformsFullRollout() throws {
        let plan = try #require(
            try Self.parse(#"{"startsAt": "2026-12-20T00:00:00Z", "endsAt": "2026-12-27T00:00:00Z"}"#).value)
        #expect(plan.priority == 0)
        #expect(plan.platforms == Set(Platform.allCases))
        #expect(plan.rollout == 100)
        #expect(plan.minAppVersion == nil && plan.maxAppVersion == nil)
    }

    @Test(arguments: [
        ("2027-02-05T00:00:00", "Asia/Shanghai", "2027-02-04T16:00:00"),
        ("2026-12-24T18:00:00", "Europe/Berlin", "2026-12-24T17:00:00"),
        ("2026-07-01T12:00:00", "Europe/Berlin", "2026-07-01T10:00:00"),
        ("2026-11-01T01:30:00", "America/New_York", "2026-11-01T05:30:00"),  // repeated hour: the earlier instant
        ("2027-02-05T00:00:00.250", "UTC", "2027-02-05T00:00:00")
    ])
    func readsLocalTimesInTheirZone(_ local: String, _ zone: String, _ utc: String) throws {
        let result = try Self.parse(
            #"{"startsAt": "\#(local)", "endsAt": "2030-01-01T00:00:00Z", "timeZone": "\#(zone)"}"#)
        let plan = try #require(result.value, "\(result.issues)")
        #expect(abs(plan.startsAt.timeIntervalSince(Self.instant(utc)) - (local.hasSuffix(".250") ? 0.25 : 0)) < 0.001)
        #expect(plan.timeZone == zone)
    }

    @Test(arguments: [
        // (release JSON, code, pointer)
        (#"{"endsAt": "2027-01-01T00:00:00Z"}"#, "release.field-missing", "/release"),
        (#"{"startsAt": 5, "endsAt": "2027-01-01T00:00:00Z"}"#, "release.field-invalid", "/release/startsAt"),
        (
            #"{"startsAt": "2027-02-30T00:00:00Z", "endsAt": "2027-03-01T00:00:00Z"}"#, "release.date-invalid",
            "/release/startsAt"
        ),
        (
            #"{"startsAt": "2027-02-05 00:00:00Z", "endsAt": "2027-03-01T00:00:00Z"}"#, "release.date-invalid",
            "/release/startsAt"
        ),
        (
            #"{"startsAt": "2027-02-05T24:00:00Z", "endsAt": "2027-03-01T00:00:00Z"}"#, "release.date-invalid",
            "/release/startsAt"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00+8:00", "endsAt": "2027-03-01T00:00:00Z"}"#, "release.date-invalid",
            "/release/startsAt"
        ),
        (#"{"startsAt": "2027-02-05", "endsAt": "2027-03-01T00:00:00Z"}"#, "release.date-invalid", "/release/startsAt"),
        (
            #"{"startsAt": "2027-02-05T00:00:00", "endsAt": "2027-03-01T00:00:00Z"}"#, "release.timezone-missing",
            "/release/startsAt"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00", "endsAt": "2027-03-01T00:00:00", "timeZone": "Mars/Olympus"}"#,
            "release.timezone-unknown", "/release/timeZone"
        ),
        (
            #"{"startsAt": "2027-03-14T02:30:00", "endsAt": "2027-03-20T00:00:00", "timeZone": "America/New_York"}"#,
            "release.time-nonexistent", "/release/startsAt"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-05T00:00:00Z"}"#, "release.window-empty",
            "/release/endsAt"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00+08:00", "endsAt": "2027-02-04T15:59:59Z"}"#, "release.window-empty",
            "/release/endsAt"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "platforms": ["ios", "web"]}"#,
            "release.platform-invalid", "/release/platforms/1"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "platforms": ["ios", "ios"]}"#,
            "release.platform-invalid", "/release/platforms/1"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "platforms": []}"#,
            "release.platform-invalid", "/release/platforms"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "platforms": "ios"}"#,
            "release.platform-invalid", "/release/platforms"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "minAppVersion": "7.x"}"#,
            "release.version-invalid", "/release/minAppVersion"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "minAppVersion": 7}"#,
            "release.version-invalid", "/release/minAppVersion"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "minAppVersion": "7.0", "maxAppVersion": "7"}"#,
            "release.version-invalid", "/release/maxAppVersion"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "rollout": 101}"#,
            "release.rollout-invalid", "/release/rollout"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "rollout": 30.5}"#,
            "release.rollout-invalid", "/release/rollout"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "rollout": "30"}"#,
            "release.rollout-invalid", "/release/rollout"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "priority": 1.5}"#,
            "release.field-invalid", "/release/priority"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "startAt": "x"}"#,
            "release.key-unknown", "/release/startAt"
        ),
        (#"[]"#, "release.not-object", "/release"),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "kind": "seasonal"}"#,
            "release.field-invalid", "/release/kind"
        ),
        (
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "order": 1}"#,
            "release.field-invalid", "/release/order"
        ),
        (#"{"kind": "theme", "order": -1}"#, "release.field-invalid", "/release/order"),
        (#"{"kind": "theme", "order": "first"}"#, "release.field-invalid", "/release/order"),
        (#"{"kind": "theme", "startsAt": "2027-02-05T00:00:00Z"}"#, "release.field-missing", "/release/endsAt"),
        (#"{"kind": "holiday"}"#, "release.field-missing", "/release")
    ])
    func reportsEachReleaseErrorWithItsPointer(_ json: String, _ code: String, _ pointer: String) throws {
        let result = try Self.parse(json)
        #expect(result.value == nil)
        let issue = try #require(result.issues.first { $0.code.rawValue == code }, "\(result.issues)")
        #expect(issue.pointer == pointer)
        #expect(issue.file == "skin.json")
        #expect(!issue.message.isEmpty && !issue.fix.isEmpty)
    }

    @Test func suggestsTheKeyATypoMeant() throws {
        let result = try Self.parse(
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "rolout": 5}"#)
        #expect(result.issues.first?.fix.hasPrefix(#"Did you mean "rollout"?"#) == true)
    }

    @Test func warnsWhenTheTimeZoneChangesNothing() throws {
        let result = try Self.parse(
            #"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "timeZone": "Asia/Shanghai"}"#)
        #expect(result.value != nil)
        #expect(result.issues.map(\.code) == [.releaseTimeZoneUnused])
    }

    @Test func adminBodiesMayCarryExtraKeysAndUseTheirOwnPointer() throws {
        let body = try JSONValue.parse(
            #"{"version": 2, "startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "rollout": 300}"#)
        let result = ReleasePlan.parse(body, file: nil, pointer: .root, allowingExtraKeys: ["version"])
        #expect(result.issues.map(\.pointer) == ["/rollout"])
        #expect(result.issues.first?.file == nil)
    }

    @Test func encodesToJSONThatParsesBackEqual() throws {
        let original = try #require(
            try Self.parse(
                """
                {"startsAt": "2027-02-05T00:00:00", "endsAt": "2027-02-20T00:00:00", "timeZone": "Asia/Shanghai",
                 "priority": -3, "platforms": ["harmony", "ios"], "minAppVersion": "7.0", "maxAppVersion": "8.1.2", "rollout": 30}
                """
            ).value)
        let encoded = original.jsonValue
        #expect(
            encoded.compactText
                == #"{"startsAt":"2027-02-05T00:00:00","endsAt":"2027-02-20T00:00:00","timeZone":"Asia/Shanghai","priority":-3,"platforms":["ios","harmony"],"minAppVersion":"7.0","maxAppVersion":"8.1.2","rollout":30}"#
        )
        #expect(ReleasePlan.parse(encoded).value == original)
    }

    @Test func programmaticPlansEncodeAsUTC() throws {
        let plan = ReleasePlan(
            startsAt: Self.instant("2026-12-20T00:00:00"), endsAt: Self.instant("2026-12-27T12:30:00"), rollout: 40)
        #expect(plan.startsAtText == "2026-12-20T00:00:00Z")
        #expect(plan.endsAtText == "2026-12-27T12:30:00Z")
        #expect(ReleasePlan.parse(plan.jsonValue).value == plan)
    }

    @Test func windowIsHalfOpen() throws {
        let plan = try #require(
            try Self.parse(#"{"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z"}"#).value)
        let start = Self.instant("2027-02-05T00:00:00")
        let end = Self.instant("2027-02-06T00:00:00")
        #expect(!plan.isActive(at: start.addingTimeInterval(-1)))
        #expect(plan.isActive(at: start))
        #expect(plan.isActive(at: end.addingTimeInterval(-1)))
        #expect(!plan.isActive(at: end))
    }

    @Test(arguments: [
        (Platform.ios, "7.0", true), (.ios, "6.9.9", false), (.ios, "7.5", true), (.ios, "8", false),
        (.ios, "8.0.0.1", false),
        (.android, "7.1", true), (.harmony, "7.1", false)
    ])
    func targetsPlatformsAndAHalfOpenVersionRange(_ platform: Platform, _ version: String, _ expected: Bool) throws {
        let plan = try #require(
            try Self.parse(
                """
                {"startsAt": "2027-02-05T00:00:00Z", "endsAt": "2027-02-06T00:00:00Z", "platforms": ["ios", "android"],
                 "minAppVersion": "7.0.0", "maxAppVersion": "8.0"}
                """
            ).value)
        #expect(plan.targets(platform: platform, appVersion: try #require(AppVersion(version))) == expected)
    }
}

@Suite struct ValueTypeTests {
    @Test(arguments: ["spring-festival-2027", "a", "x.y_z-1", "0abc", String(repeating: "a", count: 64)])
    func acceptsValidSkinIDs(_ text: String) { #expect(SkinID(text)?.rawValue == text) }

    @Test(arguments: [
        "", "Spring", "-a", ".a", "_a", "a..b", "a/b", "a b", "ä", String(repeating: "a", count: 65), "a\u{0}"
    ])
    func rejectsInvalidSkinIDs(_ text: String) { #expect(SkinID(text) == nil) }

    @Test func skinIDsSortByText() throws {
        let ids = try ["b", "a10", "a2"].map { try #require(SkinID($0)) }
        #expect(ids.sorted().map(\.rawValue) == ["a10", "a2", "b"])
    }

    @Test(arguments: [
        ("7.0", "7.0.0", 0), ("7", "7.0.0.0", 0), ("7.10", "7.9", 1), ("7.0.1", "7.1", -1), ("1.2.3.4", "1.2.3.5", -1)
    ])
    func comparesAppVersionsNumerically(_ a: String, _ b: String, _ order: Int) throws {
        let left = try #require(AppVersion(a))
        let right = try #require(AppVersion(b))
        #expect((left < right) == (order < 0))
        #expect((left == right) == (order == 0))
        if order == 0 { #expect(left.hashValue == right.hashValue) }
    }

    @Test(arguments: ["", "7.", ".7", "7..0", "1.2.3.4.5", "v7", "7.0-beta", "-1", "1234567890", " 7"])
    func rejectsMalformedAppVersions(_ text: String) { #expect(AppVersion(text) == nil) }

    @Test func packageVariantsCoverThreeScalesAndTwoAppearances() {
        #expect(PackageVariant.all.count == 6)
        #expect(Set(PackageVariant.all).count == 6)
        #expect(PackageVariant(scale: 0, appearance: .light) == nil)
        #expect(PackageVariant(scale: 4, appearance: .dark) == nil)
        #expect(PackageVariant.standard == PackageVariant(scale: 3, appearance: .light))
        #expect(PackageVariant.standard.description == "@3x-light")
    }

    @Test(arguments: [
        ("tab.png", nil), ("a/b/c@2x.png", nil), ("/abs.png", AssetPath.Problem.absolute), ("C:/x.png", .absolute),
        ("../x.png", .parentSegment), ("a/../../x", .parentSegment),
        ("a//b", .malformed("it has an empty segment ('//' or a trailing '/')")),
        ("a/", .malformed("it has an empty segment ('//' or a trailing '/')")),
        ("./a", .malformed("it has a '.' segment")),
        ("a\\b", .malformed("it contains a backslash; use '/' between folders")),
        ("a\nb", .malformed("it contains a control character")),
        ("", .malformed("the path is empty"))
    ])
    func checksAssetPaths(_ text: String, _ problem: AssetPath.Problem?) {
        #expect(AssetPath.problem(in: text) == problem)
    }
}
