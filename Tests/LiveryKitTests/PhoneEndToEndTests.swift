import Foundation
import TestSupport
import Testing

/// `livery-phone` (LiveryKit) against the real `livery serve`: what a phone applies, keeps and refuses.
/// Serialized: each test starts its own server, and several at once only slow a loaded machine down.
@Suite(.serialized) struct PhoneEndToEndTests {
    static let keys = [
        "home/colors/color_background", "home/colors/color.title.sub", "home/colors/unknown",
        "home/colors/color_random",
        "home/images/image_tab", "home/images/image_plain", "home/images/image_remote", "home/values/value_marker",
        "home/values/value_object", "home/resources/res_data", "home/values/missing"
    ]

    static func gets(_ keys: [String] = keys) -> [String] { keys.flatMap { ["--get", $0] } }

    @Test func firstLaunchAppliesTheLiveSkinAndReadsEveryKindOfValue() async throws {
        let stage = try await Stage.make()
        let phone = stage.phone()
        let run = try await phone.run(Self.gets())
        #expect(run.status == 0, "\(run)")
        #expect(run.skinID == "kit-a")
        #expect(!run.skinSign.isEmpty)
        #expect(run.themeID == nil && run.line.keys.contains("themeId"))
        #expect(run.line["error"] is NSNull)
        #expect(run.line["source"] as? String == "catalog")
        #expect(run.value("home/colors/color_background") == "#1E90FFFF")
        #expect(run.value("home/colors/color.title.sub") == "#FF000080", "falls back to color.title")
        #expect(run.value("home/colors/unknown") == "#01020366", "falls back to __default__")
        #expect(run.value("home/colors/color_random") == "random")
        let image = try #require(run.value("home/images/image_tab"))
        #expect(image.hasSuffix("/packages/\(run.skinSign)/tab@3x.png"))
        #expect(FileManager.default.fileExists(atPath: image))
        #expect(run.value("home/images/image_plain") == "#00FF00FF")
        #expect(run.value("home/images/image_remote") == "https://cdn.example.com/kit.png")
        #expect(run.value("home/values/value_marker") == "A1")
        #expect((run.values["home/values/value_object"] as? [String: Any])?["speed"] as? Double == 1.5)
        let resource = try #require(run.value("home/resources/res_data"))
        #expect(try String(contentsOfFile: resource, encoding: .utf8).contains("A1"))
        #expect(run.values["home/values/missing"] is NSNull)
        #expect(listing(phone.storage + "/packages") == [run.skinSign])
        #expect(listing(phone.storage + "/staging").isEmpty)
        #expect(listing(phone.storage + "/downloads").isEmpty)

        // Another device with scale 2 and the dark appearance gets its own package.
        var dark = stage.phone("dark")
        dark.deviceID = "device-2"
        let darkRun = try await dark.run(["--scale", "2", "--appearance", "dark"] + Self.gets())
        #expect(darkRun.status == 0, "\(darkRun)")
        #expect(darkRun.value("home/colors/color_background") == "#000000FF")
        #expect(darkRun.value("home/images/image_tab")?.hasSuffix("/tab@2x.png") == true)
        #expect(darkRun.skinSign != run.skinSign)
    }

