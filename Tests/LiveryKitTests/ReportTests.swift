import Crypto
import Foundation
import SkinModel
import TestSupport
import Testing

@testable import LiveryKit

/// Outcome reports: what LiveryKit and `livery-phone` tell the server about each skin (applied, or failed at its
/// stage, a crash included), in which body, how often, and what they do with the answer. The server side is the
/// capturing `ReportCatcher` on 127.0.0.1, alone or in front of the real `livery serve`.
@Suite(.serialized) struct ReportTests {
    typealias Outcome = ReportCatcher.Outcome

    /// One launch of an in-process app install on `storage`, talking to `url` with the clock at `now`.
    static func launch(_ url: String, _ storage: String, at now: Date = Date()) throws -> LiveryClient {
        try LiveryClient(
            configuration: LiveryConfiguration(
                serverURL: try #require(URL(string: url)), appID: "kit", platform: .android, appVersion: "7.2.0",
                deviceID: "user-4711@example.com", storage: URL(fileURLWithPath: storage, isDirectory: true),
                clock: { now }))
    }

    static func sign(_ number: Int) -> String { "sign-" + String(format: "%03d", number) }

    @Test func aLaunchSendsOneRequestAndWhatItDidNotSendWaitsForTheNextLaunch() async throws {
        let catcher = try ReportCatcher()
        let scratch = try ScratchDirectory(prefix: "livery-kit-reports")
        let client = try Self.launch(catcher.url, scratch.path + "/app")
        client.record(Self.sign(1), stage: nil)
        client.record(Self.sign(1), stage: nil)
        client.record(Self.sign(2), stage: .verify)
        try await client.refresh()
        let firstSend = await client.sendReports()
        #expect(firstSend == .delivered(count: 2))
        client.record(Self.sign(3), stage: .config)
        try await client.refresh()
        try await client.refresh()
        let secondSend = await client.sendReports()
        #expect(secondSend == .delivered(count: 2), "the launch's one request, not a second")
        #expect(catcher.posts.count == 1)
        #expect(client.pendingReports.map(\.skinSign) == [Self.sign(3)])

        let relaunched = try Self.launch(catcher.url, scratch.path + "/app")
        #expect(relaunched.pendingReports.map(\.skinSign) == [Self.sign(3)], "the queue is kept in the storage folder")
        try await relaunched.refresh()
        let relaunchedSend = await relaunched.sendReports()
        #expect(relaunchedSend == .delivered(count: 1))
        #expect(
            try catcher.reports() == [
                Outcome(Self.sign(1), "applied"), Outcome(Self.sign(2), "failed", "verify"),
                Outcome(Self.sign(3), "failed", "config")
            ])
        // Delivered outcomes are never queued again.
        relaunched.record(Self.sign(2), stage: .verify)
        #expect(relaunched.pendingReports.isEmpty)
        let third = try Self.launch(catcher.url, scratch.path + "/app")
        try await third.refresh()
        let thirdSend = await third.sendReports()
        #expect(thirdSend == .notSent)
        #expect(catcher.posts.count == 2)
    }

    @Test func theBodyIsTheDesignedShapeUnderARandomInstallID() async throws {
        let catcher = try ReportCatcher()
        let scratch = try ScratchDirectory(prefix: "livery-kit-reports")
        let at = try #require(ISO8601Instant.parse("2026-12-24T20:00:00+08:00"))
        let client = try Self.launch(catcher.url, scratch.path + "/app", at: at)
        client.record(Self.sign(1), stage: nil)
        client.record(Self.sign(2), stage: .crash)
        let sent = await client.sendReports()
        #expect(sent == .delivered(count: 2))
        let post = try #require(catcher.posts.first)
        #expect(post.method == "POST" && post.path == "/api/v1/reports")
        #expect(post.header("Content-Type") == "application/json")
        let body = try #require(try catcher.bodies().first)
        #expect(Set(body.keys) == ["app", "platform", "appVersion", "deviceId", "reports"])
        #expect(
            body["app"] as? String == "kit" && body["platform"] as? String == "android"
                && body["appVersion"] as? String == "7.2.0")
        let installID = try #require(body["deviceId"] as? String)
        #expect(UUID(uuidString: installID) != nil, "a random install id, never the app's own device id: \(installID)")
        #expect(installID != client.deviceID)
        let reports = try #require(body["reports"] as? [[String: Any]])
        #expect(reports.count == 2)
        #expect(Set(reports[0].keys) == ["skinSign", "outcome", "at"])
        #expect(reports[0]["skinSign"] as? String == Self.sign(1) && reports[0]["outcome"] as? String == "applied")
        #expect(Set(reports[1].keys) == ["skinSign", "outcome", "stage", "at"])
        #expect(reports[1]["outcome"] as? String == "failed" && reports[1]["stage"] as? String == "crash")
        #expect(reports[0]["at"] as? String == "2026-12-24T12:00:00Z", "RFC 3339 in UTC")

        // The same install id at the next launch.
        let relaunched = try Self.launch(catcher.url, scratch.path + "/app", at: at)
        relaunched.record(Self.sign(3), stage: nil)
        let relaunchedSend = await relaunched.sendReports()
        #expect(relaunchedSend == .delivered(count: 1))
        #expect(try catcher.bodies().last?["deviceId"] as? String == installID)
    }

    @Test(arguments: [429, 503])
    func reportsAreKeptThroughAFailedSendAndSentAfterRetryAfter(status: Int) async throws {
        let catcher = try ReportCatcher()
        let scratch = try ScratchDirectory(prefix: "livery-kit-reports")
        let storage = scratch.path + "/app"
        let now = Date()
        let offline = try Self.launch("http://127.0.0.1:1", storage, at: now)
        offline.record(Self.sign(1), stage: .download)
        guard case .kept = await offline.sendReports() else { throw KitTestError("no network: the report is kept") }
        #expect(offline.pendingReports.count == 1)

        catcher.answer(status, retryAfter: 120)
        let busy = try Self.launch(catcher.url, storage, at: now)
        guard case .kept(count: 1, reason: let reason) = await busy.sendReports() else {
            throw KitTestError("HTTP \(status): kept")
        }
        #expect(reason.contains("\(status)"))
        #expect(busy.pendingReports.count == 1)

        catcher.answer(202)
        let early = try Self.launch(catcher.url, storage, at: now.addingTimeInterval(60))
        try await early.refresh()
        let beforeRetryAfter = await early.sendReports()
        #expect(beforeRetryAfter == .notSent, "nothing before Retry-After")
        #expect(catcher.posts.count == 1)
        let later = try Self.launch(catcher.url, storage, at: now.addingTimeInterval(180))
        let afterRetryAfter = await later.sendReports()
        #expect(afterRetryAfter == .delivered(count: 1))
        #expect(later.pendingReports.isEmpty)
        #expect(
            try catcher.reports() == [
                Outcome(Self.sign(1), "failed", "download"), Outcome(Self.sign(1), "failed", "download")
            ])
    }

    @Test(arguments: [400, 413, 422])
    func aRefusedBatchIsDroppedAndNeverSentAgain(status: Int) async throws {
        let catcher = try ReportCatcher()
        catcher.answer(status)
        let scratch = try ScratchDirectory(prefix: "livery-kit-reports")
        let client = try Self.launch(catcher.url, scratch.path + "/app")
        client.record(Self.sign(1), stage: .unpack)
        let delivery = await client.sendReports()
        #expect(delivery == .refused(count: 1, status: status, message: "invalid: reports[0].stage: unknown"))
        #expect(client.pendingReports.isEmpty)
        client.record(Self.sign(1), stage: .unpack)
        #expect(client.pendingReports.isEmpty, "a refused outcome is not queued again")
        catcher.answer(202)
        let relaunched = try Self.launch(catcher.url, scratch.path + "/app")
        let relaunchedSend = await relaunched.sendReports()
        #expect(relaunchedSend == .notSent)
        #expect(catcher.posts.count == 1)
    }

    @Test func aRequestCarriesAtMost64ReportsAnd16KiBAndTheQueueDropsItsOldest() async throws {
        var queue = StoredReports()
        for number in 0..<300 {
            _ = queue.record(OutcomeReport(skinSign: Self.sign(number), stage: .download, at: Date()))
        }
        #expect(queue.pending.count == StoredReports.pendingLimit)
        #expect(queue.pending.first?.skinSign == Self.sign(300 - StoredReports.pendingLimit), "the oldest are dropped")
        let batch = try #require(queue.batch(app: "kit", platform: "ios", appVersion: "7.2.0"))
        #expect(batch.reports.count == 64 && batch.body.count <= 16 * 1024)
        #expect(batch.reports.first?.skinSign == Self.sign(300 - StoredReports.pendingLimit))
        // Longer reports (the queue does not judge signs): fewer of them, never more than 16 KiB.
        var long = StoredReports()
        for number in 0..<64 {
            _ = long.record(
                OutcomeReport(skinSign: String(repeating: "s", count: 300) + String(number), stage: .config, at: Date())
            )
        }
        let trimmed = try #require(long.batch(app: "kit", platform: "ios", appVersion: "7.2.0"))
        #expect(trimmed.body.count <= 16 * 1024 && trimmed.reports.count < 64 && trimmed.reports.count > 32)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(trimmed.body)) as? [String: Any])
        #expect((decoded["reports"] as? [Any])?.count == trimmed.reports.count)

        // Over the wire: 100 reports go in two launches, 64 then 36.
        let catcher = try ReportCatcher()
        let scratch = try ScratchDirectory(prefix: "livery-kit-reports")
        let client = try Self.launch(catcher.url, scratch.path + "/app")
        for number in 0..<100 { client.record(Self.sign(number), stage: nil) }
        let firstLaunch = await client.sendReports()
        #expect(firstLaunch == .delivered(count: 64))
        let relaunched = try Self.launch(catcher.url, scratch.path + "/app")
        let secondLaunch = await relaunched.sendReports()
        #expect(secondLaunch == .delivered(count: 36))
        #expect(try catcher.reports().map(\.sign) == (0..<100).map(Self.sign))
        #expect(catcher.posts.allSatisfy { $0.body.count <= 16 * 1024 })
    }

    @Test func reportsTurnedOffRecordAndSendNothing() async throws {
        let catcher = try ReportCatcher()
        let scratch = try ScratchDirectory(prefix: "livery-kit-reports")
        let client = try LiveryClient(
            configuration: LiveryConfiguration(
                serverURL: try #require(URL(string: catcher.url)), appID: "kit", platform: .ios, appVersion: "7.2.0",
                storage: URL(fileURLWithPath: scratch.path + "/app", isDirectory: true), reportsOutcomes: false))
        client.record(Self.sign(1), stage: nil)
        try await client.refresh()
        let sent = await client.sendReports()
        #expect(sent == .notSent)
        #expect(catcher.posts.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/app/reports.json"))
    }

    // MARK: - livery-phone against livery serve

    @Test func livePhoneReportsAppliedAndACrashAtTheNextLaunch() async throws {
        let stage = try await Stage.make()
        let catcher = try ReportCatcher(upstreamPort: stage.server.port)
        let phone = stage.phone(url: catcher.url)
        let first = try await phone.run()
        #expect(first.status == 0 && first.line["reported"] as? Int == 1, "\(first)")
        #expect(try catcher.reports() == [Outcome(first.skinSign, "applied")])

        try await stage.releaseNewVersion(marker: "A2")
        let crashed = try await phone.run(["--crash-before-applied"])
        #expect(crashed.status == 3 && crashed.skinSign != first.skinSign, "\(crashed)")
        #expect(crashed.line["reported"] as? Int == 0)
        #expect(catcher.posts.count == 1, "an app that dies while drawing sends nothing")

        let next = try await phone.run()
        #expect(next.errorCode == "blocked" && next.skinSign == first.skinSign, "\(next)")
        #expect(next.line["reported"] as? Int == 1)
        #expect(
            try catcher.reports() == [Outcome(first.skinSign, "applied"), Outcome(crashed.skinSign, "failed", "crash")])
        let again = try await phone.run()
        #expect(again.line["reported"] as? Int == 0 && catcher.posts.count == 2, "each outcome once: \(again)")

        // A send that fails keeps the skin and the report; the next launch delivers it.
        catcher.answer(503, retryAfter: 0, body: "busy")
        var unlucky = phone
        unlucky.storage = stage.workspace.root + "/unlucky"
        let kept = try await unlucky.run()
        #expect(kept.status == 0 && kept.skinSign == crashed.skinSign && kept.line["error"] is NSNull, "\(kept)")
        #expect(kept.line["reported"] as? Int == 0 && kept.standardError.contains("kept for a later launch"), "\(kept)")
        catcher.answer(202)
        let delivered = try await unlucky.run()
        #expect(delivered.line["reported"] as? Int == 1, "\(delivered)")
        #expect(
            try catcher.reports().suffix(2) == [
                Outcome(crashed.skinSign, "applied"), Outcome(crashed.skinSign, "applied")
            ])

        var quiet = phone
        quiet.storage = stage.workspace.root + "/quiet"
        let unreported = try await quiet.run(["--no-reports"])
        #expect(unreported.status == 0 && unreported.line["reported"] as? Int == 0, "\(unreported)")
        #expect(catcher.posts.count == 4)
    }

    @Test func aPackageThatFailsIsReportedAtItsStage() async throws {
        let stage = try await Stage.make(signed: false)
        let catcher = try ReportCatcher(upstreamPort: stage.server.port)
        let phone = stage.phone(url: catcher.url)
        let first = try await phone.run()
        #expect(first.status == 0 && first.line["reported"] as? Int == 1, "\(first)")
        try await stage.releaseNewVersion(marker: "A2")

        let notAZip = Array("this is not a zip archive, only text".utf8)
        let noConfig = RawZip(entries: [.stored("other.txt", [1])]).build()
        let cases: [(stage: String, code: String, package: @Sendable ([UInt8]) -> [UInt8]?, vouch: Bool)] = [
            ("verify", "hash", { body in body.isEmpty ? body : [body[0] ^ 0xFF] + Array(body.dropFirst()) }, false),
            ("download", "server", { _ in nil }, false),
            ("unpack", "zip", { _ in notAZip }, true),
            ("config", "config", { _ in noConfig }, true)
        ]
        var failedSign = ""
        for (expected, code, package, vouch) in cases {
            catcher.proxy.setRule { request, response in
                if request.path.hasPrefix("/api/v1/packages/") {
                    guard let bytes = package(response.body) else {
                        return .send(TamperingProxy.Response(status: 404, headers: [], body: []))
                    }
                    return .send(TamperingProxy.Response(status: 200, headers: [("ETag", "\"other\"")], body: bytes))
                }
                guard vouch, request.path.hasPrefix("/api/v1/catalog"), response.status == 200,
                    let bytes = package([])
                else { return .send(response) }
                // The unsigned catalog vouches for the hostile bytes, so only the zip and config checks stand.
                let digest = SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
                var changed = response
                changed.body = Array(
                    String(decoding: response.body, as: UTF8.self).replacingOccurrences(
                        of: #""sha256":"[0-9a-f]{64}","size":[0-9]+"#,
                        with: #""sha256":"\#(digest)","size":\#(bytes.count)"#,
                        options: .regularExpression
                    ).utf8)
                changed.setHeader("ETag", nil)
                return .send(changed)
            }
            let run = try await phone.run()
            #expect(run.status == 1 && run.errorCode == code && run.skinSign == first.skinSign, "\(expected): \(run)")
            #expect(run.line["reported"] as? Int == 1, "\(expected): \(run)")
            let last = try #require(try catcher.reports().last)
            #expect(last.outcome == "failed" && last.stage == expected && last.sign != first.skinSign, "\(last)")
            if failedSign.isEmpty { failedSign = last.sign }
            #expect(last.sign == failedSign, "every failure names the new version's sign")
        }
        catcher.proxy.setRule { .send($1) }
        let fixed = try await phone.run()
        #expect(fixed.status == 0 && fixed.skinSign == failedSign && fixed.line["reported"] as? Int == 1, "\(fixed)")
        #expect(try catcher.reports().last == Outcome(failedSign, "applied"))
    }
}

