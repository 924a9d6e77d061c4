import Foundation
import HTTPTestSupport
import LiveryCatalog
import LiveryCrypto
import LiveryProtocol
import Logging
import TestSupport
import Testing

@testable import LiveryServer
@testable import SkinServing

/// `GET /api/v1/catalog`: one document per app and platform, the same bytes for every device, cacheable until the
/// next boundary, signed like the poll, assembled and signed once per step.
@Suite(.serialized) struct CatalogEndpointTests {
    static let t0 = Fixtures.t0
    static let day: TimeInterval = 86_400
    static let url = "/api/v1/catalog?app=demo&platform=ios"

    static func harness(
        key: CountingKey? = nil, at instant: Date = t0.addingTimeInterval(60), logger: Logger = LiveryHarness.quiet,
        configure: @escaping (inout LiveryService.Configuration) -> Void = { _ in }
    ) async throws -> LiveryHarness {
        let harness = try await LiveryHarness(at: instant, logger: logger) { configuration in
            configuration.client.signingKey = key
            configure(&configuration)
        }
        harness.service.client.publish(CatalogAgreementTests.catalog)
        return harness
    }

    @Test func everyDeviceGetsTheSameBytesWithTheFieldsInTheProtocolsOrder() async throws {
        let harness = try await Self.harness()
        defer { harness.removeFiles() }
        let plain = try await harness.get(Self.url)
        let other = try await harness.get(Self.url + "&deviceId=abc&appVersion=9.0&scale=1&appearance=dark&sign=x")
        #expect(plain.status == 200 && plain.body == other.body, "other parameters are ignored")
        #expect(plain.header("ETag") == other.header("ETag") && plain.header("ETag") == SkinAnswer.etag(of: plain.body))
        #expect(plain.header("Content-Type") == "application/json")
        #expect(
            plain.text.hasPrefix(
                #"{"app":"demo","platform":"ios","revision":7,"horizonEndsAt":"2027-01-29T08:01:00Z","complete":true,"killed":false,"skins":[{"skinId":"zero","kind":"holiday","order":null,"startsAt":"2027-01-15T08:00:00Z","endsAt":"2027-01-23T08:00:00Z","priority":99,"platforms":["ios","android"],"minAppVersion":null,"maxAppVersion":null,"rollout":0,"packages":{"@1x-light":{"skinSign":"#
            ),
            "\(plain.text.prefix(400))")
        #expect(plain.text.hasSuffix("}]}"), "unsigned: no expiresAt")
        let document = try CatalogDocument.parse(plain.body)
        // Holiday skins in precedence order, then themes in list order; droid and noir are android only.
        #expect(
            document.skins.map(\.skinId) == [
                "zero", "legacy", "no-any", "eve-beta", "eve", "tie-a", "tie-b", "late", "base", "gold", "classic",
                "aurora", "mint"
            ])
        let classic = try #require(document.skins.first { $0.skinId == "classic" })
        #expect(
            classic.title == "Classic" && classic.description == "About classic" && classic.startsAt == .distantPast)
        #expect(classic.packages.keys.sorted() == CatalogVariant.all.map(\.key).sorted(), "one key per variant")
        #expect(document.skins.first { $0.skinId == "no-any" }?.packages.count == 6)
        // Cacheable until the first boundary ahead (eve starts at t0 + 1 day; t0 + 60 s now) and --cache-max-age.
        #expect(plain.header("Cache-Control") == "public, max-age=60")
        let notModified = try await harness.get(Self.url, headers: "If-None-Match: \(plain.header("ETag") ?? "")\r\n")
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("Content-Type") == nil)
        await harness.stop()
    }

    @Test func maxAgeStopsAtTheNextWindowBoundary() async throws {
        // 20 s before eve starts.
        let harness = try await Self.harness(at: Self.t0.addingTimeInterval(Self.day - 20))
        defer { harness.removeFiles() }
        let response = try await harness.get(Self.url)
        #expect(response.header("Cache-Control") == "public, max-age=20")
        await harness.stop()
    }

    @Test func aSignedCatalogVerifiesExpiresWithTheStepAndMayBeServedStaleUntilThen() async throws {
        let key = try CountingKey(id: "cat")
        let harness = try await Self.harness(key: key, at: Self.t0.addingTimeInterval(75))
        defer { harness.removeFiles() }
        let response = try await harness.get(Self.url)
        let signature = try #require(response.header("Livery-Signature"))
        _ = try key.ring.verify(body: response.body, headerValue: signature)
        // Step 08:01:00 ..< 08:02:00: expiresAt 08:07:00; max-age 60 from 08:01:15 ends 08:02:15, 285 s before it.
        #expect(response.text.hasSuffix(#"}}}],"expiresAt":"2027-01-15T08:07:00Z"}"#), "\(response.text.suffix(80))")
        #expect(
            response.header("Cache-Control") == "public, max-age=60, stale-while-revalidate=285, stale-if-error=285")
        #expect(try CatalogDocument.parse(response.body).expiresAt == CatalogInstant.parse("2027-01-15T08:07:00Z"))
        #expect(response.text.contains(#""horizonEndsAt":"2027-01-29T08:01:00Z""#), "step start + 14 days")

        // Assembled and signed once per step: a thousand requests in the step sign nothing more.
        let signed = key.count
        for device in 0..<1000 { _ = try await harness.get(Self.url + "&deviceId=d\(device)") }
        #expect(key.count == signed)
        let android = try await harness.get("/api/v1/catalog?app=demo&platform=android")
        #expect(key.count == signed + 1, "one document per platform")
        #expect(android.body != response.body)
        harness.clock.set(Self.t0.addingTimeInterval(121))
        let later = try await harness.get(Self.url)
        #expect(
            later.text.hasSuffix(#""expiresAt":"2027-01-15T08:08:00Z"}"#)
                && later.header("ETag") != response.header("ETag"))
        await harness.stop()
    }

    @Test func staleSecondsAreNeverNegativeWhenMaxAgeExceedsTheClockSkew() async throws {
        let key = try CountingKey(id: "long")
        let harness = try await Self.harness(key: key, at: Self.t0.addingTimeInterval(1)) { $0.client.maxAge = 600 }
        defer { harness.removeFiles() }
        // Step 08:00 ..< 08:10, expiresAt 08:15; max-age 600 from 08:00:01 ends 08:10:01, 299 s before expiresAt.
        let response = try await harness.get(Self.url)
        #expect(
            response.header("Cache-Control") == "public, max-age=600, stale-while-revalidate=299, stale-if-error=299")
        // At 08:09:59 only 301 s are left before expiresAt: max-age stops there and nothing is left to serve stale.
        harness.clock.set(Self.t0.addingTimeInterval(599))
        let late = try await harness.get(Self.url)
        #expect(late.header("Cache-Control") == "public, max-age=301, stale-while-revalidate=0, stale-if-error=0")
        await harness.stop()
    }

    @Test func theHorizonBoundsWhatIsListed() async throws {
        let harness = try await Self.harness(at: Self.t0.addingTimeInterval(60)) {
            $0.client.catalogHorizon = Int(5 * Self.day)
        }
        defer { harness.removeFiles() }
        let document = try CatalogDocument.parse(try await harness.get(Self.url).body)
        // tie-a/tie-b start at t0 + 4 d (listed), late at t0 + 6 d + 1 h (past the 5-day horizon).
        #expect(document.skins.contains { $0.skinId == "tie-a" } && !document.skins.contains { $0.skinId == "late" })
        #expect(document.horizonEndsAt == Self.t0.addingTimeInterval(60 + 5 * Self.day))
        // Past every window of eve-beta, it is no longer listed.
        harness.clock.set(Self.t0.addingTimeInterval(2 * Self.day + 60))
        let later = try CatalogDocument.parse(try await harness.get(Self.url).body)
        #expect(!later.skins.contains { $0.skinId == "eve-beta" } && later.skins.contains { $0.skinId == "late" })
        await harness.stop()
    }

    @Test func badRequestsGetNoStoreErrorsNamingTheField() async throws {
        let harness = try await Self.harness()
        defer { harness.removeFiles() }
        for (target, status, code) in [
            ("/api/v1/catalog?app=nope&platform=ios", 404, "unknown_app app"),
            ("/api/v1/catalog?app=demo&platform=windows", 400, "invalid_parameter platform"),
            ("/api/v1/catalog?app=demo", 400, "invalid_parameter platform"),
            ("/api/v1/catalog?platform=ios", 400, "invalid_parameter app"),
            ("/api/v1/catalog?app=de%20mo&platform=ios", 400, "invalid_parameter app")
        ] {
            let response = try await harness.get(target)
            #expect(response.status == status, "\(target)")
            #expect(try LiveryHarness.code(response) == code, "\(target)")
            #expect(response.header("Cache-Control") == "no-store", "\(target)")
        }
        #expect(try await harness.get("/api/v1/catalog?app=demo&platform=iOS").status == 200, "platform in any case")
        await harness.stop()
    }

    @Test func theKillSwitchEmptiesTheCatalogAndSaysSo() async throws {
        let harness = try await Self.harness()
        defer { harness.removeFiles() }
        harness.service.client.publish(CatalogAgreementTests.catalog.with(killSwitch: KillSwitch(apps: ["demo"])))
        let response = try await harness.get(Self.url)
        #expect(response.status == 200)
        #expect(response.text.contains(#""killed":true,"skins":[]}"#), "\(response.text)")
        await harness.stop()
    }

    @Test func theKillSwitchOnAndOffAgainGivesBackTheSameAnswersAndDocument() async throws {
        let harness = try await Self.harness()
        defer { harness.removeFiles() }
        let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=device-1&scale=3"
        let before = (try await harness.get(Self.url).body, try await harness.get(poll).body)
        harness.service.client.publish(CatalogAgreementTests.catalog.with(killSwitch: KillSwitch(global: true)))
        #expect(try await harness.get(poll).text == #"{"skinSign":""}"#)
        #expect(try await harness.get(Self.url).text.contains(#""killed":true,"skins":[]}"#))
        // The same releases with another kill switch: what is rendered from them alone is kept, and still right.
        harness.service.client.publish(CatalogAgreementTests.catalog.with(killSwitch: KillSwitch()))
        let after = (try await harness.get(Self.url).body, try await harness.get(poll).body)
        #expect(after.0 == before.0 && after.1 == before.1)
        #expect(before.1 != Array(#"{"skinSign":""}"#.utf8), "the poll gets a skin")
        await harness.stop()
    }

    @Test func anEntryCapCutsTheListSaysIncompleteAndLogsIt() async throws {
        let capture = LogCapture()
        let harness = try await Self.harness(logger: capture.logger) { $0.client.catalogEntryLimit = 3 }
        defer { harness.removeFiles() }
        let document = try CatalogDocument.parse(try await harness.get(Self.url).body)
        #expect(!document.complete && document.skins.map(\.skinId) == ["zero", "legacy", "no-any"])
        #expect(
            capture.records.contains { $0.message.contains("entry cap") && $0.level == .warning }, "\(capture.lines)")
        await harness.stop()
    }

    @Test func anAdminReleaseShowsInTheCatalogAtOnce() async throws {
        let harness = try await LiveryHarness(at: Self.t0.addingTimeInterval(60))
        defer { harness.removeFiles() }
        #expect(try await harness.get(Self.url).status == 404, "no skin released for demo yet")
        try await harness.uploadTiny()
        try await harness.release("tiny")
        let first = try CatalogDocument.parse(try await harness.get(Self.url).body)
        #expect(
            first.skins.map(\.skinId) == ["tiny"]
                && first.skins[0].endsAt == CatalogInstant.parse("2027-01-15T10:00:00Z"))
        let moved = try await harness.send(
            "PUT", "/admin/v1/skins/tiny/release",
            json: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T11:00:00Z"}"#)
        #expect(moved.status == 200, "\(moved.text)")
        let second = try CatalogDocument.parse(try await harness.get(Self.url).body)
        #expect(second.skins[0].endsAt == CatalogInstant.parse("2027-01-15T11:00:00Z"), "no waiting for a step")
        await harness.stop()
    }
}
