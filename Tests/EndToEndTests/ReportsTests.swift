import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Phones' reports (`POST /api/v1/reports`, issue 26) on the real binary: untrusted input checked field by field,
/// counted once per device, rate limited, kept across restarts and crashes, and the same on every replica.
@Suite(.hangGuard) struct ReportsTests {
    @Test func reportsAreCheckedCountedOnceAndKeptAcrossARestart() async throws {
        try await blocking {
            let workspace = try Replicas.workspace(releasing: "tiny")
            var livery = try Reports.serve(workspace)
            let sign = try Reports.sign(port: livery.port)

            // Bad input gets a 4xx naming the field, never a 5xx.
            let missingStage = try Reports.post(
                livery.port,
                Reports.batch(device: "phone-1", [(sign, "applied", nil), (sign, "failed", nil)]))
            #expect(
                missingStage.status == 422 && Reports.field(missingStage) == "reports[1].stage", "\(missingStage.text)")
            let notJSON = try Reports.post(livery.port, "{\"app\":")
            #expect(notJSON.status == 400 && Reports.field(notJSON) == "body", "\(notJSON.text)")
            let text = try Reports.post(
                livery.port, Reports.batch(device: "phone-1", [(sign, "applied", nil)]), type: "text/plain")
            #expect(text.status == 415 && Reports.field(text) == "Content-Type", "\(text.text)")
            let tooMany = try Reports.post(
                livery.port, Reports.batch(device: "phone-1", Array(repeating: (sign, "applied", nil), count: 65)))
            #expect(tooMany.status == 422 && Reports.field(tooMany) == "reports", "\(tooMany.text)")
            let local = try Reports.post(
                livery.port, Reports.batch(device: "phone-1", [(sign, "applied", nil)], at: "2026-12-24T18:00:00+08:00")
            )
            #expect(local.status == 422 && Reports.field(local) == "reports[0].at", "\(local.text)")
            let platform = try Reports.post(
                livery.port, Reports.batch(device: "phone-1", [(sign, "applied", nil)], platform: "palm"))
            #expect(platform.status == 422 && Reports.field(platform) == "platform", "\(platform.text)")
            let huge = try Reports.post(livery.port, "{\"pad\":\"" + String(repeating: "x", count: 17_000) + "\"}")
            #expect(huge.status == 413, "\(huge.text)")

            // Unknown signs are ignored, not errors; a device counts once per sign and outcome.
            let first = try Reports.post(
                livery.port,
                Reports.batch(device: "phone-1", [(sign, "applied", nil), ("0123456789abcdef", "applied", nil)]))
            #expect(first.status == 202 && first.text == #"{"accepted":1,"ignored":1}"#, "\(first.text)")
            let again = try Reports.post(livery.port, Reports.batch(device: "phone-1", [(sign, "applied", nil)]))
            #expect(again.status == 202 && again.text == #"{"accepted":1,"ignored":0}"#, "\(again.text)")
            let failed = try Reports.post(livery.port, Reports.batch(device: "phone-2", [(sign, "failed", "unpack")]))
            #expect(failed.status == 202, "\(failed.text)")
            // Many phones behind one address, each under its own rate, all count.
            for index in 0..<40 {
                let response = try Reports.post(
                    livery.port, Reports.batch(device: "nat-\(index)", [(sign, "applied", nil)]))
                #expect(response.status == 202, "\(index): \(response.text)")
            }

            let expected = Reports.Figures(applied: 41, failed: 1, unpack: 1)
            #expect(try Reports.figures(livery.port) == expected)
            // Per platform and app version, hour by hour; beside them the guard in force (the standard one) and no pause.
            let (_, health) = try AdminCall(port: livery.port, token: AdminWorkspace.viewerToken).json(
                "GET", "/admin/v1/skins/tiny/health")
            let version = try #require((health["versions"] as? [[String: Any]])?.first)
            let ios = try #require((version["byPlatform"] as? [String: Any])?["ios"] as? [String: Any])
            let app = try #require((ios["byAppVersion"] as? [String: Any])?["7.0.0"] as? [String: Any])
            #expect(app["applied"] as? Int == 41 && app["failed"] as? Int == 1)
            let series = try #require(version["series"] as? [[String: Any]])
            #expect(series.map { $0["applied"] as? Int ?? 0 }.reduce(0, +) == 41)
            #expect(series.allSatisfy { ($0["at"] as? String)?.hasSuffix(":00:00Z") == true }, "\(series)")
            let rule = try #require(health["guard"] as? [String: Any], "\(health)")
            #expect(rule["minDevices"] as? Int == 50 && rule["action"] as? String == "pause", "\(rule)")
            #expect(health["paused"] is NSNull, "\(health)")
            let metrics = try MetricsEndpointTests.scrape(port: livery.port)
            #expect(
                try metrics.value("livery_skin_reports_total", ["skin": "tiny", "outcome": "applied", "stage": "none"])
                    == 41)
            #expect(
                try metrics.value("livery_skin_reports_total", ["skin": "tiny", "outcome": "failed", "stage": "unpack"])
                    == 1)

            let env = ["LIVERY_TOKEN": AdminWorkspace.viewerToken, "LIVERY_SERVER": "http://127.0.0.1:\(livery.port)"]
            let table = try LiveryProcess.run(["health", "tiny"], environment: env)
            #expect(table.status == 0 && table.output.contains("v1") && table.output.contains("41"), "\(table.output)")
            #expect(table.output.contains("unpack=1") && table.output.contains("ios"), "\(table.output)")
            let raw = try LiveryProcess.run(["health", "tiny", "--json"], environment: env)
            #expect(raw.status == 0 && raw.output.contains(#""failedByStage""#), "\(raw.output)")
            #expect(try LiveryProcess.run(["health", "nothing"], environment: env).status == 1)

            // A restart loses no count, and what was counted stays counted.
            #expect(try livery.stop(signal: SIGTERM) == 0)
            livery = try Reports.serve(workspace)
            #expect(try Reports.figures(livery.port) == expected)
            let repeated = try Reports.post(livery.port, Reports.batch(device: "phone-1", [(sign, "applied", nil)]))
            #expect(repeated.status == 202)
            #expect(try Reports.figures(livery.port) == expected)
            _ = try livery.stop(signal: SIGTERM)
        }
    }

    @Test func aFloodingDeviceAndAnAddressPastItsRateGet429WithRetryAfter() async throws {
        try await blocking {
            let workspace = try Replicas.workspace(releasing: "tiny")
            let livery = try Reports.serve(
                workspace, ["LIVERY_REPORT_DEVICE_RATE": "3", "LIVERY_REPORT_ADDRESS_RATE": "2"])
            let sign = try Reports.sign(port: livery.port)

            // One device sending failures over and over: its fourth request is refused, and it counted once.
            var answers: [Int] = []
            for _ in 0..<4 {
                let response = try Reports.post(
                    livery.port, Reports.batch(device: "flood", [(sign, "failed", "crash")]))
                answers.append(response.status)
                if response.status == 429 {
                    #expect(
                        Reports.field(response) == "deviceId" && Int(response.header("Retry-After") ?? "") ?? 0 >= 1)
                }
            }
            #expect(answers == [202, 202, 202, 429])

            // Distinct devices from one address past 2 a second (bursts of 20): refused naming the address.
            var refused: TestResponse?
            var accepted = 0
            for index in 0..<80 where refused == nil {
                let response = try Reports.post(
                    livery.port, Reports.batch(device: "nat-\(index)", [(sign, "applied", nil)]))
                if response.status == 429 { refused = response } else if response.status == 202 { accepted += 1 }
            }
            let limited = try #require(refused, "80 requests at once stay under 2 a second with bursts of 20")
            #expect(
                Reports.field(limited) == "address" && Int(limited.header("Retry-After") ?? "") ?? 0 >= 1,
                "\(limited.text)"
            )
            #expect(try Reports.figures(livery.port) == Reports.Figures(applied: accepted, failed: 1, crash: 1))
            _ = try livery.stop(signal: SIGTERM)
        }
    }

    @Test func aServerKilledMidReportLosesNoAcknowledgedReport() async throws {
        try await blocking {
            let workspace = try Replicas.workspace(releasing: "tiny")
            var livery = try Reports.serve(workspace, ["LIVERY_REPORT_ADDRESS_RATE": "100000"])
            let sign = try Reports.sign(port: livery.port)
            let port = livery.port
            let acknowledged = SharedCount()
            let sent = SharedCount()
            // Four senders stream reports of distinct devices until the server dies under them.
            let senders = (0..<4).map { sender in
                Thread {
                    for index in 0..<10_000 {
                        sent.add()
                        guard
                            let response = try? Reports.post(
                                port, Reports.batch(device: "s\(sender)-\(index)", [(sign, "applied", nil)]), timeout: 5
                            )
                        else { return }
                        if response.status == 202 { acknowledged.add() } else { return }
                    }
                }
            }
            senders.forEach { $0.start() }
            #expect(AdminServeTests.eventually(seconds: 90) { acknowledged.value >= 100 })
            kill(livery.processIdentifier, SIGKILL)
            _ = try livery.waitForExit(seconds: 20)
            #expect(AdminServeTests.eventually(seconds: 30) { senders.allSatisfy { $0.isFinished } })

            livery = try Reports.serve(workspace)
            let counted = try Reports.figures(livery.port).applied
            let (acked, attempted) = (acknowledged.value, sent.value)
            #expect(counted >= acked, "every acknowledged report survives: \(counted) counted, \(acked) acknowledged")
            #expect(counted <= attempted)
            _ = try livery.stop(signal: SIGTERM)
        }
    }
}

