import Foundation
import SkinStore
import TestSupport
import Testing

/// How `audit.log` is kept on disk and reconciled with `state.json` on open. (What the log records, its order
/// and paging are in the conformance suite.)
@Suite("Audit log on disk")
struct AuditTests {
    @Test(arguments: [
        Array(#"{"actor":"x","act"#.utf8),  // cut mid-line
        Array(#"{"action":"killswitch.set","actor":"a","seq":3,"time":0}"#.utf8),  // complete but no newline
        [UInt8](repeating: 0, count: 40)  // zero-filled tail
    ])
    func ignoresATornLastLine(tail: [UInt8]) async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try await store.setKillSwitch(app: nil, enabled: true, reason: "one", actor: Make.actor)
        try await store.setKillSwitch(app: nil, enabled: false, reason: "two", actor: Make.actor)
        let entries = store.audit()
        store.close()
        let log = directory.path + "/audit.log"
        let intact = try Disk.read(log)
        try Disk.append(tail, to: log)

        store = try directory.open()
        #expect(store.audit() == entries)
        #expect(try Disk.read(log) == intact)
        try await store.setKillSwitch(app: nil, enabled: true, reason: "three", actor: Make.actor)
        store.close()
        store = try directory.open()
        #expect(store.audit().map(\.reason) == ["one", "two", "three"])
    }

    @Test func dropsACompleteEntryWhoseChangeNeverCommitted() async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try await store.setKillSwitch(app: nil, enabled: true, reason: "one", actor: Make.actor)
        store.close()
        let log = directory.path + "/audit.log"
        let intact = try Disk.read(log)
        // What a crash between the audit append and the state rename leaves: entry 2 without revision 2.
        try Disk.append(Array(#"{"action":"killswitch.set","actor":"x","seq":2,"time":0}"#.utf8) + [10], to: log)

        store = try directory.open()
        #expect(store.snapshot.revision == 1)
        #expect(store.audit().count == 1)
        #expect(try Disk.read(log) == intact)
    }

    @Test func refusesALogThatDisagreesWithTheState() async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        for index in 0..<3 {
            try await store.setKillSwitch(app: nil, enabled: true, reason: "\(index)", actor: Make.actor)
        }
        store.close()
        let log = directory.path + "/audit.log"
        let intact = try Disk.read(log)
        let lines = intact.split(separator: 10, omittingEmptySubsequences: false)

        // A damaged line in the middle.
        var damaged = Array(lines[0]) + [10] + Array("garbage".utf8) + [10] + Array(lines[2]) + [10]
        try Disk.write(damaged, to: log)
        #expect { try directory.open() } throws: {
            ($0 as? StoreError)?.isCorruptFile(endingWith: "/audit.log") == true
        }

        // Entries lost (fewer than the state's revision): never silently accepted.
        damaged = Array(lines[0]) + [10]
        try Disk.write(damaged, to: log)
        #expect { try directory.open() } throws: {
            ($0 as? StoreError)?.isCorruptFile(endingWith: "/audit.log") == true
        }

        // Two uncommitted entries cannot come from a crash.
        try Disk.write(intact + Array(lines[0]) + [10] + Array(lines[0]) + [10], to: log)
        #expect { try directory.open() } throws: {
            ($0 as? StoreError)?.isCorruptFile(endingWith: "/audit.log") == true
        }

        try Disk.write(intact, to: log)
        store = try directory.open()
        #expect(store.snapshot.revision == 3)
    }
}

extension AuditEntry {
    /// The kill switch reason recorded in `after`, for tests that only change kill switches.
    var reason: String? {
        guard let after, let json = try? JSONSerialization.jsonObject(with: Data(after)) as? [String: Any] else {
            return nil
        }
        return json["reason"] as? String
    }
}
