import Foundation
import HTTPTestSupport
import LiveryHTTP
import TestSupport
import Testing

@testable import LiveryServer

/// Every poll answer right: answers built from the release that was selected, no answer before the catalog is
/// loaded, entity tags that follow every byte of the body, errors no cache keeps.
@Suite(.serialized) struct PollAnswerTests {
    /// Releases `id` over `startsAt ..< endsAt`, expecting 200.
    static func release(
        _ harness: LiveryHarness, _ id: String, from startsAt: String, until endsAt: String
    ) async throws {
        let response = try await harness.send(
            "PUT", "/admin/v1/skins/\(id)/release", json: #"{"startsAt": "\#(startsAt)", "endsAt": "\#(endsAt)"}"#)
        #expect(response.status == 200, "\(response.text)")
    }

    @Test func identicalContentForTwoAppsAnswersEachAppWithItsOwnSkin() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let mine = try await harness.uploadTiny(id: "look-demo", marker: "same", app: "demo")
        let theirs = try await harness.uploadTiny(id: "look-other", marker: "same", app: "other")
        #expect(
            (mine["signs"] as? [String: String]) == (theirs["signs"] as? [String: String]), "identical bytes, one sign")
        try await Self.release(harness, "look-demo", from: "2027-01-15T07:00:00Z", until: "2027-01-15T10:00:00Z")
        try await Self.release(harness, "look-other", from: "2027-01-15T07:30:00Z", until: "2027-01-15T09:00:00Z")

