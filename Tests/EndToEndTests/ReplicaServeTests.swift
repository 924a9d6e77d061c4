import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Several `livery serve --store postgres://…` replicas on one real PostgreSQL: the first start imports the skins
/// folder once, every replica serves byte-identical packages, a change made through one is served by the others
/// within 1 s, and the password is never printed.
@Suite(.postgresServer, .hangGuard) struct ReplicaServeTests {
    @Test func twoReplicasStartedTogetherImportOnceServeTheSamePackagesAndNeverPrintThePassword() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let password = "rep1ica:s3cret"
        let uri = try await Replicas.passwordURI(server, database: database, password: password)
        let workspace = try AdminWorkspace()
        let skins = ["alpha", "beta", "gamma"]
        for (index, id) in skins.enumerated() {
            try AdminWorkspace.write(
                AdminWorkspace.tinySkin(id: id, marker: id, release: #"{"priority": \#(index), \#(Replicas.window)}"#),
                into: workspace.skins + "/" + id)
        }

        // The second replica reads the password from a file (a mounted secret), its URI holding none.
        let passwordFile = workspace.root + "/pg-password"
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        let bareURI = uri.replacingOccurrences(
            of: ":" + (password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password) + "@",
            with: "@")
        #expect(bareURI != uri)
        try await blocking {
            let first = try Replicas.start(store: uri, workspace: workspace)
            let second = try Replicas.start(
                store: bareURI, workspace: workspace, environment: ["LIVERY_STORE_PASSWORD_FILE": passwordFile])
            try AdminCall(port: first.port).waitUntilReady()
            try AdminCall(port: second.port).waitUntilReady()

            // Both serve the highest priority skin, with the same sign and byte-identical packages.
            let answers = try [first.port, second.port].map { port in
                let response = try TestClient(port: port).get(Replicas.poll)
                let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                return (object ?? [:]).compactMapValues { $0 as? String }
            }
            #expect(answers[0]["skinId"] == "gamma" && answers[1]["skinId"] == "gamma", "\(answers)")
            #expect(answers[0]["skinSign"] == answers[1]["skinSign"])
            let packageURL = try #require(answers[0]["packageUrl"])
            let packages = try [first.port, second.port].map { try TestClient(port: $0).get(packageURL) }
            #expect(packages.allSatisfy { $0.status == 200 } && packages[0].body == packages[1].body)

            for livery in [first, second] {
                #expect(!livery.output.contains(password) && !livery.output.contains("s3cret"), "\(livery.output)")
                #expect(try livery.stop(signal: SIGTERM) == 0)
            }
        }
        // Each skin was imported exactly once, by one replica.
        let imports = try await server.psql(
            "SELECT skin_id FROM livery_audit WHERE actor = 'livery:import' ORDER BY skin_id", database: database)
        #expect(imports.split(separator: "\n").map(String.init) == skins)
    }