/// Three replicas on one PostgreSQL count the same reports once, see the same figures, and keep them across a
/// restart.
@Suite(.postgresServer, .hangGuard) struct ReportsReplicaTests {
    @Test func threeReplicasCountEachDeviceOnceAndAgreeOnTheFigures() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let workspace = try Replicas.workspace(releasing: "tiny")
        let uri = server.uri(database: database)
        var replicas = try (0..<3).map { _ in try Replicas.start(store: uri, workspace: workspace) }
        for replica in replicas { try await replica.waitUntilReady() }
        let sign = try Reports.sign(port: replicas[0].port)

        // Every device reports to every replica; a third of them failed.
        for index in 0..<30 {
            let report = index % 3 == 0 ? (sign, "failed", "verify") : (sign, "applied", nil)
            for replica in replicas {
                let response = try Reports.post(replica.port, Reports.batch(device: "phone-\(index)", [report]))
                #expect(response.status == 202, "\(response.text)")
            }
        }
        let expected = Reports.Figures(applied: 20, failed: 10, verify: 10)
        for replica in replicas { #expect(try Reports.figures(replica.port) == expected) }

        // A replica restarted reads them back from PostgreSQL.
        _ = try await replicas[2].stop(signal: SIGTERM)
        replicas[2] = try Replicas.start(store: uri, workspace: workspace)
        try await replicas[2].waitUntilReady()
        #expect(try Reports.figures(replicas[2].port) == expected)
        for replica in replicas { _ = try await replica.stop(signal: SIGTERM) }
    }

