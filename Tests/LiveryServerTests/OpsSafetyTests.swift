import Foundation
import HTTPTestSupport
import Testing

@testable import LiveryServer

/// Ops commands that cannot silently do the wrong thing, at the admin API: a release keeps what is not given,
/// typos in app names, windows in the past and skins moving between apps are refused, and the preview names the
/// first rule that excludes a skin.
@Suite(.serialized) struct OpsSafetyTests {
    static func release(of response: TestResponse) throws -> [String: Any] {
        try #require(try LiveryHarness.object(response)["release"] as? [String: Any], "\(response.text)")
    }

    @Test func aNewWindowAfterARollbackKeepsTheRolledBackVersionAndSettings() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let first = try await harness.uploadTiny(marker: "1")
        try await harness.uploadTiny(marker: "2")
        try await harness.release("tiny", #""version": 2, "rollout": 100, "priority": 7, "platforms": ["ios"]"#)
        let rolledBack = try await harness.request("POST", "/admin/v1/skins/tiny/rollback")
        #expect(try Self.release(of: rolledBack)["version"] as? Int == 1)

        // Only the window is given: the version and every other setting stay.
        let moved = try await harness.send(
            "PATCH", "/admin/v1/skins/tiny/release",
            json: #"{"startsAt": "2027-01-15T08:00:00Z", "endsAt": "2027-01-16T08:00:00Z"}"#)
        let patched = try Self.release(of: moved)
        #expect(patched["version"] as? Int == 1 && patched["priority"] as? Int == 7)
        #expect(patched["platforms"] as? [String] == ["ios"] && patched["endsAt"] as? String == "2027-01-16T08:00:00Z")

        // A whole replacement without "version" keeps the released version, not the latest.
        let replaced = try await harness.send(
            "PUT", "/admin/v1/skins/tiny/release",
            json: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-16T09:00:00Z"}"#)
        let whole = try Self.release(of: replaced)
        #expect(whole["version"] as? Int == 1, "the rolled-back version stays released")
        #expect(whole["priority"] as? Int == 0, "a replacement resets what it does not give")
        #expect(try await harness.poll()["skinSign"] as? String == AdminReleaseTests.standardSign(first))
        await harness.stop()
    }

    @Test func killSwitchesAndPreviewsForAnAppNeverSeenAreRefusedUnlessForced() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny(app: "demo")
        let before = harness.mark()

        let typo = try await harness.send("PUT", "/admin/v1/killswitch", json: #"{"app": "dmeo", "enabled": true}"#)
        #expect(typo.status == 404)
        #expect(try LiveryHarness.code(typo) == "unknown_app app")
        #expect(try (LiveryHarness.error(typo)["details"] as? [String: Any])?["closest"] as? String == "demo")
        #expect(try (LiveryHarness.error(typo)["message"] as? String)?.contains(#""demo""#) == true)
        #expect(harness.mark() == before, "a refused switch changes nothing")

        let preview = try await harness.request("GET", "/admin/v1/preview?app=dmeo&platform=ios&appVersion=7.0.0")
        #expect(preview.status == 404)
        #expect(try LiveryHarness.code(preview) == "unknown_app app")

        // An app with no skins yet: force says so.
        let forced = try await harness.send(
            "PUT", "/admin/v1/killswitch?force=true", json: #"{"app": "new-app", "enabled": true}"#)
        #expect(forced.status == 200, "\(forced.text)")
        let forcedPreview = try await harness.request(
            "GET", "/admin/v1/preview?app=brand-new&platform=ios&appVersion=7.0.0&force=true")
        #expect(forcedPreview.status == 200)
        // Known apps (and the global switch) need no force.
        let known = try await harness.send("PUT", "/admin/v1/killswitch", json: #"{"app": "demo", "enabled": false}"#)
        #expect(known.status == 200)
        await harness.stop()
    }

    @Test func aReleaseWhoseWindowLiesWhollyInThePastIsRefused() async throws {
        let harness = try await LiveryHarness()  // now: 2027-01-15T08:01:00Z
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let before = harness.mark()
        let past = try await harness.send(
            "PUT", "/admin/v1/skins/tiny/release",
            json: #"{"startsAt": "2027-01-14T07:00:00Z", "endsAt": "2027-01-15T08:00:00Z"}"#)
        #expect(past.status == 422)
        #expect(try LiveryHarness.code(past) == "invalid_release endsAt")
        #expect(harness.mark() == before)
        try await harness.release("tiny")
        let movedIntoThePast = try await harness.send(
            "PATCH", "/admin/v1/skins/tiny/release", json: #"{"endsAt": "2027-01-15T07:30:00Z"}"#)
        #expect(movedIntoThePast.status == 422)
        #expect(try LiveryHarness.code(movedIntoThePast) == "invalid_release endsAt")
        await harness.stop()
    }

    @Test func pushingASkinIdThatExistsUnderAnotherAppIsRefusedUnlessForced() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny(app: "demo")
        let before = harness.mark()
        let archive = try SkinArchives.zip(SkinArchives.tiny(app: "other", marker: "2"))
        let moved = try await harness.upload(archive)
        #expect(moved.status == 409)
        #expect(try LiveryHarness.code(moved) == "app_mismatch app")
        #expect(harness.mark() == before)

        let forced = try await harness.request(
            "POST", "/admin/v1/skins?force=true", body: archive, contentType: "application/zip")
        #expect(forced.status == 201, "\(forced.text)")
        #expect(try LiveryHarness.object(forced)["version"] as? Int == 2)
        await harness.stop()
    }

    @Test func previewNamesTheFirstExcludingRuleInOneFixedOrder() async throws {
        let harness = try await LiveryHarness()  // now: 2027-01-15T08:01:00Z
        defer { harness.removeFiles() }
        try await harness.uploadTiny(id: "later-android", marker: "a")
        try await harness.uploadTiny(id: "later-nobody", marker: "b")
        try await harness.uploadTiny(id: "now-android", marker: "c")
        let later = #""startsAt": "2027-01-16T07:00:00Z", "endsAt": "2027-01-17T07:00:00Z""#
        for (id, fields) in [
            ("later-android", #"\#(later), "platforms": ["android"], "minAppVersion": "9.0""#),
            ("later-nobody", #"\#(later), "rollout": 0"#),
            (
                "now-android",
                #""startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "platforms": ["android"], "minAppVersion": "9.0""#
            )
        ] {
            let response = try await harness.send("PUT", "/admin/v1/skins/\(id)/release", json: "{\(fields)}")
            #expect(response.status == 200, "\(response.text)")
        }
        let preview = try LiveryHarness.object(
            try await harness.request("GET", "/admin/v1/preview?app=demo&platform=ios&appVersion=7.0.0&deviceId=d1"))
        let reasons = Dictionary(
            uniqueKeysWithValues: (preview["considered"] as? [[String: Any]] ?? []).compactMap {
                entry -> (String, String)? in
                guard let id = entry["skinId"] as? String else { return nil }
                return (id, entry["reason"] as? String ?? "-")
            })
        #expect(
            reasons == [
                "later-android": "window not started", "later-nobody": "window not started",
                "now-android": "platform not targeted"
            ])
        await harness.stop()
    }
}
