import Foundation
import SkinStore
import Testing
import TestSupport

@Suite("Releases")
struct ReleaseTests {
    @Test func releasesAVersionWithItsDocumentByteForByte() throws {
        let clock = TestClock()
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open(clock: clock)
        try Make.versions(2, in: store)
        clock.advance(seconds: 60)
        let document = Array(#"{ "rollout" : 30,  "platforms": ["ios"] }"#.utf8)
        let skin = try store.setRelease(skinID: "spring", version: 1, document: document, actor: "bob")

        let release = try #require(skin.release)
        #expect(release.version == 1)
        #expect(release.document == document)
        #expect(release.actor == "bob")
        #expect(release.releasedAt == clock.current)
        #expect(skin.revision == 3)
        #expect(store.snapshot.skins["spring"] == skin)
    }

    @Test func addingAVersionCanReleaseItInTheSameChange() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(1, in: store)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(rollout: 5), actor: Make.actor)
        let version = try store.addVersion(
            skinID: "spring", files: Make.files(variant: 1), metadata: Make.metadata(),
            release: Make.releaseDocument(rollout: 20), actor: "importer")
        let skin = try #require(store.snapshot.skins["spring"])
        #expect(skin.release?.version == version.number)
        #expect(skin.release?.document == Make.releaseDocument(rollout: 20))
        #expect(skin.release?.actor == "importer")
        #expect(store.snapshot.revision == 3)
        let after = try #require(store.audit().last?.after)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(after)) as? [String: Any])
        #expect((json["release"] as? [String: Any])?["version"] as? Int == 2)

        #expect {
            try store.addVersion(skinID: "spring", files: [:], metadata: Make.metadata(), release: Array("{".utf8), actor: Make.actor)
        } throws: { error in
            if case .invalidDocument = error as? StoreError { return true }
            return false
        }
        #expect(store.snapshot.revision == 3)
    }

    @Test func changingOnlyTheDocumentKeepsTheVersion() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(1, in: store)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(rollout: 10), actor: Make.actor)
        let skin = try store.setRelease(
            skinID: "spring", version: 1, document: Make.releaseDocument(rollout: 50), actor: Make.actor)
        #expect(skin.release?.version == 1)
        #expect(skin.release?.document == Make.releaseDocument(rollout: 50))
    }

    @Test func addingAVersionLeavesTheReleaseAlone() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(1, in: store)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(), actor: Make.actor)
        try Make.versions(1, in: store)
        let skin = try #require(store.snapshot.skins["spring"])
        #expect(skin.versions.count == 2)
        #expect(skin.release?.version == 1)
    }

    @Test func refusesUnknownSkinsVersionsAndDocuments() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(1, in: store)
        #expect(throws: StoreError.unknownSkin("winter")) {
            try store.setRelease(skinID: "winter", version: 1, document: Make.releaseDocument(), actor: Make.actor)
        }
        #expect(throws: StoreError.unknownVersion(skinID: "spring", version: 2)) {
            try store.setRelease(skinID: "spring", version: 2, document: Make.releaseDocument(), actor: Make.actor)
        }
        #expect {
            try store.setRelease(skinID: "spring", version: 1, document: Array("{".utf8), actor: Make.actor)
        } throws: { error in
            if case .invalidDocument = error as? StoreError { return true }
            return false
        }
        #expect(throws: StoreError.unknownSkin("winter")) { try store.clearRelease(skinID: "winter", actor: Make.actor) }
        #expect(store.snapshot.revision == 1)
        #expect(store.snapshot.skins["spring"]?.release == nil)
    }

    @Test func clearingStopsServingAndIsIdempotent() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(1, in: store)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(), actor: Make.actor)
        let cleared = try store.clearRelease(skinID: "spring", actor: Make.actor)
        #expect(cleared.release == nil)
        #expect(cleared.revision == 3)

        let again = try store.clearRelease(skinID: "spring", actor: Make.actor)
        #expect(again == cleared)
        #expect(store.snapshot.revision == 3)
        #expect(store.audit(limit: 10).map(\.action) == ["version.add", "release.set", "release.clear"])
    }

    @Test func recordsACallerChosenAuditAction() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(2, in: store)
        try store.setRelease(
            skinID: "spring", version: 1, document: Make.releaseDocument(), actor: Make.actor, action: "release.rollback")
        #expect(store.audit(since: .afterSequence(2)).map(\.action) == ["release.rollback"])
        #expect(throws: StoreError.invalidName("", reason: "empty")) {
            try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(), actor: Make.actor, action: "")
        }
    }
}

