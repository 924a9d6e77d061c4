import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Three `livery serve --store postgres://…` replicas on one real PostgreSQL, each write sent to one replica right
/// after an acknowledged change through another: every write is decided on that change (nothing acknowledged is
/// lost, nothing refused for a state already gone), reads see it, and polls on every replica serve it within 1 s
/// (checked at 5 s: the test run's load stretches it).
@Suite(.postgresServer, .hangGuard) struct ReplicaConsistencyTests {
    /// The release of `id` as `GET /skins/{id}` on `admin` shows it.
    static func release(_ admin: AdminCall, _ id: String) throws -> [String: Any] {
        let (status, object) = try admin.json("GET", "/admin/v1/skins/\(id)")
        guard status == 200, let release = object["release"] as? [String: Any] else {
            throw E2EError(description: "GET \(id): \(status) \(object)")
        }
        return release
    }

    @Test func fortyPatchPairsThroughTwoReplicasKeepBothChanges() async throws {
        let server = try PostgresServer.forSuite()
        let uri = server.uri(database: try await server.createDatabase())
        let workspace = try Replicas.workspace(releasing: "seed")
        try await blocking {
            let replicas = try (0..<3).map { _ in try Replicas.start(store: uri, workspace: workspace) }
            for replica in replicas { try AdminCall(port: replica.port).waitUntilReady() }
            let (a, b, c) = (
                AdminCall(port: replicas[0].port), AdminCall(port: replicas[1].port), AdminCall(port: replicas[2].port)
            )
            var lost: [String] = []
            var stale: [String] = []
            for pair in 0..<40 {
                let endsAt =
                    "2099-\(String(format: "%02d", pair % 12 + 1))-\(String(format: "%02d", pair % 28 + 1))T00:00:00Z"
                let rollout = pair + 10
                let first = try a.json("PATCH", "/admin/v1/skins/seed/release", body: #"{"endsAt": "\#(endsAt)"}"#)
                let second = try b.json("PATCH", "/admin/v1/skins/seed/release", body: #"{"rollout": \#(rollout)}"#)
                #expect(first.status == 200 && second.status == 200, "pair \(pair): \(first) \(second)")
                // What the second replica committed (it has seen its own change)…
                let stored = try Self.release(b, "seed")
                if stored["endsAt"] as? String != endsAt || stored["rollout"] as? Int != rollout {
                    lost.append("pair \(pair): wanted endsAt \(endsAt) rollout \(rollout), stored \(stored)")
                }
                // … and what the third reads right after: the same.
                let read = try Self.release(c, "seed")
                if read["endsAt"] as? String != endsAt || read["rollout"] as? Int != rollout {
                    stale.append("pair \(pair): read \(read)")
                }
            }
            #expect(lost.isEmpty, "\(lost.count) of 40 pairs lost a change: \(lost.prefix(3))")
            #expect(
                stale.isEmpty, "\(stale.count) of 40 reads on the third replica missed a change: \(stale.prefix(3))")
            for replica in replicas { #expect(try replica.stop(signal: SIGTERM) == 0) }
        }
    }

    @Test func writesRightAfterAChangeElsewhereAreDecidedOnIt() async throws {
        let server = try PostgresServer.forSuite()
        let uri = server.uri(database: try await server.createDatabase())
        let workspace = try Replicas.workspace(releasing: "seed")
        try await blocking {
            let replicas = try (0..<3).map { _ in try Replicas.start(store: uri, workspace: workspace) }
            for replica in replicas { try AdminCall(port: replica.port).waitUntilReady() }
            let admins = replicas.map { AdminCall(port: $0.port) }
            var failures: [String] = []
            for round in 0..<10 {
                let (a, b) = (admins[round % 3], admins[(round + 1) % 3])
                let id = "fresh\(round)"
                // A push on one replica, then a release of that version on another.
                let archive = try AdminWorkspace.zip(AdminWorkspace.tinySkin(id: id, marker: "m\(round)"))
                let pushed = try a.send("POST", "/admin/v1/skins", body: archive, contentType: "application/zip")
                #expect(pushed.status == 201, "\(pushed.text)")
                let put = try b.json(
                    "PUT", "/admin/v1/skins/\(id)/release", body: #"{"version": 1, "priority": 2, \#(Replicas.window)}"#
                )
                if put.status != 200 { failures.append("round \(round): PUT after a push elsewhere: \(put)") }
                // A release on one replica, then a rollout change on another.
                let patched = try a.json("PATCH", "/admin/v1/skins/\(id)/release", body: #"{"rollout": 40}"#)
                if patched.status != 200 {
                    failures.append("round \(round): PATCH after a release elsewhere: \(patched)")
                }
                // The ETag one replica just returned is current on another.
                let answer = try b.send(
                    "PATCH", "/admin/v1/skins/\(id)/release", body: Array(#"{"rollout": 60}"#.utf8),
                    contentType: "application/json")
                guard answer.status == 200, let tag = answer.header("ETag") else {
                    failures.append("round \(round): PATCH after changes elsewhere: \(answer.status) \(answer.text)")
                    continue
                }
                let conditional = try Self.send(
                    admins[(round + 2) % 3], "PATCH", "/admin/v1/skins/\(id)/release", body: #"{"rollout": 70}"#,
                    headers: [("If-Match", tag)])
                if conditional.status != 200 {
                    failures.append(
                        "round \(round): PATCH with the ETag just returned elsewhere: \(conditional.status) \(conditional.text)"
                    )
                }
                // A read anywhere sees the last acknowledged change.
                let read = try Self.release(admins[round % 3], id)
                if read["rollout"] as? Int != 70 { failures.append("round \(round): read after the change: \(read)") }
            }
            #expect(failures.isEmpty, "\(failures.count) writes decided on a stale state: \(failures.prefix(4))")

            // A change through one replica is served by polls on every replica within 1 s (checked at 5 s: the test
            // run's load stretches it).
            let flipped = try admins[0].json(
                "PUT", "/admin/v1/killswitch", body: #"{"enabled": true, "reason": "e2e"}"#)
            #expect(flipped.status == 200)
            for replica in replicas {
                let served = Replicas.timeUntilServed("", port: replica.port, within: 10)
                #expect(
                    served.map { $0 < 5 } == true, "kill switch served after \(served.map { "\($0) s" } ?? "never")")
            }
            for replica in replicas { #expect(try replica.stop(signal: SIGTERM) == 0) }
        }
    }

    /// A request with extra headers (`If-Match`), with the editor token.
    static func send(
        _ admin: AdminCall, _ method: String, _ target: String, body: String, headers extra: [(String, String)]
    ) throws -> TestResponse {
        var headers = [("Authorization", "Bearer \(AdminWorkspace.editorToken)"), ("Content-Type", "application/json")]
        headers += extra
        return try TestClient(port: admin.port, timeout: 10).request(
            method, target, host: "e2e", headers: headers, body: Array(body.utf8))
    }
}
