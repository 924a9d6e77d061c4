import Foundation
import HTTPTestSupport
import LiveryCrypto
import TestSupport
import Testing

@testable import LiveryServer

/// `GET /api/v1/themes`: the themes a client may pick, in the order ops chose, with their previews served at
/// immutable, content-addressed URLs.
@Suite struct ThemeListTests {
    static let list = "/api/v1/themes?app=demo&platform=ios&appVersion=7.0.0"

    /// Uploads the tiny skin `id`, with `preview` (a `skin.json` value) and `files` beside it, expecting 201.
    static func upload(
        _ harness: LiveryHarness, _ id: String, preview: String? = nil, files: [String: [UInt8]] = [:]
    ) async throws {
        var skin = SkinArchives.tiny(id: id, marker: id)
        if let preview {
            skin["skin.json"] = Array(
                #"{"id":"\#(id)","title":"Tiny \#(id)","app":"demo","description":"About \#(id)","preview":\#(preview)}"#
                    .utf8)
        }
        skin.merge(files) { _, new in new }
        let response = try await harness.upload(try SkinArchives.zip(skin))
        #expect(response.status == 201, "\(response.text)")
    }

    /// Releases `id` as a theme with `fields` (a JSON object's members), expecting 200.
    static func releaseTheme(_ harness: LiveryHarness, _ id: String, _ fields: String) async throws {
        let released = try await harness.send(
            "PUT", "/admin/v1/skins/\(id)/release", json: #"{"kind": "theme", \#(fields)}"#)
        #expect(released.status == 200, "\(released.text)")
    }

    /// The theme entries of a 200 list answer.
    static func themes(_ harness: LiveryHarness, _ target: String = list) async throws -> [[String: Any]] {
        let response = try await harness.get(target)
        #expect(response.status == 200, "\(response.text)")
        return try #require(try LiveryHarness.object(response)["themes"] as? [[String: Any]])
    }

    @Test func themesAreListedByOrderThenIdAndTheListNeverHoldsAHolidaySkin() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        for id in ["aurora", "bamboo", "cobalt", "xmas", "ember"] { try await Self.upload(harness, id) }
        try await Self.releaseTheme(harness, "aurora", #""order": 2"#)
        try await Self.releaseTheme(harness, "cobalt", #""order": 1"#)
        try await Self.releaseTheme(harness, "bamboo", #""order": 1"#)
        try await Self.releaseTheme(
            harness, "ember", #""startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z""#)
        try await harness.release("xmas", #""priority": 1"#)

        let listed = try await Self.themes(harness)
        #expect(
            listed.map { $0["id"] as? String } == ["bamboo", "cobalt", "aurora", "ember"],
            "order ascending, ties by id, unordered last")
        #expect(try await harness.poll()["skinId"] as? String == "xmas", "the poll never answers with a theme")

        // Each entry names the theme and its package for the variant asked for.
        let entry = try #require(listed.first)
        #expect(entry["title"] as? String == "Tiny bamboo" && entry["description"] as? String == "")
        #expect(entry["previewUrl"] is NSNull, "no preview named")
        let sign = try #require(entry["sign"] as? String)
        #expect(entry["packageUrl"] as? String == "/api/v1/packages/\(sign).zip")
        let download = try await harness.get("/api/v1/packages/\(sign).zip")
        #expect(download.status == 200)
        #expect(
            entry["sha256"] as? String == SHA256.hexHash(download.body) && entry["size"] as? Int == download.body.count)
        let both = try await Self.themes(harness, Self.list + "&appearance=any")
        #expect(both.first?["sign"] as? String != sign, "another variant, another package")
        await harness.stop()
    }

    @Test func themesFollowTheTargetingAndRolloutOfHolidaySkins() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        for id in ["android-only", "everyone", "nobody", "new-apps", "later"] { try await Self.upload(harness, id) }
        try await Self.releaseTheme(harness, "android-only", #""platforms": ["android"]"#)
        try await Self.releaseTheme(harness, "everyone", #""order": 1"#)
        try await Self.releaseTheme(harness, "nobody", #""rollout": 0"#)
        try await Self.releaseTheme(harness, "new-apps", #""minAppVersion": "8.0""#)
        try await Self.releaseTheme(
            harness, "later", #""startsAt": "2027-01-16T00:00:00Z", "endsAt": "2027-01-17T00:00:00Z""#)
        #expect(try await Self.themes(harness).map { $0["id"] as? String } == ["everyone"])
        let android = try await Self.themes(
            harness, "/api/v1/themes?app=demo&platform=android&appVersion=8.1&deviceId=d1")
        #expect(android.map { $0["id"] as? String } == ["everyone", "android-only", "new-apps"])
        let bad = try await harness.get("/api/v1/themes?app=demo&platform=symbian&appVersion=7.0.0")
        #expect(bad.status == 400)
        #expect(try LiveryHarness.code(bad) == "invalid_parameter platform")
        await harness.stop()
    }

    @Test func theListIsCachedUntilTheNextThemeWindowBoundaryWithETagAnd304() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await Self.upload(harness, "brief")
        // The harness clock is 2027-01-15T08:01:00Z: the window ends in 30 s.
        try await Self.releaseTheme(
            harness, "brief", #""startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T08:01:30Z""#)
        let first = try await harness.get(Self.list)
        #expect(first.status == 200 && first.header("Content-Type") == "application/json")
        #expect(first.header("Cache-Control") == "public, max-age=30")
        let etag = try #require(first.header("ETag"))
        let again = try await harness.get(Self.list, headers: "If-None-Match: \(etag)\r\n")
        #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == etag)
        #expect(again.header("Content-Type") == nil)

        harness.clock.set(Fixtures.t0.addingTimeInterval(95))
        let after = try await harness.get(Self.list)
        #expect(try LiveryHarness.object(after)["themes"] as? [Any] != nil)
        #expect(try await Self.themes(harness).isEmpty, "the window has ended")
        #expect(after.header("ETag") != etag && after.header("Cache-Control") == "public, max-age=60")
        await harness.stop()
    }

    @Test func theKillSwitchEmptiesTheList() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await Self.upload(harness, "aurora")
        try await Self.releaseTheme(harness, "aurora", #""order": 1"#)
        #expect(try await Self.themes(harness).count == 1)
        let on = try await harness.send("PUT", "/admin/v1/killswitch", json: #"{"enabled": true, "reason": "drill"}"#)
        #expect(on.status == 200, "\(on.text)")
        #expect(try await Self.themes(harness).isEmpty)
        await harness.stop()
    }

    @Test func previewsAreServedImmutableByContentAndPerAppearance() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let day = TestImages.png(width: 750, height: 1334)
        let night = TestImages.jpeg(width: 750, height: 1334)
        try await Self.upload(
            harness, "ink", preview: #"{"light": "previews/day.png", "dark": "previews/night.jpg"}"#,
            files: ["previews/day.png": day, "previews/night.jpg": night])
        try await Self.releaseTheme(harness, "ink", #""order": 1"#)

        let light = try #require(try await Self.themes(harness).first)
        #expect(light["description"] as? String == "About ink")
        #expect(light["previewUrl"] as? String == "/api/v1/previews/\(SHA256.hexHash(day)).png")
        let dark = try #require(try await Self.themes(harness, Self.list + "&appearance=dark").first)
        #expect(dark["previewUrl"] as? String == "/api/v1/previews/\(SHA256.hexHash(night)).jpg")
        let both = try #require(try await Self.themes(harness, Self.list + "&appearance=any").first)
        #expect(both["previewUrl"] as? String == light["previewUrl"] as? String, "both appearances: the light preview")

        for (url, bytes, type) in [(light["previewUrl"], day, "image/png"), (dark["previewUrl"], night, "image/jpeg")] {
            let target = try #require(url as? String)
            let image = try await harness.get(target)
            #expect(image.status == 200 && image.body == bytes)
            #expect(image.header("Content-Type") == type)
            #expect(image.header("Cache-Control") == "public, max-age=31536000, immutable")
            let etag = try #require(image.header("ETag"))
            let cached = try await harness.get(target, headers: "If-None-Match: \(etag)\r\n")
            #expect(cached.status == 304 && cached.body.isEmpty)
            let head = try await harness.get(target, head: true)
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == "\(bytes.count)")
        }
        for unknown in ["/api/v1/previews/\(String(repeating: "0", count: 64)).png", "/api/v1/previews/skin.json"] {
            let missing = try await harness.get(unknown)
            #expect(missing.status == 404)
            #expect(try LiveryHarness.code(missing) == "preview_not_found -")
            #expect(missing.header("Content-Type") == "application/json")
        }
        await harness.stop()
    }

    /// `appearance=any` on the poll: the package holding both appearances, with its own sign.
    @Test func anyAppearanceLinksToThePackageHoldingBoth() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release("tiny")
        let light = try await harness.poll()
        let both = try await harness.poll(LiveryHarness.poll + "&appearance=Any&scale=2")
        let sign = try #require(both["skinSign"] as? String)
        #expect(both["skinId"] as? String == "tiny" && sign != light["skinSign"] as? String && sign.count == 32)
        let download = try await harness.get("/api/v1/packages/\(sign).zip")
        #expect(download.status == 200 && download.body.count == both["size"] as? Int)
        // Entry names are stored as written in the zip's headers (Python's zipfile reads it in the end-to-end test).
        let bytes = String(decoding: download.body, as: UTF8.self)
        #expect(bytes.contains("config.json") && bytes.contains("config-dark.json"))
        await harness.stop()
    }

    /// The admin preview lists the app's themes with why each is in or out, and the exact list the client gets.
    @Test func theAdminPreviewListsThemesWithReasons() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        for id in ["aurora", "android-only"] { try await Self.upload(harness, id) }
        try await Self.releaseTheme(harness, "aurora", #""order": 1"#)
        try await Self.releaseTheme(harness, "android-only", #""order": 2, "platforms": ["android"]"#)
        let response = try await harness.request("GET", "/admin/v1/preview?app=demo&platform=ios&appVersion=7.0.0")
        #expect(response.status == 200, "\(response.text)")
        let body = try LiveryHarness.object(response)
        let themes = try #require(body["themes"] as? [[String: Any]])
        #expect(themes.map { $0["themeId"] as? String } == ["aurora", "android-only"])
        #expect(themes.map { $0["outcome"] as? String } == ["listed", "excluded"])
        #expect(themes[1]["reason"] as? String == "platform not targeted" && themes[0]["reason"] is NSNull)
        #expect(themes[0]["order"] as? Int == 1 && themes[0]["version"] as? Int == 1)
        let list = try #require((body["themeList"] as? [String: Any])?["themes"] as? [[String: Any]])
        #expect(list.map { $0["id"] as? String } == ["aurora"])
        #expect(try await Self.themes(harness).first?["sign"] as? String == list.first?["sign"] as? String)
        await harness.stop()
    }
}