    @Test func aReplicaKilledMidReportLosesNoAcknowledgedReport() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let workspace = try Replicas.workspace(releasing: "tiny")
        let uri = server.uri(database: database)
        let unlimited = ["LIVERY_REPORT_ADDRESS_RATE": "100000"]
        let victim = try Replicas.start(store: uri, workspace: workspace, environment: unlimited)
        let witness = try Replicas.start(store: uri, workspace: workspace, environment: unlimited)
        defer { _ = try? witness.stop(signal: SIGTERM) }
        for replica in [victim, witness] { try await replica.waitUntilReady() }
        let sign = try Reports.sign(port: victim.port)
        let port = victim.port
        let acknowledged = SharedCount()
        // Four senders stream reports of distinct devices to one replica until it dies under them.
        let senders = (0..<4).map { sender in
            Thread {
                for index in 0..<10_000 {
                    guard
                        let response = try? Reports.post(
                            port, Reports.batch(device: "s\(sender)-\(index)", [(sign, "applied", nil)]), timeout: 5)
                    else { return }
                    if response.status == 202 { acknowledged.add() } else { return }
                }
            }
        }
        for sender in senders { sender.start() }
        #expect(try await eventually(within: .seconds(90)) { acknowledged.value >= 100 })
        kill(victim.processIdentifier, SIGKILL)
        _ = try await victim.waitForExit(seconds: 20)
        #expect(try await eventually(within: .seconds(30)) { senders.allSatisfy { $0.isFinished } })

