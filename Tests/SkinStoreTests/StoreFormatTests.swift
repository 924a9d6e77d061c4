import Foundation
import LiveryCrypto
import LiveryJSON
import SkinModel
import TestSupport
import Testing

@testable import SkinStore

/// `state.json` and `audit.log` are read and written with LiveryJSON; a store written before (by `JSONEncoder`,
/// kept in Tests/Fixtures/store-format-1) opens with everything it held, and its records are written back byte
/// for byte. Version metadata and release plans are typed values, each read from its stored bytes in one place
/// (`VersionMetadata.parse`, `Release.loaded`) and written in one (`VersionMetadata.encoded`, `Release.init`).
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
        #expect(spring.versions[0].metadata.title == "Spring / 春" && spring.versions[0].metadata.app == "demo")
        #expect(spring.versions[0].metadata.source == "upload")
        #expect(spring.release?.version == 1)
        #expect(spring.release?.document == Array(#"{"kind":"theme","order":2}"#.utf8))
        #expect(spring.release?.plan?.kind == .theme && spring.release?.plan?.order == 2)
        #expect(spring.release?.plan?.hasWindow == false && spring.release?.damage == nil)
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

    /// What the push and the importer write reads back to the same value, in the bytes earlier builds wrote.
    @Test func versionMetadataIsWrittenAndReadInOnePlaceEach() throws {
        let pushed = VersionMetadata(
            source: "upload",
            archive: VersionMetadata.Archive(
                sha256: String(repeating: "a", count: 64), size: 512, skipped: ["__MACOSX/x"], strippedFolder: nil),
            skin: JSONObject([.init(key: "id", value: "spring"), .init(key: "title", value: "Spring")]),
            report: JSONObject([.init(key: "valid", value: true), .init(key: "warnings", value: 2)]))
        #expect(
            String(decoding: pushed.encoded(), as: UTF8.self)
                == #"{"source":"upload","archiveSha256":"\#(String(repeating: "a", count: 64))","archiveBytes":512,"#
                + #""skipped":["__MACOSX/x"],"strippedFolder":null,"skin":{"id":"spring","title":"Spring"},"#
                + #""report":{"valid":true,"warnings":2}}"#)
        #expect(try VersionMetadata.parse(pushed.encoded()) == pushed)
        #expect(pushed.title == "Spring" && pushed.warnings == 2 && pushed.app == nil)
        let imported = VersionMetadata(source: "import", folder: "spring", skin: JSONObject())
        #expect(
            String(decoding: imported.encoded(), as: UTF8.self) == #"{"source":"import","folder":"spring","skin":{}}"#)
        #expect(try VersionMetadata.parse(imported.encoded()) == imported)
        // Members this build does not know are left alone; the ones it knows must be what it writes.
        #expect(try VersionMetadata.parse(Array(#"{"note":"v","seed":1}"#.utf8)) == VersionMetadata())
        for (bytes, fault) in [
            ("[]", "the record is array, not an object"), (#"{"skin":"spring"}"#, "skin is string, not an object"),
            (#"{"archiveSha256":"ab"}"#, "archiveBytes is missing, not a whole number"),
            (#"{"archiveSha256":"ab","archiveBytes":1,"skipped":[1]}"#, "skipped holds number, not a string")
        ] {
            do {
                _ = try VersionMetadata.parse(Array(bytes.utf8))
                Issue.record("\(bytes) was read as version metadata")
            } catch {
                #expect(error.text == fault)
            }
        }
    }

    /// Metadata bytes that match their digest but are not version metadata damage that version alone, as damaged
    /// bytes do.
    @Test func metadataThatIsNotVersionMetadataDamagesItsVersion() {
        let bytes = Array(#"{"skin":[]}"#.utf8)
        let version = SkinVersion.loaded(
            skinID: "spring", number: 3, createdAt: Date(timeIntervalSince1970: 0), actor: "ops", files: [],
            metadata: bytes, metadataDigest: SHA256.hexHash(bytes), metadataSize: bytes.count,
            digest: SkinVersion.digest(files: [], metadataDigest: SHA256.hexHash(bytes)), scrubDamage: nil)
        #expect(version.damage == "the metadata of spring v3 is not version metadata: skin is array, not an object")
        #expect(version.metadata == VersionMetadata() && version.metadataBytes.isEmpty)
    }

    /// A release document is parsed once, when the store loads it, as of its release time; a document that is not
    /// a plan (changed behind the store's back) is kept, byte for byte, as a damaged release of its skin, which
    /// every other change leaves alone and the skin's next release replaces.
    @Test func aReleaseDocumentThatIsNotAPlanIsKeptAsADamagedRelease() async throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try await Make.versions(2, in: store)
        try await store.setRelease(skinID: "spring", version: 2, plan: Make.plan(rollout: 30), actor: Make.actor)
        let sound = try #require(store.snapshot.skins["spring"]?.release)
        #expect(sound.document == Make.plan(rollout: 30).jsonValue.serialized(.compact))
        store.close()

        store = try directory.open()
        #expect(store.snapshot.skins["spring"]?.release == sound)
        #expect(store.snapshot.skins["spring"]?.release?.plan == Make.plan(rollout: 30))
        store.close()

        let statePath = directory.path + "/state.json"
        let damaged = Array(#"{"rollout":"all"}"#.utf8)
        let state = String(decoding: try Disk.read(statePath), as: UTF8.self)
        let base64 = Data(sound.document).base64EncodedString()
        #expect(state.contains(base64))
        try Disk.write(
            Array(state.replacingOccurrences(of: base64, with: Data(damaged).base64EncodedString()).utf8),
            to: statePath)

        store = try directory.open()
        let release = try #require(store.snapshot.skins["spring"]?.release)
        #expect(release.version == 2 && release.plan == nil && release.document == damaged)
        #expect(release.damage?.contains("rollout must be a whole percentage") == true, "\(release.damage ?? "")")
        #expect(store.snapshot.damagedVersions.isEmpty, "the versions themselves are sound")
        try await store.setKillSwitch(app: nil, enabled: true, reason: "incident", actor: Make.actor)
        try await Make.versions(1, of: "winter", in: store)
        store.close()

        store = try directory.open()
        #expect(store.snapshot.skins["spring"]?.release == release, "written back as it was")
        let replaced = try await store.setRelease(skinID: "spring", version: 1, plan: Make.plan(), actor: Make.actor)
        #expect(replaced.release?.plan == Make.plan() && replaced.release?.damage == nil)
        let audit = store.audit(since: .afterSequence(store.snapshot.revision - 1), limit: 1)
        #expect(
            String(decoding: audit.first?.before ?? [], as: UTF8.self) == #"{"version":2,"document":{"rollout":"all"}}"#
        )
        store.close()
    }
}
