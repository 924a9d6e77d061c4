import Foundation
import HTTPTestSupport
import LiveryCrypto
import Testing

@testable import LiveryServer

/// Listings, versions, stored files, preview and audit.
@Suite struct AdminReadTests {
    @Test func listsSkinsWithTheirReleaseAndETag() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny(id: "alpha")
        try await harness.uploadTiny(id: "beta", marker: "b")
        try await harness.uploadTiny(id: "beta", marker: "b2")
        try await harness.release("beta")
        let list = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.viewerToken))
        let skins = try #require(list["skins"] as? [[String: Any]])
        #expect(skins.map { $0["id"] as? String } == ["alpha", "beta"])
        #expect(skins[0]["release"] is NSNull)
        #expect(skins[1]["latestVersion"] as? Int == 2 && skins[1]["versionCount"] as? Int == 2)
        #expect((skins[1]["release"] as? [String: Any])?["releasedBy"] as? String == "ops")
        #expect(skins[1]["title"] as? String == "Tiny b2")

        let detail = try await harness.request("GET", "/admin/v1/skins/beta", token: LiveryHarness.viewerToken)
        #expect(detail.header("ETag") == "\"\(harness.store.snapshot.revision(ofSkin: "beta"))\"")
        let versions = try #require(try LiveryHarness.object(detail)["versions"] as? [[String: Any]])
        #expect(versions.map { $0["version"] as? Int } == [1, 2])
        #expect(versions[0]["createdBy"] as? String == "ops" && versions[0]["source"] as? String == "upload")

        let listed = try LiveryHarness.object(try await harness.request("GET", "/admin/v1/skins/beta/versions"))
        #expect((listed["versions"] as? [[String: Any]])?.count == 2)
        for target in ["/admin/v1/skins/gamma", "/admin/v1/skins/gamma/versions", "/admin/v1/skins/gamma/versions/1"] {
            let missing = try await harness.request("GET", target)
            #expect(missing.status == 404, "\(target)")
            #expect(try LiveryHarness.code(missing) == "skin_not_found id")
        }
        let noVersion = try await harness.request("GET", "/admin/v1/skins/beta/versions/3")
        #expect(try LiveryHarness.code(noVersion) == "version_not_found n")
        let one = try LiveryHarness.object(try await harness.request("GET", "/admin/v1/skins/beta/versions/2"))
        let files = try #require(one["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["config.json", "skin.json"])
        #expect(files[0]["sha256"] as? String == SHA256.hexHash(SkinArchives.tiny(marker: "b2")["config.json"] ?? []))
        await harness.stop()
    }

    @Test func servesStoredFilesByteForByte() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let files = try SkinArchives.sample("spring-festival-2027")
        #expect(try await harness.upload(try SkinArchives.zip(files)).status == 201)
        let base = "/admin/v1/skins/spring-festival-2027/versions/1"

        let config = try await harness.request("GET", base + "/config.json", token: LiveryHarness.viewerToken)
        #expect(config.status == 200)
        #expect(config.header("Content-Type") == "application/json")
        #expect(config.body == files["config.json"])

        let nested = try await harness.request("GET", base + "/files/images/banner@3x.png")
        #expect(nested.status == 200)
        #expect(nested.header("Content-Type") == "image/png")
        #expect(nested.header("X-Content-Type-Options") == "nosniff")
        #expect(nested.body == files["images/banner@3x.png"])
        let encoded = try await harness.request("GET", base + "/files/images%2Fbanner%403x.png")
        #expect(encoded.body == files["images/banner@3x.png"])
        let gif = try await harness.request("GET", base + "/files/anim/lantern.gif")
        #expect(gif.header("Content-Type") == "image/gif" && gif.body == files["anim/lantern.gif"])
        let head = try await harness.request("HEAD", base + "/files/anim/lantern.gif")
        #expect(
            head.status == 200 && head.body.isEmpty
                && head.header("Content-Length") == "\(files["anim/lantern.gif"]?.count ?? -1)")

        let missing = try await harness.request("GET", base + "/files/images/none.png")
        #expect(missing.status == 404)
        #expect(try LiveryHarness.code(missing) == "file_not_found path")
        let badVersion = try await harness.request("GET", "/admin/v1/skins/spring-festival-2027/versions/0/config.json")
        #expect(try LiveryHarness.code(badVersion) == "invalid_field n")
        let noVersion = try await harness.request("GET", "/admin/v1/skins/spring-festival-2027/versions/7/config.json")
        #expect(noVersion.status == 404)
        #expect(try LiveryHarness.code(noVersion) == "version_not_found n")
        await harness.stop()
    }

    @Test func previewIsExactlyThePollAnswerWithTheReasons() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny(id: "low", marker: "low")
        try await harness.uploadTiny(id: "high", marker: "high")
        try await harness.uploadTiny(id: "android-only", marker: "a")
        try await harness.uploadTiny(id: "later", marker: "later")
        try await harness.release("low", #""priority": 1"#)
        try await harness.release("high", #""priority": 9"#)
        try await harness.release("android-only", #""priority": 20, "platforms": ["android"]"#)
        let later = #"{"startsAt": "2027-01-16T00:00:00Z", "endsAt": "2027-01-17T00:00:00Z", "priority": 50}"#
        #expect(try await harness.send("PUT", "/admin/v1/skins/later/release", json: later).status == 200)

        let query = "app=demo&platform=ios&appVersion=7.0.0&deviceId=d1"
        let poll = try await harness.request("GET", "/api/v1/skin?" + query, token: nil)
        let preview = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/preview?" + query, token: LiveryHarness.viewerToken))
        let answer = try #require(preview["answer"] as? [String: Any])
        let pollObject = try LiveryHarness.object(poll)
        #expect(
            NSDictionary(dictionary: answer).isEqual(to: pollObject), "preview answer \(answer) != poll \(pollObject)")
        #expect(preview["etag"] as? String == poll.header("ETag"))
        #expect(answer["skinId"] as? String == "high")

        let considered = try #require(preview["considered"] as? [[String: Any]])
        let outcomes = Dictionary(
            uniqueKeysWithValues: considered.compactMap { entry -> (String, String)? in
                guard let id = entry["skinId"] as? String else { return nil }
                return (id, "\(entry["outcome"] as? String ?? "") \(entry["reason"] as? String ?? "-")")
            })
        #expect(
            outcomes == [
                "later": "excluded window not started", "android-only": "excluded platform not targeted",
                "high": "selected -", "low": "outranked another skin takes precedence"
            ])
        #expect(
            considered.map { $0["skinId"] as? String } == ["later", "android-only", "high", "low"], "precedence order")
        #expect(considered.first { $0["skinId"] as? String == "later" }?["next"] as? Bool == true)

        // At another instant: the later skin wins; after every window nothing applies.
        let atLater = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/preview?\(query)&at=2027-01-16T08:00:00%2B08:00"))
        #expect((atLater["answer"] as? [String: Any])?["skinId"] as? String == "later")
        let after = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/preview?\(query)&at=2030-01-01T00:00:00Z"))
        #expect((after["answer"] as? [String: Any])?["skinSign"] as? String == "")
        let reasonsAfter = (after["considered"] as? [[String: Any]])?.map { $0["reason"] as? String ?? "-" } ?? []
        // The window is tried before the platform: an ended skin is reported as ended on every platform.
        #expect(reasonsAfter == ["window ended", "window ended", "window ended", "window ended"])

        _ = try await harness.send("PUT", "/admin/v1/killswitch", json: #"{"app": "demo", "enabled": true}"#)
        let killed = try LiveryHarness.object(try await harness.request("GET", "/admin/v1/preview?" + query))
        #expect(killed["killSwitch"] as? Bool == true)
        #expect(
            (killed["considered"] as? [[String: Any]])?.allSatisfy { $0["reason"] as? String == "kill switch is on" }
                == true)

        let badAt = try await harness.request("GET", "/admin/v1/preview?\(query)&at=tomorrow")
        #expect(try LiveryHarness.code(badAt) == "invalid_field at")
        let badPlatform = try await harness.request("GET", "/admin/v1/preview?app=demo&platform=symbian&appVersion=7")
        #expect(badPlatform.status == 400)
        #expect(try LiveryHarness.code(badPlatform) == "invalid_parameter platform")
        await harness.stop()
    }

    /// `since` and `at` are read by the one strict instant parser: anything after the offset, a space for the `T`,
    /// a missing offset or an impossible date is 400 `invalid_field` naming the parameter, never a guess.
    @Test(arguments: [
        "2027-01-15T09:00:00Zjunk", "2027-01-15T09:00:00%2B08:00junk", "2027-01-15T09:00:00.5Z%20",
        "2027-01-15%2009:00:00Z", "2027-01-15T09:00:00", "2027-02-30T09:00:00Z", "2027-01-15T09:00Z"
    ])
    func instantsWithAnythingBeyondTheStrictFormAreRefused(instant: String) async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let since = try await harness.request("GET", "/admin/v1/audit?since=\(instant)")
        #expect(since.status == 400, "\(since.text)")
        #expect(try LiveryHarness.code(since) == "invalid_field since")
        let at = try await harness.request(
            "GET", "/admin/v1/preview?app=demo&platform=ios&appVersion=7.2.0&at=\(instant)")
        #expect(at.status == 400, "\(at.text)")
        #expect(try LiveryHarness.code(at) == "invalid_field at")
        // The strict form itself, with a fraction and an offset, is read.
        let good = try await harness.request("GET", "/admin/v1/audit?since=2027-01-15T09:00:00.5%2B08:00")
        #expect(good.status == 200, "\(good.text)")
        await harness.stop()
    }

    @Test func auditListsEveryChangeAndPages() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        harness.clock.set(Fixtures.t0.addingTimeInterval(3600))
        try await harness.release("tiny", #""rollout": 30"#)
        _ = try await harness.send("PATCH", "/admin/v1/skins/tiny/release", json: #"{"rollout": 60}"#)
        _ = try await harness.send("PUT", "/admin/v1/killswitch", json: #"{"enabled": true, "reason": "drill"}"#)

        let all = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/audit", token: LiveryHarness.viewerToken))
        let entries = try #require(all["entries"] as? [[String: Any]])
        #expect(
            entries.map { $0["action"] as? String } == ["version.add", "release.set", "release.set", "killswitch.set"])
        #expect(entries.map { $0["sequence"] as? Int } == [1, 2, 3, 4])
        #expect(entries.allSatisfy { $0["actor"] as? String == "ops" })
        let rollout = try #require(entries[2]["after"] as? [String: Any])
        #expect((rollout["document"] as? [String: Any])?["rollout"] as? Int == 60)
        #expect(((entries[2]["before"] as? [String: Any])?["document"] as? [String: Any])?["rollout"] as? Int == 30)
        #expect(entries[0]["time"] as? String == "2027-01-15T08:01:00.000Z")

        let page = try LiveryHarness.object(try await harness.request("GET", "/admin/v1/audit?since=1&limit=2"))
        #expect((page["entries"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [2, 3])
        #expect(page["nextSince"] as? Int == 3)
        let byTime = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/audit?since=2027-01-15T09:00:00Z"))
        #expect((byTime["entries"] as? [[String: Any]])?.count == 3)

        for (query, field) in [("since=yesterday", "since"), ("limit=0", "limit"), ("limit=100000", "limit")] {
            let response = try await harness.request("GET", "/admin/v1/audit?" + query)
            #expect(response.status == 400)
            #expect(try LiveryHarness.code(response) == "invalid_field \(field)")
        }
        await harness.stop()
    }
}
