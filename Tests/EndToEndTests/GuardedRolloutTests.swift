import Foundation
import HTTPTestSupport
import LiveryHTTP
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 26's whole loop on three replicas over one PostgreSQL: phones report, the figures cross the release's guard,
/// exactly one replica's write pauses the release, every replica stops serving it, the webhook is called once with
/// a signature `openssl` agrees with, and a person resumes it.
@Suite(.postgresServer, .hangGuard) struct GuardedRolloutTests {
    /// What the webhook receiver (an HTTP server on 127.0.0.1) got.
    final class Hook: Sendable {
        let calls = Mutex<[HTTPRequest]>([])
    }

    static let secret = "hook-secret-for-the-test"

    @Test func failuresOnOnePlatformPauseTheReleaseOnceAndAPersonResumesIt() async throws {
        let hook = Hook()
        let receiver = try TestServer.start(routes: { (router: Router) in
            router.on(
                .post, "/hooks/livery",
                HTTPHandler.sync { request in
                    hook.calls.withLock { $0.append(request) }
                    return .json(.ok, Array(#"{"ok":true}"#.utf8))
                })
        })
        defer { Task { await receiver.stop() } }

        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let workspace = try Replicas.workspace(releasing: "tiny")
        let secretFile = workspace.root + "/hook.secret"
        try Data((Self.secret + "\n").utf8).write(to: URL(fileURLWithPath: secretFile))
        let environment = [
            "LIVERY_NOTIFY_URL": "http://127.0.0.1:\(receiver.port)/hooks/livery",
            "LIVERY_NOTIFY_SECRET_FILE": secretFile,
            // 500 phones from one test address: the address limit is a rate, raised here as behind a proxy.
            "LIVERY_REPORT_ADDRESS_RATE": "100000"
        ]
        let uri = server.uri(database: database)
        let replicas = try (0..<3).map { _ in
            try Replicas.start(store: uri, workspace: workspace, environment: environment)
        }
        defer { for replica in replicas { _ = try? replica.stop(signal: SIGTERM) } }
        for replica in replicas { try await replica.waitUntilReady() }
        let ios = try Reports.sign(port: replicas[0].port)
        let android = try Self.sign(port: replicas[0].port, platform: "android")

        // One device flooding failure reports at every replica counts once: 1 device is under minDevices (50).
        for round in 0..<6 {
            for replica in replicas {
                let response = try Reports.post(
                    replica.port, Reports.batch(device: "flood", [(ios, "failed", "crash")]))
                #expect([202, 429].contains(response.status), "round \(round): \(response.text)")
            }
        }
        #expect(try Reports.figures(replicas[1].port).failed == 1)
        #expect(try Self.paused(replicas[2].port) == nil, "one device can never pause a release")

        // 500 phones, half on each platform, spread over the replicas; 30 % of the Android ones fail to unpack.
        for index in 0..<500 {
            let onAndroid = index % 2 == 1
            let fails = onAndroid && (index / 2) % 10 < 3
            let report = fails ? (android, "failed", "unpack") : (onAndroid ? android : ios, "applied", nil)
            let response = try Reports.post(
                replicas[index % 3].port,
                Reports.batch(device: "phone-\(index)", [report], platform: onAndroid ? "android" : "ios"))
            #expect(response.status == 202, "\(index): \(response.text)")
        }

        // The pause reaches every replica: GET shows it, and no phone is served the skin.
        for replica in replicas {
            #expect(
                try await eventually(within: .seconds(30)) { (try? Self.paused(replica.port)) != nil },
                "paused on \(replica.port)")
            #expect(
                try await eventually(within: .seconds(10)) { (try? AdminCLITests.polledSkin(replica.port)) == "" },
                "replica \(replica.port) still serves: \((try? TestClient(port: replica.port, timeout: 10).get(Replicas.poll).text) ?? "")"
            )
        }
        let pause = try #require(try Self.paused(replicas[0].port))
        #expect(pause["action"] as? String == "pause" && pause["rollout"] as? Int == 100, "\(pause)")
        let figures = try #require(pause["figures"] as? [String: Any])
        #expect((figures["reportingDevices"] as? Int ?? 0) >= 50, "\(figures)")
        #expect((figures["failedDevices"] as? Int ?? 0) > 0, "\(figures)")

        // Exactly one replica's trip committed: one audit entry by livery:guard, one trip counted, one webhook call.
        var trips = 0.0
        for replica in replicas {
            trips +=
                try MetricsEndpointTests.scrape(port: replica.port).value(
                    "livery_guard_trips_total", ["action": "pause"]) ?? 0
        }
        #expect(trips == 1)
        #expect(try await eventually(within: .seconds(30)) { hook.calls.withLock { $0.count } >= 1 })
        try await Task.sleep(for: .seconds(1))  // a second call, were there one, would have come by now
        let calls = hook.calls.withLock { $0 }
        #expect(calls.count == 1, "one webhook call for one trip, from the replica whose write committed")
        let call = try #require(calls.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(call.body)) as? [String: Any])
        #expect(
            body["skin"] as? String == "tiny" && body["version"] as? Int == 1 && body["action"] as? String == "pause")
        #expect(body["id"] is Int && (body["text"] as? String)?.contains("tiny") == true, "\(body)")
        // The signature, checked by an independent HMAC: openssl over the exact bytes received.
        let bodyFile = workspace.root + "/hook-body.json"
        try Data(call.body).write(to: URL(fileURLWithPath: bodyFile))
        let openssl = try await ExternalProcess.run(
            "openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "key:\(Self.secret)", "-hex", bodyFile])
        let digest = try #require(openssl.standardOutput.split(separator: " ").last).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(call.headers["livery-signature-hmac"] == "sha256=" + digest, "\(openssl.standardOutput)")

        // A person resumes: the rollout from before is served again on every replica.
        let env = ["LIVERY_TOKEN": AdminWorkspace.editorToken, "LIVERY_SERVER": "http://127.0.0.1:\(replicas[1].port)"]
        let resumed = try await LiveryProcess.run(["release", "tiny", "--resume"], environment: env)
        #expect(resumed.status == 0, "\(resumed.output)")
        for replica in replicas {
            #expect(
                try await eventually(within: .seconds(10)) {
                    (try? AdminCLITests.polledSkin(replica.port)) == "tiny"
                })
        }
        #expect(try Self.paused(replicas[2].port) == nil)
    }

    /// `release.paused` of `tiny` as GET shows it on the replica at `port`, or nil.
    static func paused(_ port: Int) throws -> [String: Any]? {
        let (status, object) = try AdminCall(port: port, token: AdminWorkspace.viewerToken).json(
            "GET", "/admin/v1/skins/tiny")
        guard status == 200 else { throw E2EError(description: "GET answered \(status): \(object)") }
        return (object["release"] as? [String: Any])?["paused"] as? [String: Any]
    }

    /// The sign a poll on `platform` hands out for `demo`.
    static func sign(port: Int, platform: String) throws -> String {
        let response = try TestClient(port: port, timeout: 10).get(
            "/api/v1/skin?app=demo&platform=\(platform)&appVersion=7.0.0")
        guard let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let sign = body["skinSign"] as? String, !sign.isEmpty
        else { throw E2EError(description: "no sign for \(platform) in \(response.text)") }
        return sign
    }
}