        // Another replica reads every acknowledged report back from PostgreSQL.
        let counted = try Reports.figures(witness.port).applied
        let acked = acknowledged.value
        #expect(counted >= acked, "every acknowledged report survives: \(counted) counted, \(acked) acknowledged")
    }
}

/// A count shared by sender threads.
final class SharedCount: @unchecked Sendable {
    // Invariant: `count` is touched only under `lock`.
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Helpers of the report tests.
enum Reports {
    /// Starts `livery serve` on the workspace (file store in its data folder) and waits until it is ready.
    static func serve(_ workspace: AdminWorkspace, _ environment: [String: String] = [:]) throws -> LiveryProcess {
        let livery = try LiveryProcess.start(
            ["serve", "--host", "127.0.0.1", "--port", "0"],
            environment: workspace.environment.merging(environment) { $1 })
        try livery.waitUntilReady()
        return livery
    }

    /// The sign a poll hands out for `demo` on iOS.
    static func sign(port: Int) throws -> String {
        let response = try TestClient(port: port, timeout: 10).get(Replicas.poll)
        guard let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let sign = body["skinSign"] as? String, !sign.isEmpty
        else { throw E2EError(description: "no sign in \(response.text)") }
        return sign
    }

    static func batch(
        device: String, _ reports: [(sign: String, outcome: String, stage: String?)], platform: String = "ios",
        at: String = "2026-12-24T18:00:00Z"
    ) -> String {
        let items = reports.map { report in
            let stage = report.stage.map { #","stage":"\#($0)""# } ?? ""
            return #"{"skinSign":"\#(report.sign)","outcome":"\#(report.outcome)"\#(stage),"at":"\#(at)"}"#
        }
        return
            #"{"app":"demo","platform":"\#(platform)","appVersion":"7.0.0","deviceId":"\#(device)","reports":[\#(items.joined(separator: ","))]}"#
    }

    static func post(
        _ port: Int, _ body: String, type: String = "application/json", timeout: Double = 10
    ) throws -> TestResponse {
        try TestClient(port: port, timeout: timeout).request(
            "POST", "/api/v1/reports", headers: [("Content-Type", type)], body: Array(body.utf8))
    }

    /// `error.details.field` of an error answer.
    static func field(_ response: TestResponse) -> String? {
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return ((object?["error"] as? [String: Any])?["details"] as? [String: Any])?["field"] as? String
    }

    struct Figures: Equatable {
        var applied = 0
        var failed = 0
        var byStage: [String: Int] = [:]

        init(applied: Int, failed: Int, unpack: Int = 0, crash: Int = 0, verify: Int = 0) {
            self.applied = applied
            self.failed = failed
            for (stage, count) in [("unpack", unpack), ("crash", crash), ("verify", verify)] where count > 0 {
                byStage[stage] = count
            }
        }
    }

    /// Version 1's figures from `GET /admin/v1/skins/tiny/health`.
    static func figures(_ port: Int) throws -> Figures {
        let (status, object) = try AdminCall(port: port, token: AdminWorkspace.viewerToken).json(
            "GET", "/admin/v1/skins/tiny/health")
        guard status == 200, let versions = object["versions"] as? [[String: Any]] else {
            throw E2EError(description: "health answered \(status): \(object)")
        }
        guard let version = versions.first(where: { $0["version"] as? Int == 1 }) else {
            return Figures(applied: 0, failed: 0)
        }
        var figures = Figures(applied: version["applied"] as? Int ?? -1, failed: version["failed"] as? Int ?? -1)
        figures.byStage = version["failedByStage"] as? [String: Int] ?? [:]
        return figures
    }
}