    @Test func aChangeThroughOneReplicaIsServedByTheOtherWithinOneSecond() async throws {
        let server = try PostgresServer.forSuite()
        let uri = server.uri(database: try await server.createDatabase())
        let workspace = try AdminWorkspace()
        try await blocking {
            let first = try Replicas.start(store: uri, workspace: workspace)
            let second = try Replicas.start(store: uri, workspace: workspace)
            let (admin, other) = (AdminCall(port: first.port), AdminCall(port: second.port))
            try admin.waitUntilReady()
            try other.waitUntilReady()
            #expect(Replicas.polledSkin(port: second.port) == "")

            // The answering replica serves the change when it answers; the other within 1 s (checked at 5 s: the test
            // run's load stretches it).
            try Replicas.pushAndRelease(admin, id: "winter", marker: "w1")
            #expect(Replicas.polledSkin(port: first.port) == "winter")
            let served = Replicas.timeUntilServed("winter", port: second.port, within: 10)
            #expect(served.map { $0 < 5 } == true, "served after \(served.map { "\($0) s" } ?? "never")")

            // The kill switch, flipped through the other replica, the same way.
            let flipped = try other.send(
                "PUT", "/admin/v1/killswitch", body: Array(#"{"enabled": true, "reason": "e2e"}"#.utf8),
                contentType: "application/json")
            #expect(flipped.status == 200, "\(flipped.text)")
            #expect(Replicas.polledSkin(port: second.port) == "")
            let switched = Replicas.timeUntilServed("", port: first.port, within: 10)
            #expect(switched.map { $0 < 5 } == true, "kill switch after \(switched.map { "\($0) s" } ?? "never")")

            // If-Match across replicas: the first replica's tag is current on the second.
            let tag = try #require(try admin.send("GET", "/admin/v1/skins/winter").header("ETag"))
            #expect(try other.send("GET", "/admin/v1/skins/winter").header("ETag") == tag)
            for livery in [first, second] { #expect(try livery.stop(signal: SIGTERM) == 0) }
        }
    }

    @Test func threeReplicasBehindHAProxyServeEachChangeAndLoseNoneWhenOneIsKilled() async throws {
        let server = try PostgresServer.forSuite()
        let uri = server.uri(database: try await server.createDatabase())
        let workspace = try Replicas.workspace(releasing: "seed")
        try await blocking {
            let replicas = try (0..<3).map { _ in try Replicas.start(store: uri, workspace: workspace) }
            for replica in replicas { try AdminCall(port: replica.port).waitUntilReady() }
            let balancer = try LoadBalancer(backends: replicas.map(\.port))

            // Push and release through one replica: the others serve it within 1 s (checked at 5 s: the test run's load
            // stretches it).
            try Replicas.pushAndRelease(AdminCall(port: replicas[0].port), id: "aurora", marker: "a1", priority: 5)
            for replica in replicas[1...] {
                let served = Replicas.timeUntilServed("aurora", port: replica.port, within: 10)
                #expect(served.map { $0 < 5 } == true, "served after \(served.map { "\($0) s" } ?? "never")")
            }
            // The app's kill switch through another replica: on, then off, seen everywhere within 1 s (checked at 5 s:
            // the test run's load stretches it).
            for (enabled, expected) in [(true, ""), (false, "aurora")] {
                let body = #"{"app": "demo", "enabled": \#(enabled), "reason": "e2e"}"#
                let flipped = try AdminCall(port: replicas[1].port).send(
                    "PUT", "/admin/v1/killswitch", body: Array(body.utf8), contentType: "application/json")
                #expect(flipped.status == 200, "\(flipped.text)")
                for replica in [replicas[0], replicas[2]] {
                    let served = Replicas.timeUntilServed(expected, port: replica.port, within: 10)
                    #expect(
                        served.map { $0 < 5 } == true,
                        "kill switch \(enabled) after \(served.map { "\($0) s" } ?? "never")")
                }
            }

            // Polls and uploads through the balancer while one replica dies with SIGKILL.
            let tally = Tally()
            let traffic = Thread {
                while !tally.isStopped { tally.count(Replicas.polledSkin(port: balancer.port) == "aurora") }
            }
            traffic.start()
            let admin = AdminCall(port: balancer.port)
            var acknowledged: [Int: String] = [:]
            for step in 0..<24 {
                if step == 8 { kill(replicas[2].pid, SIGKILL) }
                let archive = try AdminWorkspace.zip(AdminWorkspace.tinySkin(id: "storm", marker: "m\(step)"))
                guard
                    let upload = try? admin.send(
                        "POST", "/admin/v1/skins", body: archive, contentType: "application/zip"),
                    upload.status == 201,
                    let body = try JSONSerialization.jsonObject(with: Data(upload.body)) as? [String: Any],
                    let version = body["version"] as? Int, let digest = body["digest"] as? String
                else { continue }
                acknowledged[version] = digest
            }
            tally.stop()
            _ = try replicas[2].waitForExit(seconds: 20)
            #expect(acknowledged.count >= 20, "most uploads are acknowledged: \(acknowledged.count)")
            // Every acknowledged version is on both survivors (the one that did not answer it within a second).
            for replica in replicas[..<2] {
                var found: [Int: String] = [:]
                _ = try AdminServeTests.eventually(seconds: 5) {
                    let (_, skin) = try AdminCall(port: replica.port).json("GET", "/admin/v1/skins/storm")
                    for version in (skin["versions"] as? [[String: Any]]) ?? [] {
                        if let number = version["version"] as? Int { found[number] = version["digest"] as? String }
                    }
                    return acknowledged.allSatisfy { found[$0.key] == $0.value }
                }
                for (number, digest) in acknowledged {
                    #expect(found[number] == digest, "acknowledged version \(number) is missing on a replica")
                }
            }
            let (served, failed) = tally.counts
            #expect(served > 0 && failed <= 3, "polls through the balancer: \(served) served, \(failed) failed")
            for replica in replicas[..<2] { #expect(try replica.stop(signal: SIGTERM) == 0) }
            withExtendedLifetime(balancer) {}
        }
    }

    @Test func anUnusableStoreURIStopsTheStartWithoutPrintingIt() async throws {
        let notPostgres = try await blocking {
            try LiveryProcess.run(["serve", "--port", "0", "--store", "mysql://ops:hunter2@db/livery"])
        }
        #expect(notPostgres.status == 2)
        #expect(
            notPostgres.output.contains("--store 'mysql…': the store must be a postgres://"), "\(notPostgres.output)")
        #expect(!notPostgres.output.contains("hunter2"))

        let newer = try PostgresServer.forSuite()
        let database = try await newer.createDatabase()
        let uri = newer.uri(database: database)
        #expect(try await blocking { try LiveryProcess.run(["migrate", "--store", uri]) }.status == 0)
        try await newer.psql("INSERT INTO livery_schema_version (version) VALUES (99)", database: database)
        let refused = try await blocking {
            let livery = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0", "--store", uri])
            return (try livery.waitForExit(seconds: 20), livery.output)
        }
        #expect(refused.0 == 2)
        #expect(refused.1.contains("newer than this binary knows"), "\(refused.1)")
    }
}

/// Replicas whose PostgreSQL goes away: they keep serving what they have, refuse changes with 503
/// `store_unavailable`, say so in `/readyz` (still 200), and catch up within 10 s once it is back. A replica started
/// while PostgreSQL is down answers `not_ready`, never "no skin".
@Suite(.hangGuard) struct ReplicaFaultTests {
    @Test func pollsKeepBeingServedWhilePostgreSQLIsDownAndChangesCatchUpAfter() async throws {
        try await PostgresServer.withServer { server in
            let uri = server.uri()
            let workspace = try Replicas.workspace(releasing: "steady")
            let (first, second) = try await blocking {
                let first = try Replicas.start(store: uri, workspace: workspace)
                let second = try Replicas.start(store: uri, workspace: workspace)
                try AdminCall(port: first.port).waitUntilReady()
                try AdminCall(port: second.port).waitUntilReady()
                return (first, second)
            }
            let (admin, other) = (AdminCall(port: first.port), AdminCall(port: second.port))
            // The package is cached on disk before PostgreSQL goes.
            let answer = try TestClient(port: second.port).get(Replicas.poll)
            let packageURL = try #require(
                (try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["packageUrl"] as? String)

            // Polling traffic on the second replica from before the stop until after the catch-up: every poll is
            // answered 200 with a skin.
            let tally = Tally()
            let traffic = Thread {
                while !tally.isStopped {
                    let skin = Replicas.polledSkin(port: second.port)
                    tally.count(skin == "steady" || skin == "late")
                }
            }
            traffic.start()
            try await server.stop()
            try await blocking {
                #expect(
                    AdminServeTests.eventually(seconds: 10) {
                        (try? other.send("GET", "/readyz"))?.text.contains(#""store":"unreachable""#) == true
                    })
                #expect(
                    AdminServeTests.eventually(seconds: 5) {
                        second.output.contains("PostgreSQL unreachable: serving the last catalog")
                    })
                let ready = try other.send("GET", "/readyz")
                #expect(ready.status == 200 && ready.text.contains(#""status":"ready""#), "\(ready.text)")
                for _ in 0..<50 {
                    #expect(Replicas.polledSkin(port: first.port) == "steady")
                    #expect(Replicas.polledSkin(port: second.port) == "steady")
                }
                #expect(try TestClient(port: second.port).get(packageURL).status == 200)
                let refused = try admin.send(
                    "POST", "/admin/v1/skins",
                    body: try AdminWorkspace.zip(AdminWorkspace.tinySkin(id: "late", marker: "l")),
                    contentType: "application/zip")
                #expect(refused.status == 503 && refused.text.contains("store_unavailable"), "\(refused.text)")
                #expect(refused.header("Retry-After") != nil)
            }

            try await server.start()
            let restarted = Date()
            try await blocking { () throws in
                // Within 10 s: the first replica takes a change again, and the second serves it.
                #expect(
                    AdminServeTests.eventually(seconds: 10) {
                        (try? Replicas.pushAndRelease(admin, id: "late", marker: "l", priority: 9)) != nil
                    })
                #expect(Replicas.timeUntilServed("late", port: second.port, within: 10) != nil)
                #expect(Date().timeIntervalSince(restarted) < 10)
                #expect(try other.send("GET", "/readyz").text == #"{"status":"ready","store":"reachable"}"#)
                tally.stop()
                let (served, failed) = tally.counts
                #expect(served > 100 && failed == 0, "polls during the outage: \(served) served, \(failed) failed")
                for livery in [first, second] { #expect(try livery.stop(signal: SIGTERM) == 0) }
            }
        }
    }