    /// Polls (a server without the catalog): the catalog's own revalidation is in `CatalogClientTests`. An hour-long
    /// max-age makes the signing step an hour, so both polls almost always fall in one step and the second is answered
    /// 304; if the step ends between them, the server's answer is a new document (a new ETag) for the same package.
    @Test func anUnchangedSignAsksWithIfNoneMatchAndDownloadsNothing() async throws {
        let stage = try await Stage.make(serverArguments: ["--cache-max-age", "3600"])
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let polls = LockedPolls()
        proxy.setRule(
            TamperingProxy.withoutCatalog(upstreamPort: stage.server.port) { request, response in
                if request.path.hasPrefix("/api/v1/skin") {
                    polls.add(
                        status: response.status, etag: response.header("ETag"),
                        ifNoneMatch: request.header("If-None-Match"))
                }
                return .send(response)
            })
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run()
        #expect(first.status == 0 && first.line["source"] as? String == "poll", "\(first)")
        let packageRequests = proxy.requests.filter { $0.path.hasPrefix("/api/v1/packages/") }.count
        #expect(packageRequests == 1)
        let answered = try #require(polls.all.last)
        #expect(answered.status == 200 && answered.etag != nil, "\(answered)")

        let second = try await phone.run()
        #expect(second.status == 0, "\(second)")
        #expect(second.skinSign == first.skinSign)
        let revalidation = try #require(polls.all.last)
        #expect(polls.all.count == 2, "one poll per launch")
        #expect(revalidation.ifNoneMatch == answered.etag, "\(revalidation)")
        #expect(
            revalidation.status == 304 || (revalidation.status == 200 && revalidation.etag != answered.etag),
            "\(revalidation)")
        #expect(proxy.requests.filter { $0.path.hasPrefix("/api/v1/packages/") }.count == packageRequests)
    }

    @Test func aNewReleaseSwitchesAndKeepsThePreviousPackage() async throws {
        let stage = try await Stage.make()
        let phone = stage.phone()
        let first = try await phone.run(["--get", "home/values/value_marker"])
        #expect(first.value("home/values/value_marker") == "A1")
        try await stage.releaseNewVersion(marker: "A2")
        let second = try await phone.run(["--get", "home/values/value_marker"])
        #expect(second.status == 0, "\(second)")
        #expect(second.value("home/values/value_marker") == "A2")
        #expect(second.skinSign != first.skinSign)
        #expect(listing(phone.storage + "/packages") == [first.skinSign, second.skinSign].sorted())
    }

    @Test func theKillSwitchTurnsTheSkinOff() async throws {
        let stage = try await Stage.make()
        let phone = stage.phone()
        #expect(try await phone.run().skinID == "kit-a")
        _ = try await stage.server.admin(["killswitch", "on", "--app", "kit", "--reason", "kit test"])
        let off = try await phone.run(["--get", "home/values/value_marker"])
        #expect(off.status == 0, "\(off)")
        #expect(off.skinID == nil && off.skinSign == "")
        #expect(off.values["home/values/value_marker"] is NSNull)
        // The stored catalog says killed: offline, later inside kit-a's window, still no skin.
        let offline = try await phone.run(["--offline", "--at", iso(stage.now.addingTimeInterval(3600))])
        #expect(
            offline.status == 0 && offline.skinSign == "" && offline.line["source"] as? String == "catalog",
            "\(offline)")
    }

    @Test func aStoredSkinAppliesOfflineUntilItsWindowEnds() async throws {
        let stage = try await Stage.make()
        let phone = stage.phone()
        let online = try await phone.run()
        #expect(online.skinID == "kit-a")
        let inside = try await phone.run(["--offline", "--at", iso(stage.endsAt.addingTimeInterval(-60))])
        #expect(inside.status == 0 && inside.skinSign == online.skinSign, "\(inside)")
        let after = try await phone.run(["--offline", "--at", iso(stage.endsAt.addingTimeInterval(1))])
        #expect(after.status == 0, "\(after)")
        #expect(after.skinSign == "" && after.skinID == nil)
    }

    @Test func theNextSkinIsPrefetchedAndSwitchesOnAtItsStartOffline() async throws {
        let stage = try await Stage.make { workspace, now in
            try workspace.writeSkin(
                id: "kit-b", marker: "B1", startsAt: now.addingTimeInterval(3 * 3600),
                endsAt: now.addingTimeInterval(5 * 3600))
        }
        let phone = stage.phone()
        let online = try await phone.run()
        #expect(online.skinID == "kit-a", "\(online)")
        #expect(listing(phone.storage + "/packages").count == 2, "next was prefetched")
        let next = try await phone.run([
            "--offline", "--at", iso(stage.endsAt.addingTimeInterval(60)), "--get", "home/values/value_marker"
        ])
        #expect(next.status == 0, "\(next)")
        #expect(next.skinID == "kit-b")
        #expect(next.value("home/values/value_marker") == "B1")
    }

    @Test func aTamperedPackageIsRefusedAndTheCurrentSkinKept() async throws {
        let stage = try await Stage.make()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run()
        try await stage.releaseNewVersion(marker: "A2")
        proxy.setRule { request, response in
            guard request.path.hasPrefix("/api/v1/packages/"), response.status == 200 else { return .send(response) }
            var changed = response
            changed.body[changed.body.count / 2] ^= 0x01
            return .send(changed)
        }
        let run = try await phone.run(["--get", "home/values/value_marker"])
        #expect(run.status == 1, "\(run)")
        #expect(run.errorCode == "hash")
        #expect(run.skinSign == first.skinSign)
        #expect(run.value("home/values/value_marker") == "A1")
        #expect(listing(phone.storage + "/packages") == [first.skinSign])
        #expect(listing(phone.storage + "/downloads").isEmpty)
        #expect(listing(phone.storage + "/staging").isEmpty)

        // A package longer than the answer said is cut off at the size, and refused.
        proxy.setRule { request, response in
            guard request.path.hasPrefix("/api/v1/packages/"), response.status == 200 else { return .send(response) }
            var longer = response
            longer.body += [UInt8](repeating: 0, count: 100)
            return .send(longer)
        }
        let long = try await phone.run()
        #expect(long.errorCode == "size", "\(long)")
        #expect(long.skinSign == first.skinSign)
    }

    @Test func answersSignedByAnotherOrAnUnknownKeyOrUnsignedAreRefused() async throws {
        let stage = try await Stage.make()
        let good = stage.phone()
        #expect(try await good.run().status == 0)

        // A key of another id: unknown_key.
        let other = try await stage.workspace.createKey("k2")
        let unknown = try await stage.phone("unknown", trusting: [other.publicKey]).run()
        #expect(unknown.status == 1 && unknown.errorCode == "unknown_key", "\(unknown)")
        #expect(unknown.skinSign == "")

        // Another key under the trusted id: the signature does not verify.
        let impostor = try await stage.workspace.createKey("k1", file: "impostor")
        let wrong = try await stage.phone("wrong", trusting: [impostor.publicKey]).run()
        #expect(wrong.errorCode == "signature", "\(wrong)")

        // A body changed on the way: the signature does not verify; the stored skin stays. (Polls, from a server
        // without the catalog; a tampered catalog is in CatalogClientTests.)
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        proxy.setRule(
            TamperingProxy.withoutCatalog(upstreamPort: stage.server.port) { request, response in
                guard request.path.hasPrefix("/api/v1/skin"), response.status == 200 else { return .send(response) }
                var changed = response
                let text = String(decoding: changed.body, as: UTF8.self).replacingOccurrences(
                    of: "\"size\":", with: "\"size\": ")
                changed.body = Array(text.utf8)
                changed.setHeader("ETag", nil)
                return .send(changed)
            })
        // Another device id on the same storage: no If-None-Match (which a 304 would answer), the stored skin kept.
        let kept = try await Phone(
            server: proxy.url, storage: good.storage, deviceID: "device-2", publicKeys: good.publicKeys
        ).run()
        #expect(kept.errorCode == "signature", "\(kept)")
        #expect(kept.skinID == "kit-a")

        // The signature header removed: unsigned, refused because keys are configured.
        proxy.setRule(
            TamperingProxy.withoutCatalog(upstreamPort: stage.server.port) { _, response in
                var stripped = response
                stripped.setHeader("Livery-Signature", nil)
                stripped.setHeader("ETag", nil)
                return .send(stripped)
            })
        let unsigned = try await Phone(
            server: proxy.url, storage: good.storage, deviceID: "device-3", publicKeys: good.publicKeys
        ).run()
        #expect(unsigned.errorCode == "unsigned", "\(unsigned)")
        #expect(unsigned.skinID == "kit-a")
    }

    @Test func anUnsignedServerIsRefusedWithKeysAndTakenWithout() async throws {
        let stage = try await Stage.make(signed: false)
        let key = try await stage.workspace.createKey("k1")
        let refused = try await stage.phone("keys", trusting: [key.publicKey]).run()
        #expect(refused.status == 1 && refused.errorCode == "unsigned", "\(refused)")
        #expect(refused.skinSign == "")
        let taken = try await stage.phone("nokeys").run()
        #expect(taken.status == 0 && taken.skinID == "kit-a", "\(taken)")
    }

    @Test func anExpiredAnswerIsRefused() async throws {
        let stage = try await Stage.make()
        let phone = stage.phone()
        // The phone's clock a day ahead: the answer's expiresAt (minutes ahead of the server's clock) has passed.
        let run = try await phone.run(["--at", iso(stage.now.addingTimeInterval(86_400))])
        #expect(run.status == 1 && run.errorCode == "expired", "\(run)")
        #expect(run.skinSign == "")
    }

    @Test func anAnswerToAnotherQuestionIsRefused() async throws {
        let stage = try await Stage.make()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)
        #expect(try await phone.run().status == 0)
        // The proxy answers the phone's scale-2 poll with the (validly signed) answer for scale 1. (A server without
        // the catalog; a catalog for another platform is in CatalogClientTests.)
        proxy.setRule(
            TamperingProxy.withoutCatalog(upstreamPort: stage.server.port) { request, response in
                guard request.path.hasPrefix("/api/v1/skin") else { return .send(response) }
                let swapped = request.path.replacingOccurrences(of: "scale=2", with: "scale=1")
                guard let fetched = try? HTTPGet.fetch(port: stage.server.port, path: swapped) else {
                    return .send(response)
                }
                var answer = response
                answer.status = fetched.status
                answer.body = fetched.body
                for line in fetched.head.split(separator: "\r\n") where line.lowercased().hasPrefix("livery-signature:")
                {
                    answer.setHeader(
                        "Livery-Signature",
                        String(line.dropFirst("livery-signature:".count)).trimmingCharacters(in: .whitespaces))
                }
                return .send(answer)
            })
        var other = phone
        other.storage = stage.workspace.root + "/other"
        let run = try await other.run(["--scale", "2"])
        #expect(run.status == 1 && run.errorCode == "wrong_answer", "\(run)")
        #expect(run.skinSign == "")
    }

    @Test func aCrashBeforeMarkAppliedRevertsAndNeverUsesThatSignAgain() async throws {
        let stage = try await Stage.make()
        let phone = stage.phone()
        let first = try await phone.run(["--get", "home/values/value_marker"])
        #expect(first.status == 0 && first.value("home/values/value_marker") == "A1", "\(first)")
        try await stage.releaseNewVersion(marker: "A2")
        let crashed = try await phone.run(["--crash-before-applied", "--get", "home/values/value_marker"])
        #expect(crashed.status == 3, "\(crashed)")
        #expect(crashed.value("home/values/value_marker") == "A2")
        let reverted = try await phone.run(["--get", "home/values/value_marker"])
        #expect(reverted.skinSign == first.skinSign, "\(reverted)")
        #expect(reverted.value("home/values/value_marker") == "A1")
        #expect(reverted.errorCode == "blocked")
        #expect(reverted.status == 1)
        let again = try await phone.run(["--get", "home/values/value_marker"])
        #expect(again.skinSign == first.skinSign && again.errorCode == "blocked", "\(again)")
        #expect(!listing(phone.storage + "/packages").contains(crashed.skinSign))
    }

    @Test func aThemeIsListedSelectedAndKeptAcrossRestarts() async throws {
        let stage = try await Stage.make(liveSkin: false) { workspace, now in
            try workspace.writeSkin(id: "kit-ink", marker: "INK", startsAt: now, endsAt: now, kind: "theme")
        }
        let phone = stage.phone()
        let none = try await phone.run()
        #expect(none.status == 0 && none.skinSign == "" && none.themeID == nil, "\(none)")
        let chosen = try await phone.run(["--theme", "kit-ink", "--get", "home/values/value_marker"])
        #expect(chosen.status == 0, "\(chosen)")
        #expect(chosen.themeID == "kit-ink" && chosen.skinID == "kit-ink")
        #expect(chosen.value("home/values/value_marker") == "INK")
        let restarted = try await phone.run(["--get", "home/values/value_marker"])
        #expect(restarted.themeID == "kit-ink" && restarted.value("home/values/value_marker") == "INK", "\(restarted)")
        let offline = try await phone.run(["--offline"])
        #expect(offline.status == 0 && offline.skinID == "kit-ink", "\(offline)")

        // A holiday skin that applies wins over the chosen theme.
        let folder = try stage.workspace.writeSkin(
            id: "kit-a", marker: "A1", startsAt: stage.now.addingTimeInterval(-3600),
            endsAt: stage.now.addingTimeInterval(3600), into: stage.workspace.root + "/work")
        _ = try await stage.server.admin(["push", folder])
        _ = try await stage.server.admin([
            "release", "kit-a", "--from", iso(stage.now.addingTimeInterval(-3600)), "--until",
            iso(stage.now.addingTimeInterval(3600))
        ])
        let holiday = try await phone.run()
        #expect(holiday.skinID == "kit-a" && holiday.themeID == "kit-ink", "\(holiday)")

        let cleared = try await phone.run([
            "--theme", "none", "--at", iso(stage.now.addingTimeInterval(2 * 3600)), "--offline"
        ])
        #expect(cleared.themeID == nil && cleared.skinSign == "", "\(cleared)")
    }

    @Test func aDownloadCutHalfwayResumesWithRange() async throws {
        let stage = try await Stage.make()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        proxy.setRule { request, response in
            guard request.path.hasPrefix("/api/v1/packages/"), response.status == 200 else { return .send(response) }
            return .cut(response, bytes: response.body.count / 2)
        }
        let phone = stage.phone(url: proxy.url)
        let cut = try await phone.run()
        #expect(cut.status == 1 && cut.errorCode == "network", "\(cut)")
        #expect(cut.skinSign == "")
        let parts = listing(phone.storage + "/downloads").filter { $0.hasSuffix(".part") }
        #expect(parts.count == 1)
        proxy.setRule { .send($1) }
        let resumed = try await phone.run()
        #expect(resumed.status == 0 && resumed.skinID == "kit-a", "\(resumed)")
        let last = try #require(proxy.requests.last { $0.path.hasPrefix("/api/v1/packages/") })
        #expect(last.header("Range")?.hasPrefix("bytes=") == true && last.header("Range") != "bytes=0-")
        #expect(last.header("If-Range") != nil)
        #expect(listing(phone.storage + "/downloads").isEmpty)
    }

    @Test func a503WithRetryAfterIsHonouredAndTheSkinKept() async throws {
        let stage = try await Stage.make()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run()
        proxy.setRule { request, response in
            guard request.path.hasPrefix("/api/v1/catalog") else { return .send(response) }
            return .send(
                TamperingProxy.Response(
                    status: 503, headers: [("Retry-After", "120"), ("Cache-Control", "no-store")],
                    body: Array("{}".utf8)))
        }
        let refused = try await phone.run()
        #expect(refused.status == 1 && refused.errorCode == "server", "\(refused)")
        #expect(
            refused.skinSign == first.skinSign && refused.line["source"] as? String == "catalog",
            "the stored catalog decides")
        let asked = proxy.requests.filter { $0.path.hasPrefix("/api/v1/catalog") }.count
        let waiting = try await phone.run()
        #expect(waiting.errorCode == "server" && waiting.skinSign == first.skinSign, "\(waiting)")
        #expect(
            proxy.requests.filter { $0.path.hasPrefix("/api/v1/catalog") }.count == asked,
            "no request before Retry-After")
        proxy.setRule { .send($1) }
        let later = try await phone.run(["--at", iso(Date().addingTimeInterval(121))])
        #expect(later.status == 0 && later.skinSign == first.skinSign, "\(later)")
        #expect(proxy.requests.filter { $0.path.hasPrefix("/api/v1/catalog") }.count == asked + 1)
        #expect(!proxy.requests.contains { $0.path.hasPrefix("/api/v1/skin") }, "the catalog decided throughout")
    }

    @Test func badArgumentsExitTwo() async throws {
        let missing = try await Phone.run(["--app", "kit"])
        #expect(missing.status == 2, "\(missing)")
        let badScale = try await Phone(server: "http://127.0.0.1:1", storage: "/tmp/x").run(["--scale", "4"])
        #expect(badScale.status == 2)
        let badKey = try await Phone(server: "http://127.0.0.1:1", storage: "/tmp/x").run(["--get", "home/nosection/x"])
        #expect(badKey.status == 2)
        let help = try await Phone.run(["--help"])
        #expect(help.status == 0)
    }

    @Test func anUnreachableServerKeepsTheStoredSkin() async throws {
        let stage = try await Stage.make()
        let phone = stage.phone()
        let first = try await phone.run()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        proxy.stop()
        let down = try await Phone(server: proxy.url, storage: phone.storage, publicKeys: phone.publicKeys).run()
        #expect(down.status == 1 && down.errorCode == "network", "\(down)")
        #expect(down.skinSign == first.skinSign)
    }
}

/// The polls a proxy saw: each answer's status and ETag, and the If-None-Match its request carried.
final class LockedPolls: @unchecked Sendable {
    struct Poll { var status: Int, etag: String?, ifNoneMatch: String? }
    private let lock = NSLock()
    private var seen: [Poll] = []
    func add(status: Int, etag: String?, ifNoneMatch: String?) {
        lock.withLock { seen.append(Poll(status: status, etag: etag, ifNoneMatch: ifNoneMatch)) }
    }
    var all: [Poll] { lock.withLock { seen } }
}
