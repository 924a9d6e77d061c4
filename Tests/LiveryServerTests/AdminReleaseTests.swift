import Foundation
import HTTPTestSupport
import LiveryJSON
import SkinServing
import Testing

@testable import LiveryServer

/// Releases, rollout changes, rollback, stopping, deleting and kill switches: each served by the client API
/// before its 2xx arrives, each refusal naming its field and changing nothing.
@Suite struct AdminReleaseTests {
    static let releasePath = "/admin/v1/skins/tiny/release"

    /// The `@3x-light` sign of an upload answer: what the standard poll gets for that version.
    static func standardSign(_ upload: [String: Any]) -> String? {
        (upload["signs"] as? [String: String])?["@3x-light"]
    }

    @Test func aReleaseIsServedBeforeItsAnswerArrives() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let first = try await harness.uploadTiny(marker: "1")
        #expect(try await harness.poll()["skinSign"] as? String == "", "uploading serves nothing")
        let released = try await harness.release("tiny")
        #expect(released.header("ETag") == "\"2\"")
        let answer = try await harness.poll()
        #expect(answer["skinId"] as? String == "tiny")
        #expect(answer["skinSign"] as? String == Self.standardSign(first))

        let second = try await harness.uploadTiny(marker: "2")
        #expect(
            try await harness.poll()["skinSign"] as? String == Self.standardSign(first),
            "a new version is not served by itself")
        try await harness.release("tiny", #""version": 2"#)
        #expect(try await harness.poll()["skinSign"] as? String == Self.standardSign(second))

        // Without "version" the released version stays: a new window must not ship the latest upload by itself.
        let third = try await harness.uploadTiny(marker: "3")
        let kept = try await harness.release("tiny")
        #expect((try LiveryHarness.object(kept)["release"] as? [String: Any])?["version"] as? Int == 2)
        #expect(try await harness.poll()["skinSign"] as? String == Self.standardSign(second))
        let latest = try await harness.release("tiny", #""version": 3"#)
        #expect((try LiveryHarness.object(latest)["release"] as? [String: Any])?["version"] as? Int == 3)
        #expect(try await harness.poll()["skinSign"] as? String == Self.standardSign(third))
        #expect(harness.store.audit().last?.action == "release.set")
        await harness.stop()
    }

    /// Chameleon skins iOS and macOS apps: a release may target macOS, and only Mac clients then get it.
    @Test func aReleaseForMacOSIsServedToMacClientsOnly() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let upload = try await harness.uploadTiny()
        let released = try await harness.release("tiny", #""platforms": ["macos"]"#)
        #expect(
            (try LiveryHarness.object(released)["release"] as? [String: Any])?["platforms"] as? [String] == ["macos"])
        let mac = try await harness.poll("/api/v1/skin?app=demo&platform=macOS&appVersion=7.0.0")
        #expect(mac["skinSign"] as? String == Self.standardSign(upload))
        #expect(try await harness.poll()["skinSign"] as? String == "", "an iOS client is not targeted")
        await harness.stop()
    }

    /// A theme: released with a kind and an order and no window, stored and shown by the admin reads, changed with
    /// PATCH, refused with 422 naming the field, and never the poll's answer.
    @Test func aThemeIsStoredShownAndNeverThePollsAnswer() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let released = try await harness.send("PUT", Self.releasePath, json: #"{"kind": "theme", "order": 2}"#)
        #expect(released.status == 200, "\(released.text)")
        let release = try #require(try LiveryHarness.object(released)["release"] as? [String: Any])
        #expect(release["kind"] as? String == "theme" && release["order"] as? Int == 2)
        #expect(release["startsAt"] == nil && release["endsAt"] == nil)
        let read = try await harness.request("GET", "/admin/v1/skins/tiny")
        let shown = try #require(try LiveryHarness.object(read)["release"] as? [String: Any])
        #expect(shown["kind"] as? String == "theme" && shown["order"] as? Int == 2)
        #expect(try await harness.poll()["skinSign"] as? String == "", "the poll never answers with a theme")

        let reordered = try await harness.send("PATCH", Self.releasePath, json: #"{"order": 1}"#)
        #expect((try LiveryHarness.object(reordered)["release"] as? [String: Any])?["order"] as? Int == 1)
        let before = harness.mark()
        for (body, code) in [
            (#"{"kind": "seasonal"}"#, "invalid_release kind"), (#"{"order": "first"}"#, "invalid_release order"),
            (#"{"startsAt": "2027-01-15T07:00:00Z"}"#, "invalid_release endsAt")
        ] {
            let refused = try await harness.send("PATCH", Self.releasePath, json: body)
            #expect(refused.status == 422, "\(body): \(refused.text)")
            #expect(try LiveryHarness.code(refused) == code)
        }
        #expect(harness.mark() == before)

        // Made a holiday again (a window is then required), it is the poll's answer.
        let holiday = try await harness.send(
            "PUT", Self.releasePath,
            json: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "order": 1}"#)
        #expect(try LiveryHarness.code(holiday) == "invalid_release order", "order is for themes only")
        try await harness.release("tiny")
        #expect(try await harness.poll()["skinId"] as? String == "tiny")
        await harness.stop()
    }

    /// RFC 7396: a member set to null in a PATCH removes it, so a theme's window and order are taken away as the
    /// console's release form does (issue 22, console 1); null was stored as a value and refused.
    @Test func aMergePatchNullRemovesAThemesWindowAndOrder() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let released = try await harness.send(
            "PUT", Self.releasePath,
            json:
                #"{"kind": "theme", "order": 2, "startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#)
        #expect(released.status == 200, "\(released.text)")
        let patched = try await harness.send(
            "PATCH", Self.releasePath, json: #"{"startsAt": null, "endsAt": null, "order": null}"#)
        #expect(patched.status == 200, "\(patched.text)")
        let release = try #require(try LiveryHarness.object(patched)["release"] as? [String: Any])
        #expect(release["kind"] as? String == "theme")
        #expect(release["startsAt"] == nil && release["endsAt"] == nil && release["order"] == nil, "\(release)")
        await harness.stop()
    }

    @Test func aStaleIfMatchGets412AndChangesNothing() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let read = try await harness.request("GET", "/admin/v1/skins/tiny")
        let etag = try #require(read.header("ETag"))
        let body = #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#
        let fresh = try await harness.send("PUT", Self.releasePath, json: body, headers: [("If-Match", etag)])
        #expect(fresh.status == 200)
        let newTag = try #require(fresh.header("ETag"))
        #expect(newTag != etag)

        let before = harness.mark()
        let stale = try await harness.send(
            "PUT", Self.releasePath, json: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T09:00:00Z"}"#,
            headers: [("If-Match", etag)])
        #expect(stale.status == 412)
        #expect(stale.header("ETag") == newTag)
        #expect(try LiveryHarness.code(stale) == "precondition_failed If-Match")
        let patch = try await harness.send(
            "PATCH", Self.releasePath, json: #"{"rollout": 1}"#, headers: [("If-Match", etag)])
        #expect(patch.status == 412)
        let delete = try await harness.request("DELETE", Self.releasePath, headers: [("If-Match", etag)])
        #expect(delete.status == 412)
        #expect(harness.mark() == before)

        let malformed = try await harness.send("PUT", Self.releasePath, json: body, headers: [("If-Match", "7")])
        #expect(malformed.status == 400)
        #expect(try LiveryHarness.code(malformed) == "invalid_header If-Match")
        let listed = try await harness.send(
            "PUT", Self.releasePath, json: body, headers: [("If-Match", "\"999\", \(newTag)")])
        #expect(listed.status == 200)
        await harness.stop()
    }

    @Test func theRolloutChangesAloneWithPatch() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release(
            "tiny", #""priority": 7, "platforms": ["ios"], "rollout": 30, "minAppVersion": "6.0""#)
        let patched = try await harness.send("PATCH", Self.releasePath, json: #"{"rollout": 60}"#)
        #expect(patched.status == 200, "\(patched.text)")
        let release = try #require(try LiveryHarness.object(patched)["release"] as? [String: Any])
        #expect(release["rollout"] as? Int == 60)
        #expect(release["priority"] as? Int == 7)
        #expect(release["platforms"] as? [String] == ["ios"])
        #expect(release["minAppVersion"] as? String == "6.0")
        #expect(release["startsAt"] as? String == "2027-01-15T07:00:00Z")
        #expect(release["version"] as? Int == 1)

        // null removes a field: the bound goes, the default applies.
        let unbounded = try await harness.send(
            "PATCH", Self.releasePath, json: #"{"minAppVersion": null, "rollout": 100}"#)
        let after = try #require(try LiveryHarness.object(unbounded)["release"] as? [String: Any])
        #expect(after["minAppVersion"] is NSNull)
        #expect(after["rollout"] as? Int == 100)
        #expect(try await harness.poll()["skinId"] as? String == "tiny")

        let bad = try await harness.send("PATCH", Self.releasePath, json: #"{"rollout": 101}"#)
        #expect(bad.status == 422)
        #expect(try LiveryHarness.code(bad) == "invalid_release rollout")

        try await harness.uploadTiny(id: "other")
        let unreleased = try await harness.send("PATCH", "/admin/v1/skins/other/release", json: #"{"rollout": 5}"#)
        #expect(unreleased.status == 409)
        #expect(try LiveryHarness.code(unreleased) == "not_released id")
        await harness.stop()
    }

    /// RFC 7396's media type is what a client sends for a merge patch; it is read as the `application/json` one is.
    @Test func patchAcceptsTheJSONMergePatchMediaType() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release("tiny", #""priority": 7, "rollout": 30"#)
        let patch = Array(#"{"rollout": 60, "priority": null}"#.utf8)
        let patched = try await harness.request(
            "PATCH", Self.releasePath, body: patch, contentType: "application/merge-patch+json; charset=utf-8")
        #expect(patched.status == 200, "\(patched.text)")
        let release = try #require(try LiveryHarness.object(patched)["release"] as? [String: Any])
        #expect(release["rollout"] as? Int == 60)
        #expect(release["startsAt"] as? String == "2027-01-15T07:00:00Z")
        #expect(release["priority"] as? Int != 7)

        // Only a PATCH is a merge patch; a PUT replaces the release and keeps to application/json.
        let put = try await harness.request(
            "PUT", Self.releasePath,
            body: Array(#"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#.utf8),
            contentType: "application/merge-patch+json")
        #expect(put.status == 415)
        let other = try await harness.request("PATCH", Self.releasePath, body: patch, contentType: "text/plain")
        #expect(other.status == 415)
        #expect(try LiveryHarness.code(other) == "unsupported_media_type Content-Type")
        await harness.stop()
    }

    /// A release written once for every year (issue 27): stored as its rule, shown with its next occurrences,
    /// served and listed as the occurrence in force in concrete instants; a window and a rule replace each other
    /// in a PATCH; a bad rule is refused with 422 naming the field and changes nothing.
    @Test func aRecurringReleaseIsServedAsItsOccurrenceInForce() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let rule =
            #""recurs": {"calendar": "gregorian", "month": 1, "day": 15, "startOffsetDays": -1, "endOffsetDays": 1}"#
        let released = try await harness.send(
            "PUT", Self.releasePath,
            json: "{\(rule), \"timeZone\": \"Asia/Shanghai\", \"occurrences\": {\"2028\": \"skip\"}}")
        #expect(released.status == 200, "\(released.text)")
        let release = try #require(try LiveryHarness.object(released)["release"] as? [String: Any])
        #expect(release["startsAt"] == nil && (release["recurs"] as? [String: Any])?["day"] as? Int == 15)
        #expect((release["occurrences"] as? [String: String])?["2028"] == "skip")

        let read = try #require(
            try LiveryHarness.object(try await harness.request("GET", "/admin/v1/skins/tiny"))["release"]
                as? [String: Any])
        let next = try #require(read["nextOccurrences"] as? [[String: Any]])
        #expect(next.count == 5)
        #expect(next.map { $0["year"] as? Int } == [2027, 2028, 2029, 2030, 2031])
        #expect(next.map { $0["source"] as? String } == ["rule", "skip", "rule", "rule", "rule"])
        #expect(next.first?["startsAt"] as? String == "2027-01-13T16:00:00.000Z")

        let answer = try await harness.poll()
        #expect(answer["skinId"] as? String == "tiny")
        #expect(answer["startsAt"] as? String == "2027-01-14T00:00:00+08:00")
        #expect(answer["endsAt"] as? String == "2027-01-16T23:59:59+08:00")
        let preview = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/preview?app=demo&platform=ios&appVersion=7.0.0"))
        let considered = try #require(preview["considered"] as? [[String: Any]])
        #expect(considered.map { $0["skinId"] as? String } == ["tiny"], "listed once, not once per occurrence")
        #expect(considered.first?["outcome"] as? String == "selected")
        let catalog = try await harness.get("/api/v1/catalog?app=demo&platform=ios")
        #expect(
            catalog.text.contains(
                #""skinId":"tiny","kind":"holiday","order":null,"startsAt":"2027-01-13T16:00:00Z","endsAt":"2027-01-16T15:59:59Z""#
            ), "\(catalog.text)")

        let windowed = try await harness.send(
            "PATCH", Self.releasePath, json: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#)
        let window = try #require(try LiveryHarness.object(windowed)["release"] as? [String: Any])
        #expect(
            window["recurs"] == nil && window["occurrences"] == nil
                && window["startsAt"] as? String == "2027-01-15T07:00:00Z")
        let recurring = try await harness.send("PATCH", Self.releasePath, json: "{\(rule)}")
        let again = try #require(try LiveryHarness.object(recurring)["release"] as? [String: Any])
        #expect(again["startsAt"] == nil && again["endsAt"] == nil && again["recurs"] != nil)

        let before = harness.mark()
        for (method, body, code) in [
            ("PATCH", #"{"recurs": {"calendar": "lunar"}}"#, "invalid_release recurs/calendar"),
            ("PATCH", #"{"recurs": {"month": 13}}"#, "invalid_release recurs/month"),
            (
                "PUT", #"{"recurs": {"calendar": "chinese", "month": 12, "day": 30}, "timeZone": "Asia/Shanghai"}"#,
                "invalid_release recurs/day"
            ),
            (
                "PUT",
                #"{"recurs": {"calendar": "gregorian", "month": 1, "day": 1, "startOffsetDays": -200, "endOffsetDays": 200}, "timeZone": "UTC"}"#,
                "invalid_release recurs/endOffsetDays"
            ),
            ("PUT", "{\(rule)}", "invalid_release timeZone"),
            ("PATCH", #"{"occurrences": {"2027": "later"}}"#, "invalid_release occurrences/2027")
        ] {
            let refused = try await harness.send(method, Self.releasePath, json: body)
            #expect(refused.status == 422, "\(body): \(refused.text)")
            #expect(try LiveryHarness.code(refused) == code, "\(body)")
        }
        #expect(harness.mark() == before)
        await harness.stop()
    }

    @Test func aReleasePatchReplacesAWindowWithARuleAndBack() {
        func object(_ text: String) -> JSONObject { (try? JSONValue.parse(text).objectValue) ?? JSONObject() }
        let window = object(#"{"startsAt": "a", "endsAt": "b", "timeZone": "UTC", "rollout": 5}"#)
        let rule = object(
            #"{"recurs": {"month": 1}, "occurrences": {"2027": "skip"}, "timeZone": "UTC", "rollout": 5}"#)
        #expect(
            ReleaseRequest.mergeReleasePatch(window, with: object(#"{"recurs": {"month": 2}}"#))
                == object(#"{"timeZone": "UTC", "rollout": 5, "recurs": {"month": 2}}"#))
        #expect(
            ReleaseRequest.mergeReleasePatch(rule, with: object(#"{"startsAt": "c"}"#))
                == object(#"{"timeZone": "UTC", "rollout": 5, "startsAt": "c"}"#))
        #expect(
            ReleaseRequest.mergeReleasePatch(rule, with: object(#"{"recurs": {"day": 3}}"#))
                == object(
                    #"{"recurs": {"month": 1, "day": 3}, "occurrences": {"2027": "skip"}, "timeZone": "UTC", "rollout": 5}"#
                ),
            "a rule patched stays a rule, merged as RFC 7396 says")
    }

    @Test func mergePatchFollowsRFC7396() {
        func object(_ text: String) -> JSONObject {
            (try? JSONValue.parse(Array(text.utf8)).objectValue) ?? JSONObject()
        }
        // RFC 7396 appendix A's cases that apply to objects.
        let cases: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
            (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#)
        ]
        for (target, patch, result) in cases {
            #expect(
                ReleaseRequest.mergePatch(object(target), with: object(patch)) == object(result), "\(target) + \(patch)"
            )
        }
    }

    @Test(arguments: [
        (
            #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "rollout": 130}"#, 422,
            "invalid_release rollout"
        ),
        (
            #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "rolout": 30}"#, 422,
            "invalid_release rolout"
        ),
        (#"{"endsAt": "2027-01-15T10:00:00Z"}"#, 422, "invalid_release startsAt"),
        (#"{"startsAt": "2027-01-15T10:00:00Z", "endsAt": "2027-01-15T07:00:00Z"}"#, 422, "invalid_release endsAt"),
        (#"{"startsAt": "soon", "endsAt": "2027-01-15T07:00:00Z"}"#, 422, "invalid_release startsAt"),
        (
            #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "platforms": ["symbian"]}"#, 422,
            "invalid_release platforms/0"
        ),
        (
            #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "version": 9}"#, 422,
            "version_not_found version"
        ),
        (
            #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "version": "2"}"#, 422,
            "invalid_release version"
        ),
        (#"{"startsAt": "2027-01-15T07:00:00Z",}"#, 400, "invalid_json body"),
        (#"[1, 2]"#, 400, "invalid_field body")
    ])
    func invalidReleasesNameTheFieldAndChangeNothing(body: String, status: Int, code: String) async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let before = harness.mark()
        let response = try await harness.send("PUT", Self.releasePath, json: body)
        #expect(response.status == status, "\(response.text)")
        #expect(try LiveryHarness.code(response) == code)
        #expect(harness.mark() == before)
        await harness.stop()
    }

    @Test func unknownSkinsAndBadIdsAre404NamingTheId() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let body = #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#
        for id in ["nope", "Bad.ID", "..%2F..%2Fetc"] {
            let response = try await harness.send("PUT", "/admin/v1/skins/\(id)/release", json: body)
            #expect(response.status == 404, "\(id)")
            #expect(try LiveryHarness.code(response) == "skin_not_found id")
        }
        let wrongType = try await harness.request(
            "PUT", Self.releasePath, body: Array(body.utf8), contentType: "text/plain")
        #expect(wrongType.status == 415)
        await harness.stop()
    }

    @Test func rollbackServesThePreviousVersionWithTheSameSettings() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let first = try await harness.uploadTiny(marker: "1")
        try await harness.uploadTiny(marker: "2")
        try await harness.release("tiny", #""priority": 4, "rollout": 100, "version": 2"#)
        let rolled = try await harness.request("POST", "/admin/v1/skins/tiny/rollback")
        #expect(rolled.status == 200, "\(rolled.text)")
        let release = try #require(try LiveryHarness.object(rolled)["release"] as? [String: Any])
        #expect(release["version"] as? Int == 1)
        #expect(release["priority"] as? Int == 4)
        #expect(try await harness.poll()["skinSign"] as? String == Self.standardSign(first))
        #expect(harness.store.audit().last?.action == "release.rollback")

        let oldest = try await harness.request("POST", "/admin/v1/skins/tiny/rollback")
        #expect(oldest.status == 409)
        #expect(try LiveryHarness.code(oldest) == "no_previous_version version")
        _ = try await harness.request("DELETE", Self.releasePath)
        let unreleased = try await harness.request("POST", "/admin/v1/skins/tiny/rollback")
        #expect(try LiveryHarness.code(unreleased) == "not_released id")
        await harness.stop()
    }

    @Test func stoppingAReleaseEmptiesTheAnswerAtOnceAndRepeatingIsHarmless() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release("tiny")
        #expect(try await harness.poll()["skinId"] as? String == "tiny")
        let stopped = try await harness.request("DELETE", Self.releasePath)
        #expect(stopped.status == 200)
        #expect(try LiveryHarness.object(stopped)["release"] is NSNull)
        #expect(try await harness.poll()["skinSign"] as? String == "")
        let revision = harness.store.snapshot.revision
        #expect(try await harness.request("DELETE", Self.releasePath).status == 200)
        #expect(harness.store.snapshot.revision == revision, "no change, no audit entry")
        await harness.stop()
    }

    @Test func deletingAReleasedSkinNeedsForceAndKeepsItsHistory() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release("tiny")
        let refused = try await harness.request("DELETE", "/admin/v1/skins/tiny")
        #expect(refused.status == 409)
        #expect(try LiveryHarness.code(refused) == "skin_released force")
        #expect(try await harness.request("DELETE", "/admin/v1/skins/tiny?force=maybe").status == 400)

        let deleted = try await harness.request("DELETE", "/admin/v1/skins/tiny?force=true")
        #expect(deleted.status == 200)
        #expect(try await harness.poll()["skinSign"] as? String == "")
        #expect(try await harness.request("GET", "/admin/v1/skins/tiny").status == 404)
        #expect(harness.store.audit().last?.action == "skin.delete")
        #expect(harness.store.audit().contains { $0.action == "version.add" && $0.skinID == "tiny" })
        // Version numbers are never reused.
        #expect(try await harness.uploadTiny(marker: "again")["version"] as? Int == 2)
        #expect(try await harness.request("DELETE", "/admin/v1/skins/missing").status == 404)
        await harness.stop()
    }

    @Test func theKillSwitchEmptiesEveryAnswerBeforeItsAnswerArrives() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        try await harness.release("tiny")
        let other = try await harness.send(
            "PUT", "/admin/v1/killswitch?force=true", json: #"{"app": "other-app", "enabled": true, "reason": "test"}"#)
        #expect(other.status == 200)
        #expect(try await harness.poll()["skinId"] as? String == "tiny", "another app's switch leaves demo alone")

        let app = try await harness.send(
            "PUT", "/admin/v1/killswitch", json: #"{"app": "demo", "enabled": true, "reason": "bad banner"}"#)
        #expect(app.status == 200)
        #expect(try await harness.poll()["skinSign"] as? String == "")
        let shown = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/killswitch", token: LiveryHarness.viewerToken))
        let demo = try #require((shown["apps"] as? [String: Any])?["demo"] as? [String: Any])
        #expect(
            demo["enabled"] as? Bool == true && demo["reason"] as? String == "bad banner"
                && demo["changedBy"] as? String == "ops")

        let appOff = try await harness.send("PUT", "/admin/v1/killswitch", json: #"{"app": "demo", "enabled": false}"#)
        #expect(appOff.status == 200)
        let global = try await harness.send(
            "PUT", "/admin/v1/killswitch", json: #"{"enabled": true, "reason": "incident"}"#)
        let etag = try #require(global.header("ETag"))
        #expect(try await harness.poll()["skinSign"] as? String == "")
        let off = try await harness.send(
            "PUT", "/admin/v1/killswitch", json: #"{"enabled": false}"#, headers: [("If-Match", etag)])
        #expect(off.status == 200)
        #expect(try await harness.poll()["skinId"] as? String == "tiny")
        let stale = try await harness.send(
            "PUT", "/admin/v1/killswitch", json: #"{"enabled": true}"#, headers: [("If-Match", etag)])
        #expect(stale.status == 412)
        await harness.stop()
    }

    @Test(arguments: [
        (#"{"reason": "no enabled"}"#, "invalid_field enabled"),
        (#"{"enabled": "yes"}"#, "invalid_field enabled"),
        (#"{"enabled": true, "app": "bad app"}"#, "invalid_field app"),
        (#"{"enabled": true, "reason": 5}"#, "invalid_field reason"),
        (#"{"enabled": true, "scope": "all"}"#, "invalid_field scope")
    ])
    func invalidKillSwitchBodiesNameTheField(body: String, code: String) async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let before = harness.mark()
        let response = try await harness.send("PUT", "/admin/v1/killswitch", json: body)
        #expect(response.status == 400)
        #expect(try LiveryHarness.code(response) == code)
        #expect(harness.mark() == before)
        await harness.stop()
    }

    @Test func aReleaseWhosePackagesCannotBeBuiltFailsBeforeAnythingIsCommitted() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        // A file where the package folder was: every package write fails.
        let packages = harness.dataDirectory + "/packages"
        try FileManager.default.removeItem(atPath: packages)
        try Data().write(to: URL(fileURLWithPath: packages))
        let before = harness.mark()
        let response = try await harness.send(
            "PUT", Self.releasePath, json: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#)
        #expect(response.status == 500)
        #expect(try LiveryHarness.code(response) == "internal_error -")
        #expect(harness.mark() == before)
        #expect(try await harness.poll()["skinSign"] as? String == "")
        await harness.stop()
    }

    @Test func aVersionThatNoLongerPassesTheLimitsCannotBeReleased() async throws {
        let first = try await LiveryHarness()
        defer { first.removeFiles() }
        try await first.uploadTiny()
        await first.stop()
        let second = try await LiveryHarness(root: first.root) { $0.validationLimits.maxFileCount = 1 }
        let response = try await second.send(
            "PUT", Self.releasePath, json: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#)
        #expect(response.status == 422)
        #expect(try LiveryHarness.code(response) == "version_not_servable version")
        await second.stop()
    }
}
