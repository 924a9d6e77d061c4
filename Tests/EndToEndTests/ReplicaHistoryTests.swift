import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// In Jepsen's manner: clients drive concurrent admin writes (release PUT and PATCH, rollback, stop, If-Match, kill
/// switches) and admin reads at three replicas on one PostgreSQL while replicas are killed with SIGKILL and
/// restarted and PostgreSQL is killed and restarted; every request, its answer and its times are recorded, and
/// `Tests/History/check_history.py` proves the history linearizable (naming the first operation that breaks it)
/// and the polls at most 1 s stale. Seeded (`LIVERY_HISTORY_SEED` picks one); the seed is printed on failure;
/// `LIVERY_HISTORY_OUT=path` keeps the history for `check_history.py`.
@Suite(.hangGuard) struct ReplicaHistoryTests {
    /// How long clients send operations, in seconds, and how many at most.
    static let duration = 40.0
    static let maximumOperations = 1_000
    static let clients = 4
    static let skins = ["alpha", "beta"]
    /// Seconds the checker's search may take before it answers inconclusive (exit 3).
    static let checkerBudget = 90
    static let checker = LiveryProcess.repository.appendingPathComponent("Tests/History/check_history.py").path

    @Test func concurrentAdminWritesThroughReplicaAndPostgreSQLCrashesAreLinearizable() async throws {
        let seed =
            ProcessInfo.processInfo.environment["LIVERY_HISTORY_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        try await PostgresServer.withServer { server in
            let uri = server.uri(database: try await server.createDatabase())
            let workspace = try AdminWorkspace()
            for (index, id) in Self.skins.enumerated() {
                try AdminWorkspace.write(
                    AdminWorkspace.tinySkin(
                        id: id, marker: id, release: #"{"priority": \#(index), \#(Replicas.window)}"#),
                    into: workspace.skins + "/" + id)
            }
            let cluster = try await blocking { try Cluster(uri: uri, workspace: workspace) }
            let initial = try await blocking { try Self.prepare(cluster.admin(0)) }
            let recorder = Recorder()
            let deadline = Recorder.now() + Self.duration

            // Clients and a poller on threads of their own; faults from here.
            let finished = Countdown(Self.clients + 1)
            for client in 0..<Self.clients {
                Thread {
                    var random = SplitMix(seed: seed &+ UInt64(client) &* 0x9E37_79B9_7F4A_7C15)
                    var etags: [String: Int] = [:]
                    while Recorder.now() < deadline, recorder.reserve(limit: Self.maximumOperations) {
                        Self.operate(
                            client: client, cluster: cluster, recorder: recorder, random: &random, etags: &etags)
                        // Paced so the operations span the whole run, faults included (at most 1,000 in 40 s).
                        usleep(useconds_t(50_000 + random.next() % 200_000))
                    }
                    finished.done()
                }.start()
            }
            Thread {
                while Recorder.now() < deadline {
                    for replica in 0..<3 { Self.poll(replica, cluster: cluster, recorder: recorder) }
                    usleep(10_000)
                }
                finished.done()
            }.start()

            var faults: [String] = []
            var random = SplitMix(seed: seed ^ 0xFA17)
            for round in 0..<4 {
                try await Task.sleep(for: .seconds(5 + Double(random.next() % 4000) / 1000))
                if round == 2 {
                    try await server.kill()
                    try await Task.sleep(for: .milliseconds(500 + Int(random.next() % 1500)))
                    try await server.start()
                    faults.append("PostgreSQL killed and restarted")
                } else {
                    let replica = Int(random.next() % 3)
                    try await blocking { try cluster.crashAndRestart(replica) }
                    faults.append("replica \(replica) killed (SIGKILL) and restarted")
                }
            }
            try await blocking { finished.wait() }
            // Reads at the end, on every replica, once each is ready again.
            try await blocking {
                for replica in 0..<3 {
                    try cluster.admin(replica).waitUntilReady()
                    for id in Self.skins {
                        Self.record(
                            recorder, client: -1, kind: "get_skin", skin: id, args: [:], replica: replica,
                            cluster: cluster)
                    }
                    Self.record(
                        recorder, client: -1, kind: "get_switches", skin: nil, args: [:], replica: replica,
                        cluster: cluster)
                }
            }
            let folder = try ScratchDirectory(prefix: "livery-history")
            let path = folder.path("history.json")
            try recorder.write(initial: initial, to: path)
            if let keep = ProcessInfo.processInfo.environment["LIVERY_HISTORY_OUT"] {
                try? FileManager.default.removeItem(atPath: keep)
                try FileManager.default.copyItem(atPath: path, toPath: keep)
            }
            let checked = try await ExternalProcess.run(
                "python3", [Self.checker, path, String(Self.checkerBudget)], timeout: .seconds(Self.checkerBudget + 30))
            let summary =
                "seed \(seed) (LIVERY_HISTORY_SEED=\(seed) to replay); \(recorder.count) operations; faults: \(faults)"
            if checked.status == 3 {
                // Inconclusive: the search ran past its budget without finding a violation. Kept for a look, not
                // failed: a search that cannot finish proves nothing either way.
                let kept = FileManager.default.temporaryDirectory.appendingPathComponent("livery-history-\(seed).json")
                    .path
                try? FileManager.default.removeItem(atPath: kept)
                try? FileManager.default.copyItem(atPath: path, toPath: kept)
                FileHandle.standardError.write(
                    Data(
                        "ReplicaHistoryTests: inconclusive, \(summary); history kept at \(kept)\n\(checked.standardOutput)"
                            .utf8))
            } else {
                #expect(checked.status == 0, "\(summary)\n\(checked.standardOutput)\(checked.standardError)")
            }
            #expect(recorder.count >= 100, "too few operations to mean anything: \(summary)")
            try await blocking { cluster.stopAll() }
        }
    }

    @Test func theCheckerNamesTheOperationALostUpdateBreaks() async throws {
        // A PATCH of endsAt answered, then a PATCH of the rollout answered with the old endsAt: the first change lost.
        let history = #"""
            {"initial": {"revision": 3, "skins": {"alpha": {"release": [1, 100, "2100-01-01T00:00:00Z"], "etag": 3,
              "versions": [1]}}, "switches": [false, false, 0]},
             "ops": [
              {"id": 0, "client": 0, "kind": "patch_release", "skin": "alpha", "args": {"endsAt": "2099-01-01T00:00:00Z"},
               "invoke": 1.0, "complete": 1.1, "status": 200,
               "result": {"release": [1, 100, "2099-01-01T00:00:00Z"], "etag": 4}},
              {"id": 1, "client": 1, "kind": "patch_release", "skin": "alpha", "args": {"rollout": 50},
               "invoke": 1.2, "complete": 1.3, "status": 200,
               "result": {"release": [1, 50, "2100-01-01T00:00:00Z"], "etag": 5}},
              {"id": 2, "client": 2, "kind": "kill_switch", "args": {"enabled": true}, "invoke": 1.25,
               "complete": null, "status": 0, "result": null}],
             "polls": []}
            """#
        let folder = try ScratchDirectory(prefix: "livery-history")
        try Data(history.utf8).write(to: URL(fileURLWithPath: folder.path("lost.json")))
        let lost = try await ExternalProcess.run("python3", [Self.checker, folder.path("lost.json")])
        #expect(lost.status == 1 && lost.standardOutput.contains("op 1 (client 1"), "\(lost.transcript)")

        // The same with the second answer showing both changes, and the unanswered kill switch before it: fine.
        let kept = history.replacingOccurrences(
            of: #""release": [1, 50, "2100-01-01T00:00:00Z"], "etag": 5"#,
            with: #""release": [1, 50, "2099-01-01T00:00:00Z"], "etag": 6"#)
        try Data(kept.utf8).write(to: URL(fileURLWithPath: folder.path("kept.json")))
        let fine = try await ExternalProcess.run("python3", [Self.checker, folder.path("kept.json")])
        #expect(fine.status == 0, "\(fine.transcript)")
    }

    // MARK: Operations

    /// Pushes versions 2 and 3 of each skin and reads the state the history starts from.
    static func prepare(_ admin: AdminCall) throws -> Data {
        var skins: [String: Any] = [:]
        for id in Self.skins {
            for marker in ["2", "3"] {
                let archive = try AdminWorkspace.zip(AdminWorkspace.tinySkin(id: id, marker: id + marker))
                let pushed = try admin.send("POST", "/admin/v1/skins", body: archive, contentType: "application/zip")
                guard pushed.status == 201 else { throw E2EError(description: "push of \(id): \(pushed.text)") }
            }
        }
        for id in Self.skins {
            let response = try admin.send("GET", "/admin/v1/skins/\(id)")
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
            let parsed = Self.skinResult(response)
            skins[id] = [
                "release": parsed?["release"] ?? NSNull(), "etag": parsed?["etag"] ?? 0,
                "versions": (object["versions"] as? [[String: Any]] ?? []).compactMap { $0["version"] as? Int }
            ]
        }
        let listing = try admin.json("GET", "/admin/v1/skins")
        let switches = Self.switchesResult(try admin.send("GET", "/admin/v1/killswitch")) ?? [:]
        let initial: [String: Any] = [
            "revision": listing.object["revision"] as? Int ?? 0, "skins": skins,
            "switches": [switches["global"] ?? false, switches["app"] ?? false, switches["revision"] ?? 0]
        ]
        return try JSONSerialization.data(withJSONObject: initial)
    }

    /// One random operation by `client` at a random replica, recorded.
    static func operate(
        client: Int, cluster: Cluster, recorder: Recorder, random: inout SplitMix, etags: inout [String: Int]
    ) {
        let replica = Int(random.next() % 3)
        let skin = skins[Int(random.next() % UInt64(skins.count))]
        let roll = random.next() % 100
        let rollout = [100, 100, 50][Int(random.next() % 3)]
        let endsAt =
            "2099-\(String(format: "%02d", random.next() % 12 + 1))-\(String(format: "%02d", random.next() % 28 + 1))T00:00:00Z"
        var args: [String: Any] = [:]
        let kind: String
        switch roll {
        case 0..<15: kind = "get_skin"
        case 15..<25: kind = "get_switches"
        case 25..<40:
            kind = "patch_release"
            args["rollout"] = rollout
        case 40..<50:
            kind = "patch_release"
            args["endsAt"] = endsAt
        case 50..<58:
            kind = "patch_release"
            args["rollout"] = rollout
            args["ifMatch"] = etags[skin] ?? 0
        case 58..<73:
            kind = "put_release"
            let version = random.next() % 4
            if version > 0 { args["version"] = Int(version) }
            args["rollout"] = rollout
            args["endsAt"] = endsAt
            if random.next() % 4 == 0 { args["ifMatch"] = etags[skin] ?? 0 }
        case 73..<81: kind = "rollback"
        case 81..<88: kind = "stop"
        default:
            kind = "kill_switch"
            if random.next() % 2 == 0 { args["app"] = "demo" }
            args["enabled"] = random.next() % 3 == 0
        }
        let (status, result) = record(
            recorder, client: client, kind: kind, skin: kind == "kill_switch" || kind == "get_switches" ? nil : skin,
            args: args, replica: replica, cluster: cluster)
        if let etag = result?["etag"] as? Int { etags[skin] = etag }
        // A replica or PostgreSQL down: back off, as a person would, so the history holds a few requests of
        // unknown outcome rather than hundreds.
        if status == 0 || status == 503 { usleep(300_000) }
    }

    /// Sends one operation to `replica`, records it with its times and answer, and returns the parsed answer.
    @discardableResult
    static func record(
        _ recorder: Recorder, client: Int, kind: String, skin: String?, args: [String: Any], replica: Int,
        cluster: Cluster
    ) -> (status: Int, result: [String: Any]?) {
        var method = "GET"
        var target = "/admin/v1/killswitch"
        var body: [String: Any]?
        switch kind {
        case "get_skin": target = "/admin/v1/skins/\(skin ?? "")"
        case "put_release", "patch_release":
            method = kind == "put_release" ? "PUT" : "PATCH"
            target = "/admin/v1/skins/\(skin ?? "")/release"
            var fields = args.filter { $0.key != "ifMatch" }
            if kind == "put_release" { fields["startsAt"] = "2000-01-01T00:00:00Z" }
            body = fields
        case "rollback":
            method = "POST"
            target = "/admin/v1/skins/\(skin ?? "")/rollback"
        case "stop":
            method = "DELETE"
            target = "/admin/v1/skins/\(skin ?? "")/release"
        case "kill_switch":
            method = "PUT"
            body = args.merging(["reason": "history"]) { $1 }
        default: break
        }
        var headers = [("Authorization", "Bearer \(AdminWorkspace.editorToken)")]
        var bytes: [UInt8] = []
        if let body, let data = try? JSONSerialization.data(withJSONObject: body) {
            headers.append(("Content-Type", "application/json"))
            bytes = [UInt8](data)
        }
        if let ifMatch = args["ifMatch"] as? Int { headers.append(("If-Match", "\"\(ifMatch)\"")) }
        let invoke = Recorder.now()
        var status = 0
        var result: [String: Any]?
        var complete: Double?
        if let port = cluster.port(replica),
            let response = try? TestClient(port: port, timeout: 5).request(
                method, target, host: "e2e", headers: headers, body: bytes)
        {
            complete = Recorder.now()
            status = response.status
            if status == 200 {
                result =
                    kind == "kill_switch" || kind == "get_switches" ? switchesResult(response) : skinResult(response)
            }
        }
        recorder.add([
            "client": client, "kind": kind, "skin": skin ?? NSNull(), "args": args, "replica": replica,
            "invoke": invoke, "complete": complete ?? NSNull(), "status": status, "result": result ?? NSNull()
        ])
        return (status, result)
    }

    /// A skin answer as the checker's model writes it: `{"release": [version, rollout, endsAt] or null, "etag": n}`.
    static func skinResult(_ response: TestResponse) -> [String: Any]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let tag = response.header("ETag"),
            let etag = Int(tag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        else { return nil }
        var release: Any = NSNull()
        if let fields = object["release"] as? [String: Any] {
            release = [fields["version"] ?? NSNull(), fields["rollout"] ?? NSNull(), fields["endsAt"] ?? NSNull()]
        }
        return ["release": release, "etag": etag]
    }

    /// A kill-switch answer as the checker's model writes it: `{"global", "app", "revision"}`.
    static func switchesResult(_ response: TestResponse) -> [String: Any]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            return nil
        }
        let global = (object["global"] as? [String: Any])?["enabled"] as? Bool ?? false
        let app = ((object["apps"] as? [String: Any])?["demo"] as? [String: Any])?["enabled"] as? Bool ?? false
        return ["global": global, "app": app, "revision": object["revision"] as? Int ?? -1]
    }

    /// One poll of `replica`, recorded with its times.
    static func poll(_ replica: Int, cluster: Cluster, recorder: Recorder) {
        guard let port = cluster.port(replica) else { return }
        let sent = Recorder.now()
        guard let response = try? TestClient(port: port, timeout: 5).get(Replicas.poll) else { return }
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        recorder.poll([
            "replica": replica, "sent": sent, "received": Recorder.now(), "status": response.status,
            "skinId": object?["skinId"] as? String ?? ""
        ])
    }
}

/// Three replicas whose ports change as they are killed and restarted.
final class Cluster: @unchecked Sendable {
    // Invariant: `replicas` is read and written under `lock`; `uri` and `workspace` never change.
    private let lock = NSLock()
    private var replicas: [LiveryProcess?]
    private let uri: String
    private let workspace: AdminWorkspace

    init(uri: String, workspace: AdminWorkspace) throws {
        self.uri = uri
        self.workspace = workspace
        replicas = try (0..<3).map { _ in try Replicas.start(store: uri, workspace: workspace) }
        for replica in replicas { try replica?.waitUntilReady() }
    }

    /// The port of `replica`, nil while it is down.
    func port(_ replica: Int) -> Int? { lock.withLock { replicas[replica]?.port } }

    func admin(_ replica: Int) -> AdminCall { AdminCall(port: port(replica) ?? 0) }

    /// Kills `replica` with SIGKILL and starts it again (on another port); returns once it is started, not ready.
    func crashAndRestart(_ replica: Int) throws {
        let victim = lock.withLock { () -> LiveryProcess? in
            defer { replicas[replica] = nil }
            return replicas[replica]
        }
        _ = try victim?.stop(signal: SIGKILL)
        let restarted = try Replicas.start(store: uri, workspace: workspace)
        lock.withLock { replicas[replica] = restarted }
    }

    func stopAll() {
        for replica in lock.withLock({ replicas }) { _ = try? replica?.stop(signal: SIGTERM) }
    }
}

/// Every operation and poll, with times on one monotonic clock (seconds).
final class Recorder: @unchecked Sendable {
    // Invariant: every stored property is read and written under `lock`.
    private let lock = NSLock()
    private var operations: [[String: Any]] = []
    private var polls: [[String: Any]] = []
    private var reserved = 0

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Takes one of at most `limit` operations; false once they are all taken.
    func reserve(limit: Int) -> Bool {
        lock.withLock {
            guard reserved < limit else { return false }
            reserved += 1
            return true
        }
    }

    var count: Int { lock.withLock { operations.count } }

    func add(_ operation: [String: Any]) {
        lock.withLock {
            var numbered = operation
            numbered["id"] = operations.count
            operations.append(numbered)
        }
    }

    func poll(_ poll: [String: Any]) { lock.withLock { polls.append(poll) } }

    /// Writes the history, starting from the state `initial` (JSON), for the checker.
    func write(initial: Data, to path: String) throws {
        let start = try JSONSerialization.jsonObject(with: initial)
        let history: [String: Any] = lock.withLock { ["initial": start, "ops": operations, "polls": polls] }
        try JSONSerialization.data(withJSONObject: history).write(to: URL(fileURLWithPath: path))
    }
}

/// Waits for a number of threads to finish.
final class Countdown: @unchecked Sendable {
    // Invariant: `left` is read and written under `condition`.
    private let condition = NSCondition()
    private var left: Int

    init(_ count: Int) { left = count }

    func done() {
        condition.lock()
        left -= 1
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while left > 0 { condition.wait() }
        condition.unlock()
    }
}

/// A seeded pseudo-random generator (SplitMix64), so a history can be replayed from its seed.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
