import Foundation
import SkinStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kills a writer process with SIGKILL at random instants and checks, after each kill, that the store opens
/// cleanly and holds every change the writer acknowledged.
@Suite("Crash safety")
struct CrashSafetyTests {
    /// One "ack" line of store-torture (see Tests/StoreTorture/main.swift).
    struct Ack {
        var revision: Int
        var action: String
        var subject: String
        var details: [String]

        init?(_ line: String) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 4, fields[0] == "ack", let revision = Int(fields[1]) else { return nil }
            self.revision = revision
            action = fields[2]
            subject = fields[3]
            details = Array(fields.dropFirst(4))
        }
    }

    /// The store-torture executable built next to this test binary (or named by STORE_TORTURE_PATH).
    static func tortureExecutable() -> String? {
        try? BuiltProduct.path("store-torture", environmentOverride: "STORE_TORTURE_PATH")
    }

    /// What one store-torture run printed and how it ended.
    struct Round: Sendable {
        var lines: [String]
        var signal: Int32?
        var exitCode: Int32?
    }

    /// Starts store-torture, reads `linesBeforeKill` lines (fewer if it stops printing), waits `pause` µs, kills it
    /// with SIGKILL and reads what it printed before dying. Runs on a thread of its own: reading, sleeping and
    /// `waitpid` would otherwise hold a cooperative pool thread for the whole test.
    static func runAndKill(
        _ executable: String, _ arguments: [String], linesBeforeKill: Int, pause: UInt32
    ) async throws -> Round {
        try await blocking {
            let child = try ChildProcess(executable: executable, arguments: arguments)
            let deadline = Date().addingTimeInterval(20)
            var lines = [String]()
            while lines.count < linesBeforeKill, let line = child.readLine(deadline: deadline) { lines.append(line) }
            usleep(pause)
            child.killNow()
            // Everything printed before death was acknowledged, so read it all.
            while let line = child.readLine(deadline: deadline) { lines.append(line) }
            let status = child.wait()
            return Round(lines: lines, signal: status.signal, exitCode: status.exitCode)
        }
    }

    @Test(.hangGuard)
    func everyAcknowledgedChangeSurvivesSIGKILL() async throws {
        let executable = try #require(
            Self.tortureExecutable(),
            "store-torture not found: run `swift build --build-tests` or set STORE_TORTURE_PATH")
        let directory = try ScratchDirectory.forStore()
        var random = SplitMix64(seed: 0x5EED_2027)
        var acks = [Ack]()
        var kills = 0
        var rounds = 0
        // Evidence that kills land mid-change: temporary files left behind, or an audit tail cut off on open.
        var interruptedWrites = 0
        var interruptedCommits = 0
        // Up to 80 kills in 80 s, and at least 30 however long they take (30 cover every phase of a change; a
        // loaded machine fits fewer in the time); the time limit above stops a run that hangs.
        let deadline = Date().addingTimeInterval(80)
        while kills < 80 && (Date() < deadline || kills < 30) {
            rounds += 1
            // Let it get some changes done (none at all in some rounds: then the kill lands during recovery),
            // then kill it at a random instant, most likely in the middle of a change.
            let acksBeforeKill = Int(random.next() % 6)
            let pause = UInt32(random.next() % 15_000)
            let round = try await Self.runAndKill(
                executable, [directory.path, String(rounds), "400"], linesBeforeKill: acksBeforeKill, pause: pause)
            var unexpected = [String]()
            for line in round.lines {
                if let ack = Ack(line) { acks.append(ack) } else { unexpected.append(line) }
            }
            if round.signal == SIGKILL {
                kills += 1
            } else {
                let ending =
                    "signal \(round.signal.map(String.init) ?? "none"), exit \(round.exitCode.map(String.init) ?? "none")"
                #expect(round.exitCode == 0, "round \(rounds): child ended with \(ending)")
            }
            #expect(unexpected.isEmpty, "round \(rounds): \(unexpected)")

            let leftovers = Self.temporaryFiles(in: directory.path)
            let logSize = Self.size(of: directory.path + "/audit.log")
            let store = try FileSkinStore(directory: directory.path)
            if !leftovers.isEmpty { interruptedWrites += 1 }
            if Self.size(of: directory.path + "/audit.log") != logSize { interruptedCommits += 1 }
            #expect(Self.temporaryFiles(in: directory.path).isEmpty)
            try Self.check(store, acknowledged: acks, round: rounds)
            store.close()
        }
        #expect(kills >= 30, "only \(kills) kills in \(rounds) rounds")
        #expect(acks.count >= kills, "the writer barely got anything done: \(acks.count) changes")
        #expect(interruptedWrites > 0, "no kill landed during a file write")
        #expect(interruptedCommits > 0, "no kill landed between an audit append and its commit")
        print(
            "crash safety: \(kills) kills in \(rounds) rounds, \(acks.count) acknowledged changes, "
                + "\(interruptedWrites) with temporary files left, \(interruptedCommits) with an audit tail cut off")
    }

    /// The store holds every acknowledged change, and its state is exactly what its audit log replays to.
    static func check(_ store: FileSkinStore, acknowledged acks: [Ack], round: Int) throws {
        let snapshot = store.snapshot
        let audit = store.audit(limit: Int.max)
        #expect(audit.map(\.sequence) == Array(0..<snapshot.revision).map { $0 + 1 })
        for ack in acks {
            guard ack.revision >= 1 && ack.revision <= audit.count else {
                Issue.record(
                    "round \(round): acknowledged change \(ack.revision) is missing (revision \(snapshot.revision))")
                continue
            }
            let entry = audit[ack.revision - 1]
            #expect(entry.action == ack.action, "round \(round): entry \(ack.revision)")
            let after = try json(entry.after)
            switch ack.action {
            case "version.add":
                #expect(entry.skinID == ack.subject)
                #expect(after["version"] as? Int == Int(ack.details[0]))
                #expect(after["digest"] as? String == ack.details[1])
            case "release.set":
                #expect(entry.skinID == ack.subject)
                #expect(after["version"] as? Int == Int(ack.details[0]))
            case "killswitch.set":
                #expect(entry.skinID == nil)
                #expect((after["app"] as? String ?? "-") == ack.subject)
                #expect(after["enabled"] as? Bool == (ack.details[0] == "1"))
            default:
                #expect(entry.skinID == ack.subject)
            }
        }

        // Replay the audit log and compare with the state.
        var versions = [String: [Int: String]]()
        var releases = [String: Int]()
        var switches = [String: Bool]()
        for entry in audit {
            let after = try json(entry.after)
            let skinID = entry.skinID ?? ""
            switch entry.action {
            case "version.add":
                versions[skinID, default: [:]][after["version"] as? Int ?? -1] = after["digest"] as? String
                if let release = after["release"] as? [String: Any] { releases[skinID] = release["version"] as? Int }
            case "release.set": releases[skinID] = after["version"] as? Int
            case "release.clear": releases[skinID] = nil
            case "skin.delete":
                versions[skinID] = nil
                releases[skinID] = nil
            case "killswitch.set": switches[after["app"] as? String ?? "-"] = after["enabled"] as? Bool
            default: Issue.record("unexpected action \(entry.action)")
            }
        }
        #expect(Set(snapshot.skinIDs) == Set(versions.keys), "round \(round)")
        for (skinID, skin) in snapshot.skins {
            #expect(Dictionary(uniqueKeysWithValues: skin.versions.map { ($0.number, $0.digest) }) == versions[skinID])
            #expect(skin.release?.version == releases[skinID], "round \(round): release of \(skinID)")
        }
        #expect(snapshot.killSwitches.global?.enabled == switches["-"])
        for app in ["news", "mail", "maps"] { #expect(snapshot.killSwitches.apps[app]?.enabled == switches[app]) }

        let report = try store.verify()
        #expect(report.isHealthy, "round \(round): \(report)")
    }

    /// Paths of temporary files anywhere in the store directory.
    static func temporaryFiles(in directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found = [String]()
        while let path = enumerator?.nextObject() as? String {
            if (path as NSString).lastPathComponent.hasPrefix(".tmp-") { found.append(path) }
        }
        return found
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    static func json(_ bytes: [UInt8]?) throws -> [String: Any] {
        guard let bytes else { return [:] }
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }
}