/// Outcome reports against the real `livery serve` with its report ledger: what `livery health` counts.
@Suite(.serialized) struct ReportServerTests {
    typealias Outcome = ReportCatcher.Outcome

    /// Version `version` of `kit-a` in `livery health kit-a --json`.
    static func health(_ stage: Stage, version: Int) async throws -> [String: Any] {
        let answer = try await stage.server.admin(["health", "kit-a", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(answer.standardOutput.utf8)) as? [String: Any]
        let versions = object?["versions"] as? [[String: Any]] ?? []
        guard let found = versions.first(where: { $0["version"] as? Int == version }) else {
            throw KitTestError("no version \(version) in \(answer.standardOutput)")
        }
        return found
    }

    @Test func appliedAndFailedOutcomesArriveAndAreCountedOnce() async throws {
        let stage = try await Stage.make()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)
        // The server records the first report request, but its 202 is lost on the way back: the phone keeps the
        // report and sends it again at its next launch.
        proxy.setRule { request, response in
            guard request.path.hasPrefix("/api/v1/reports"), response.status == 202 else { return .send(response) }
            return .send(TamperingProxy.Response(status: 502, headers: [], body: []))
        }
        let first = try await phone.run()
        #expect(first.status == 0 && first.line["reported"] as? Int == 0, "\(first)")
        #expect(first.standardError.contains("kept for a later launch"), "\(first)")
        proxy.setRule { .send($1) }
        let resent = try await phone.run()
        #expect(resent.line["reported"] as? Int == 1, "\(resent)")

        try await stage.releaseNewVersion(marker: "A2")
        let crashed = try await phone.run(["--crash-before-applied"])
        #expect(crashed.status == 3 && crashed.skinSign != first.skinSign, "\(crashed)")
        let next = try await phone.run()
        #expect(next.errorCode == "blocked" && next.line["reported"] as? Int == 1, "\(next)")
        var other = phone
        other.storage = stage.workspace.root + "/other"
        other.deviceID = "device-2"
        let applied = try await other.run()
        #expect(applied.skinSign == crashed.skinSign && applied.line["reported"] as? Int == 1, "\(applied)")

        let one = try await Self.health(stage, version: 1)
        #expect(one["applied"] as? Int == 1 && one["failed"] as? Int == 0, "sent twice, counted once: \(one)")
        let two = try await Self.health(stage, version: 2)
        #expect(two["applied"] as? Int == 1 && two["failed"] as? Int == 1, "\(two)")
        #expect((two["failedByStage"] as? [String: Any])?["crash"] as? Int == 1, "\(two)")
        #expect(proxy.requests.filter { $0.path.hasPrefix("/api/v1/reports") }.count == 4)
    }
}