        let demo = try await harness.poll()
        #expect(demo["skinId"] as? String == "look-demo")
        #expect(
            demo["startsAt"] as? String == "2027-01-15T07:00:00Z" && demo["endsAt"] as? String == "2027-01-15T10:00:00Z"
        )
        let other = try await harness.poll("/api/v1/skin?app=other&platform=ios&appVersion=7.0.0")
        #expect(other["skinId"] as? String == "look-other")
        #expect(
            other["startsAt"] as? String == "2027-01-15T07:30:00Z"
                && other["endsAt"] as? String == "2027-01-15T09:00:00Z")
        #expect(demo["skinSign"] as? String == other["skinSign"] as? String)

        // The preview tells the same story as the body.
        let preview = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/preview?app=other&platform=ios&appVersion=7.0.0"))
        #expect((preview["answer"] as? [String: Any])?["skinId"] as? String == "look-other")
        await harness.stop()
    }

    @Test func identicalContentUnderTwoIdsInConsecutiveWindowsNamesTheSecondInItsWindow() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny(id: "first-look", marker: "same")
        try await harness.uploadTiny(id: "second-look", marker: "same")
        try await Self.release(harness, "first-look", from: "2027-01-15T07:00:00Z", until: "2027-01-15T08:30:00Z")
        try await Self.release(harness, "second-look", from: "2027-01-15T08:30:00Z", until: "2027-01-15T10:00:00Z")

        let inFirst = try await harness.poll()
        #expect(inFirst["skinId"] as? String == "first-look")
        #expect(inFirst["endsAt"] as? String == "2027-01-15T08:30:00Z")
        let next = try #require(inFirst["next"] as? [String: Any])
        #expect(next["skinId"] as? String == "second-look" && next["startsAt"] as? String == "2027-01-15T08:30:00Z")

        harness.clock.set(Fixtures.t0.addingTimeInterval(3600))  // 09:00, inside the second window
        let inSecond = try await harness.poll()
        #expect(inSecond["skinId"] as? String == "second-look")
        #expect(inSecond["endsAt"] as? String == "2027-01-15T10:00:00Z")
        #expect(inSecond["skinSign"] as? String == inFirst["skinSign"] as? String)
        await harness.stop()
    }

    @Test func answersWithSharedPackagesAreTheSameAfterARestart() async throws {
        let first = try await LiveryHarness()
        defer { first.removeFiles() }
        for (id, app) in [("look-a", "demo"), ("look-b", "other"), ("look-c", "demo")] {
            try await first.uploadTiny(id: id, marker: "same", app: app)
        }
        try await Self.release(first, "look-a", from: "2027-01-15T07:00:00Z", until: "2027-01-15T08:30:00Z")
        try await Self.release(first, "look-b", from: "2027-01-15T07:00:00Z", until: "2027-01-15T10:00:00Z")
        try await Self.release(first, "look-c", from: "2027-01-15T08:30:00Z", until: "2027-01-15T10:00:00Z")
        let queries = [LiveryHarness.poll, "/api/v1/skin?app=other&platform=android&appVersion=7.0.0"]
        var before: [[UInt8]] = []
        for query in queries { before.append(try await first.request("GET", query, token: nil).body) }
        await first.stop()

        for _ in 0..<3 {
            let again = try await LiveryHarness(root: first.root)
            for (query, body) in zip(queries, before) {
                #expect(try await again.request("GET", query, token: nil).body == body)
            }
            #expect(try await again.poll()["skinId"] as? String == "look-a")
            await again.stop()
        }
    }

    @Test func pollsAndDownloadsBeforeTheCatalogIsLoadedGet503NotReady() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("livery-notready-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try LiveryHarness.makeSkins(in: root)
        var configuration = LiveryService.Configuration()
        configuration.skinsDirectory = root + "/skins"
        configuration.dataDirectory = root + "/data"
        let clock = TestClock(Fixtures.t0.addingTimeInterval(60))
        let service = try LiveryService(configuration: configuration, logger: LiveryHarness.quiet, clock: { clock.now })
        let endpoint = try TestEndpoint(.memory) { service.register(on: $0) }
        func get(_ target: String) async throws -> TestResponse { try await endpoint.request("GET", target) }

        for target in [
            LiveryHarness.poll, "/api/v1/packages/\(String(repeating: "a", count: 32)).zip",
            "/api/v1/themes?app=demo&platform=ios&appVersion=7.0.0",
            "/api/v1/previews/\(String(repeating: "a", count: 64)).png",
            "/api/v1/catalog?app=demo&platform=ios"
        ] {
            let early = try await get(target)
            #expect(early.status == 503, "\(target): never \"no skin\" for want of a catalog")
            #expect(early.header("Retry-After") == "1")
            #expect(early.header("Cache-Control") == "no-store")
            #expect(early.text.contains(#""code":"not_ready""#))
        }

        try await service.loadCatalog()
        let loaded = try await get(LiveryHarness.poll)
        #expect(loaded.status == 200)
        #expect(loaded.text.contains(#""skinId":"christmas-2026""#))
        service.close()
    }

    @Test func movingOnlyTheEndTimeChangesTheETagSoCachesSeeTheNewEnd() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release("tiny")
        let first = try await harness.request("GET", LiveryHarness.poll, token: nil)
        let etag = try #require(first.header("ETag"))

        let moved = try await harness.send(
            "PATCH", "/admin/v1/skins/tiny/release", json: #"{"endsAt": "2027-01-15T11:00:00Z"}"#)
        #expect(moved.status == 200, "\(moved.text)")
        let revalidated = try await harness.request(
            "GET", LiveryHarness.poll, token: nil, headers: [("If-None-Match", etag)])
        #expect(revalidated.status == 200, "a cache revalidating with the old tag must get the new end")
        #expect(try LiveryHarness.object(revalidated)["endsAt"] as? String == "2027-01-15T11:00:00Z")
        #expect(revalidated.header("ETag") != etag)

        let unchanged = try await harness.request(
            "GET", LiveryHarness.poll, token: nil,
            headers: [("If-None-Match", try #require(revalidated.header("ETag")))])
        #expect(unchanged.status == 304)
        #expect(unchanged.header("Content-Type") == nil, "a 304 describes no content")
        await harness.stop()
    }

    @Test func valuesRealAppsSendGetTheSkin() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release("tiny")
        for query in [
            "platform=iOS&appearance=Dark", "platform=Android&appearance=Light", "platform=IOS&appearance=unspecified"
        ] {
            let answer = try await harness.poll("/api/v1/skin?app=demo&appVersion=7.0.0&\(query)")
            #expect(answer["skinId"] as? String == "tiny", "\(query)")
        }
        let refused = try await harness.request(
            "GET", "/api/v1/skin?app=demo&appVersion=7.0.0&platform=WinPhone", token: nil)
        #expect(refused.status == 400)
        let details = try #require(try LiveryHarness.error(refused)["details"] as? [String: Any])
        #expect(details["field"] as? String == "platform" && details["value"] as? String == "WinPhone")
        #expect(refused.header("Cache-Control") == "no-store")
        await harness.stop()
    }

    @Test func theHTTPLayersRefusalsOnAdminPathsNameTheInput() async throws {
        let harness = try await LiveryHarness(transport: .socket) { $0.admin.uploadLimit = 2048 }
        defer { harness.removeFiles() }
        let unknown = try await harness.request("GET", "/admin/v1/nothing-here")
        #expect(try unknown.status == 404 && LiveryHarness.code(unknown) == "not_found path")
        #expect(unknown.header("Cache-Control") == "no-store")
        let wrongMethod = try await harness.request("PATCH", "/admin/v1/skins")
        #expect(try wrongMethod.status == 405 && LiveryHarness.code(wrongMethod) == "method_not_allowed method")
        #expect(wrongMethod.header("Cache-Control") == "no-store")
        let hugeHead = try await harness.request(
            "GET", "/admin/v1/skins", headers: [("X-Padding", String(repeating: "p", count: 20_000))])
        #expect(try hugeHead.status == 431 && LiveryHarness.code(hugeHead) == "header_section_too_large headers")
        #expect(hugeHead.header("Cache-Control") == "no-store")
        await harness.stop()
    }
}