@Suite("Kill switches")
struct KillSwitchTests {
    @Test func globalSwitchKillsEveryApp() throws {
        let clock = TestClock()
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open(clock: clock)
        #expect(store.snapshot.killSwitches == .none)
        let switches = try store.setKillSwitch(app: nil, enabled: true, reason: "bad asset", actor: "carol")
        #expect(switches.global?.enabled == true)
        #expect(switches.global?.reason == "bad asset")
        #expect(switches.global?.actor == "carol")
        #expect(switches.global?.changedAt == clock.current)
        #expect(switches.revision == 1)
        #expect(switches.isKilled(app: "any-app"))
        #expect(store.snapshot.killSwitches == switches)
    }

    @Test func appSwitchKillsOnlyThatAppAndKeepsItsRecordWhenOff() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try store.setKillSwitch(app: "news", enabled: true, reason: "crash on launch", actor: Make.actor)
        var switches = store.snapshot.killSwitches
        #expect(switches.isKilled(app: "news"))
        #expect(!switches.isKilled(app: "mail"))
        #expect(switches.global == nil)

        switches = try store.setKillSwitch(app: "news", enabled: false, reason: "fixed", actor: Make.actor)
        #expect(!switches.isKilled(app: "news"))
        #expect(switches.apps["news"]?.reason == "fixed")
        #expect(switches.revision == 2)
    }

    @Test func refusesBadAppIdsAndReasons() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect(throws: StoreError.invalidName("..", reason: "is ..")) {
            try store.setKillSwitch(app: "..", enabled: true, reason: "", actor: Make.actor)
        }
        #expect(throws: StoreError.invalidText(field: "reason", reason: "contains NUL")) {
            try store.setKillSwitch(app: nil, enabled: true, reason: "a\0b", actor: Make.actor)
        }
        #expect {
            try store.setKillSwitch(
                app: nil, enabled: true, reason: String(repeating: "x", count: FileSkinStore.maximumTextLength + 1),
                actor: Make.actor)
        } throws: { error in
            if case .invalidText = error as? StoreError { return true }
            return false
        }
        #expect(store.snapshot.revision == 0)
    }
}

@Suite("Skin deletion")
struct DeletionTests {
    @Test func deletedSkinLeavesListingsButNotTheAudit() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(2, in: store)
        try Make.versions(1, of: "winter", in: store)
        let revision = try store.deleteSkin(skinID: "spring", actor: "dave")
        #expect(revision == 4)
        #expect(store.snapshot.skinIDs == ["winter"])
        #expect(store.snapshot.revision(ofSkin: "spring") == 4)
        let entry = try #require(store.audit(since: .afterSequence(3)).first)
        #expect(entry.action == "skin.delete")
        #expect(entry.skinID == "spring")
        #expect(entry.actor == "dave")
        #expect(entry.after == nil)
        #expect(store.audit().filter { $0.skinID == "spring" }.count == 3)
        #expect(throws: StoreError.unknownSkin("spring")) {
            try store.fileBytes(skinID: "spring", version: 1, path: "config.json")
        }
    }

    @Test func versionNumbersAreNotReusedAfterDeletion() throws {
        let directory = try ScratchDirectory.forStore()
        var store = try directory.open()
        try Make.versions(2, in: store)
        try store.deleteSkin(skinID: "spring", actor: Make.actor)
        #expect(try Make.versions(1, in: store).first?.number == 3)
        try store.deleteSkin(skinID: "spring", actor: Make.actor)
        store.close()
        store = try directory.open()
        let again = try Make.versions(1, in: store)
        #expect(again.first?.number == 4)
        #expect(store.snapshot.skins["spring"]?.versions.map(\.number) == [4])
    }

    @Test func refusesToDeleteAReleasedSkinUnlessForced() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(2, in: store)
        try store.setRelease(skinID: "spring", version: 2, document: Make.releaseDocument(), actor: Make.actor)
        #expect(throws: StoreError.skinReleased(skinID: "spring", version: 2)) {
            try store.deleteSkin(skinID: "spring", actor: Make.actor)
        }
        #expect(store.snapshot.skins["spring"]?.release?.version == 2)

        try store.deleteSkin(skinID: "spring", force: true, actor: Make.actor)
        #expect(store.snapshot.skins.isEmpty)
        let before = try #require(store.audit().last?.before)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(before)) as? [String: Any])
        #expect(json["versions"] as? [Int] == [1, 2])
        #expect((json["release"] as? [String: Any])?["version"] as? Int == 2)
    }

    @Test func refusesUnknownSkins() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect(throws: StoreError.unknownSkin("ghost")) { try store.deleteSkin(skinID: "ghost", actor: Make.actor) }
        #expect(store.snapshot.revision == 0)
    }
}