    @Test func aReplicaStartedWhilePostgreSQLIsDownIsNotReadyUntilItLoads() async throws {
        try await PostgresServer.withServer { server in
            let uri = server.uri()
            let workspace = try Replicas.workspace(releasing: "steady")
            try await server.stop()
            let livery = try await blocking { try Replicas.start(store: uri, workspace: workspace) }
            try await blocking {
                for _ in 0..<10 {
                    let poll = try TestClient(port: livery.port).get(Replicas.poll)
                    #expect(poll.status == 503 && poll.text.contains("not_ready"), "\(poll.text)")
                    #expect(poll.header("Retry-After") != nil && poll.header("Cache-Control") == "no-store")
                    let ready = try TestClient(port: livery.port).get("/readyz")
                    #expect(ready.status == 503 && ready.text.contains(#""store":"unreachable""#), "\(ready.text)")
                    usleep(50_000)
                }
            }
            // One more replica, stopped while it still waits: SIGTERM ends it cleanly.
            let waiting = try await blocking { try Replicas.start(store: uri, workspace: workspace) }
            #expect(try await blocking { try waiting.stop(signal: SIGTERM) } == 0, "\(waiting.output)")
            try await server.start()
            try await blocking {
                try AdminCall(port: livery.port).waitUntilReady()
                #expect(Replicas.polledSkin(port: livery.port) == "steady")
                #expect(try livery.stop(signal: SIGTERM) == 0)
            }
        }
    }
}

/// Polls counted by a traffic thread, and its stop flag.
final class Tally: @unchecked Sendable {
    // Invariant: every stored property is read and written under `lock`.
    private let lock = NSLock()
    private var served = 0
    private var failed = 0
    private var stopped = false

    var isStopped: Bool { lock.withLock { stopped } }
    var counts: (served: Int, failed: Int) { lock.withLock { (served, failed) } }
    func stop() { lock.withLock { stopped = true } }
    func count(_ good: Bool) { lock.withLock { if good { served += 1 } else { failed += 1 } } }
}
