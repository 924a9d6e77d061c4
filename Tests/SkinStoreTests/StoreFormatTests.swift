import Foundation
import TestSupport
import Testing

@testable import SkinStore

/// `state.json` and `audit.log` are read and written with LiveryJSON; a store written before (by `JSONEncoder`,
/// kept in Tests/Fixtures/store-format-1) opens with everything it held, and its records are written back byte
/// for byte.
@Suite struct StoreFormatTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/store-format-1").path

    @Test func aStoreWrittenByEarlierBuildsOpensWithEverythingItHeld() async throws {
        let directory = try ScratchDirectory.forStore()
        try FileManager.default.removeItem(atPath: directory.path)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: directory.path)
        let store = try directory.open()
        let snapshot = store.snapshot
        #expect(snapshot.revision == 10)
        #expect(snapshot.skinIDs == ["spring"])
        #expect(snapshot.revision(ofSkin: "autumn") == 6, "a deleted skin keeps its revision")
        let spring = try #require(snapshot.skins["spring"])
        #expect(spring.versions.map(\.number) == [1, 2])
        #expect(spring.versions.map(\.damage) == [nil, nil])
        #expect(spring.versions[0].files.map(\.path) == ["config.json", "images/icon.png", "skin.json"])
        #expect(String(decoding: spring.versions[0].metadata, as: UTF8.self).contains("Spring / 春"))
        #expect(spring.release?.version == 1)
        #expect(spring.release?.document == Array(#"{"kind":"theme","order":2}"#.utf8))
        #expect(spring.release?.releasedAt == Date(timeIntervalSince1970: 1_796_000_012.625))
        #expect(snapshot.killSwitches.revision == 8)
        #expect(snapshot.killSwitches.global?.reason == "incident \"7\"\tnight")
        #expect(snapshot.killSwitches.apps["demo"]?.enabled == false)
        #expect(
            try await store.fileBytes(skinID: "spring", version: 2, path: "images/icon.png") == [
                0x89, 0x50, 0x4E, 0x47, 2
            ])

        let audit = store.audit(since: nil, limit: 100)
        #expect(
            audit.map(\.action) == [
                "version.add", "version.add", "release.set", "release.rollback", "version.add", "skin.delete",
                "killswitch.set", "killswitch.set", "release.clear", "release.set"
            ])
        #expect(audit[3].actor == "alice" && audit[3].skinID == "spring")
        #expect(audit[6].skinID == nil && audit[6].before == nil)
        #expect(
            String(decoding: audit[6].after ?? [], as: UTF8.self)
                == #"{"app":null,"enabled":true,"reason":"incident \"7\"\tnight"}"#)

        // It goes on: a change is written and read back by this build.
        try await store.setKillSwitch(app: nil, enabled: false, reason: "over", actor: "carol")
        store.close()
        let reopened = try directory.open()
        #expect(reopened.snapshot.revision == 11)
        #expect(reopened.audit(since: .afterSequence(10), limit: 10).map(\.actor) == ["carol"])
    }

    @Test func itsRecordsAreWrittenBackByteForByte() throws {
        let state = try Disk.read(Self.fixture + "/state.json")
        #expect(try PersistedState.parse(state).encoded() == state)
        let log = try Disk.read(Self.fixture + "/audit.log")
        let lines = log.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 10)
        for line in lines {
            #expect(try AuditLog.Record(Array(line)).encodedLine() == Array(line) + [UInt8(ascii: "\n")])
        }
    }

    @Test func aRecordThatIsNotWhatTheStoreWritesIsNamed() {
        #expect(throws: StoredObject.Fault.self) { try PersistedState.parse(Array(#"{"format":1}"#.utf8)) }
        do {
            _ = try AuditLog.Record(Array(#"{"seq":1,"time":"soon","actor":"a","action":"b"}"#.utf8))
            Issue.record("a time that is not a number was read")
        } catch {
            #expect(error.text == "time is string, not a whole number")
        }
    }
}
