import Foundation
import SkinStore
import Testing
import TestSupport

@Suite("Audit log")
struct AuditTests {
    static func json(_ bytes: [UInt8]?) throws -> [String: Any] {
        let bytes = try #require(bytes)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func recordsEveryChangeInOrderWithWhoWhenAndWhat() throws {
        let clock = TestClock()
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open(clock: clock)
        let start = clock.current
        let version = try store.addVersion(skinID: "spring", files: Make.files(), metadata: Make.metadata(), actor: "alice")
        clock.advance(seconds: 1)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(rollout: 10), actor: "bob")
        clock.advance(seconds: 1)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(rollout: 90), actor: "bob")
        clock.advance(seconds: 1)
        try store.setKillSwitch(app: "news", enabled: true, reason: "outage", actor: "carol")
        clock.advance(seconds: 1)
        try store.clearRelease(skinID: "spring", actor: "bob")

        let entries = store.audit()
        #expect(entries.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(entries.map(\.action) == ["version.add", "release.set", "release.set", "killswitch.set", "release.clear"])
        #expect(entries.map(\.actor) == ["alice", "bob", "bob", "carol", "bob"])
        #expect(entries.map(\.skinID) == ["spring", "spring", "spring", nil, "spring"])
        #expect(entries.map(\.time) == (0..<5).map { start.addingTimeInterval(TimeInterval($0)) })

        #expect(entries[0].before == nil)
        let added = try Self.json(entries[0].after)
        #expect(added["version"] as? Int == 1)
        #expect(added["digest"] as? String == version.digest)
        #expect(added["files"] as? Int == 3)

        #expect(entries[1].before == nil)
        #expect((try Self.json(entries[1].after)["document"] as? [String: Any])?["rollout"] as? Int == 10)
        #expect((try Self.json(entries[2].before)["document"] as? [String: Any])?["rollout"] as? Int == 10)
        #expect((try Self.json(entries[2].after)["document"] as? [String: Any])?["rollout"] as? Int == 90)

        let killed = try Self.json(entries[3].after)
        #expect(killed["app"] as? String == "news")
        #expect(killed["enabled"] as? Bool == true)
        #expect(killed["reason"] as? String == "outage")
        #expect(entries[3].before == nil)

        #expect(try Self.json(entries[4].before)["version"] as? Int == 1)
        #expect(entries[4].after == nil)
    }

    @Test func pagesForwardBySequenceWithALimit() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        for index in 0..<10 { try store.setKillSwitch(app: nil, enabled: index % 2 == 0, reason: "\(index)", actor: Make.actor) }
        var seen = [Int]()
        var cursor = 0
        while let page = Optional(store.audit(since: .afterSequence(cursor), limit: 3)), !page.isEmpty {
            #expect(page.count <= 3)
            seen += page.map(\.sequence)
            cursor = page[page.count - 1].sequence
        }
        #expect(seen == Array(1...10))
        #expect(store.audit(since: .afterSequence(10)).isEmpty)
        #expect(store.audit(since: .afterSequence(-5), limit: 2).map(\.sequence) == [1, 2])
        #expect(store.audit(limit: 0).isEmpty)
        #expect(store.audit(limit: -1).isEmpty)
    }

    @Test func selectsEntriesAtOrAfterATime() throws {
        let clock = TestClock()
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open(clock: clock)
        for index in 0..<5 {
            try store.setKillSwitch(app: nil, enabled: true, reason: "\(index)", actor: Make.actor)
            clock.advance(seconds: 10)
        }
        let third = store.audit()[2].time
        #expect(store.audit(since: .time(third)).map(\.sequence) == [3, 4, 5])
        #expect(store.audit(since: .time(third.addingTimeInterval(0.001))).map(\.sequence) == [4, 5])
        #expect(store.audit(since: .time(third), limit: 1).map(\.sequence) == [3])
        #expect(store.audit(since: .time(clock.current)).isEmpty)
    }

    @Test func survivesReopeningUnchanged() throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try Make.versions(2, in: store)
        try store.setRelease(skinID: "spring", version: 2, document: Make.releaseDocument(), actor: Make.actor)
        try store.deleteSkin(skinID: "spring", force: true, actor: Make.actor)
        let entries = store.audit()
        store.close()
        store = try directory.open()
        #expect(store.audit() == entries)
        try store.setKillSwitch(app: nil, enabled: true, reason: "", actor: Make.actor)
        #expect(store.audit().map(\.sequence) == [1, 2, 3, 4, 5])
    }

    @Test(arguments: [
        Array(#"{"actor":"x","act"#.utf8),  // cut mid-line
        Array(#"{"action":"killswitch.set","actor":"a","seq":3,"time":0}"#.utf8),  // complete but no newline
        [UInt8](repeating: 0, count: 40),  // zero-filled tail
    ])
    func ignoresATornLastLine(tail: [UInt8]) throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try store.setKillSwitch(app: nil, enabled: true, reason: "one", actor: Make.actor)
        try store.setKillSwitch(app: nil, enabled: false, reason: "two", actor: Make.actor)
        let entries = store.audit()
        store.close()
        let log = directory.path + "/audit.log"
        let intact = try Disk.read(log)
        try Disk.append(tail, to: log)

        store = try directory.open()
        #expect(store.audit() == entries)
        #expect(try Disk.read(log) == intact)
        try store.setKillSwitch(app: nil, enabled: true, reason: "three", actor: Make.actor)
        store.close()
        store = try directory.open()
        #expect(store.audit().map(\.reason) == ["one", "two", "three"])
    }

    @Test func dropsACompleteEntryWhoseChangeNeverCommitted() throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try store.setKillSwitch(app: nil, enabled: true, reason: "one", actor: Make.actor)
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

    @Test func refusesALogThatDisagreesWithTheState() throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        for index in 0..<3 { try store.setKillSwitch(app: nil, enabled: true, reason: "\(index)", actor: Make.actor) }
        store.close()
        let log = directory.path + "/audit.log"
        let intact = try Disk.read(log)
        let lines = intact.split(separator: 10, omittingEmptySubsequences: false)

        // A damaged line in the middle.
        var damaged = Array(lines[0]) + [10] + Array("garbage".utf8) + [10] + Array(lines[2]) + [10]
        try Disk.write(damaged, to: log)
        #expect { try directory.open() } throws: { ($0 as? StoreError)?.isCorruptFile(endingWith: "/audit.log") == true }

        // Entries lost (fewer than the state's revision): never silently accepted.
        damaged = Array(lines[0]) + [10]
        try Disk.write(damaged, to: log)
        #expect { try directory.open() } throws: { ($0 as? StoreError)?.isCorruptFile(endingWith: "/audit.log") == true }

        // Two uncommitted entries cannot come from a crash.
        try Disk.write(intact + Array(lines[0]) + [10] + Array(lines[0]) + [10], to: log)
        #expect { try directory.open() } throws: { ($0 as? StoreError)?.isCorruptFile(endingWith: "/audit.log") == true }

        try Disk.write(intact, to: log)
        store = try directory.open()
        #expect(store.snapshot.revision == 3)
    }
}

extension AuditEntry {
    /// The kill switch reason recorded in `after`, for tests that only change kill switches.
    var reason: String? {
        guard let after, let json = try? JSONSerialization.jsonObject(with: Data(after)) as? [String: Any] else { return nil }
        return json["reason"] as? String
    }
}
