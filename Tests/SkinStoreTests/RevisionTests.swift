import Foundation
import Synchronization
import SkinStore
import Testing
import TestSupport

@Suite("Revisions and optimistic concurrency")
struct RevisionTests {
    @Test func everyChangeAdvancesTheStoreRevisionByOne() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        #expect(store.snapshot.revision == 0)
        try Make.versions(1, in: store)
        #expect(store.snapshot.revision == 1)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(), actor: Make.actor)
        #expect(store.snapshot.revision == 2)
        try store.setKillSwitch(app: nil, enabled: true, reason: "", actor: Make.actor)
        #expect(store.snapshot.revision == 3)
        try store.clearRelease(skinID: "spring", actor: Make.actor)
        #expect(store.snapshot.revision == 4)
        try store.deleteSkin(skinID: "spring", actor: Make.actor)
        #expect(store.snapshot.revision == 5)
    }

    @Test func skinRevisionMovesOnlyWithChangesToThatSkin() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try Make.versions(1, of: "a", in: store)
        try Make.versions(1, of: "b", in: store)
        try store.setKillSwitch(app: "news", enabled: true, reason: "", actor: Make.actor)
        #expect(store.snapshot.skins["a"]?.revision == 1)
        #expect(store.snapshot.skins["b"]?.revision == 2)
        #expect(store.snapshot.revision(ofSkin: "never") == 0)
        try store.setRelease(skinID: "a", version: 1, document: Make.releaseDocument(), actor: Make.actor)
        #expect(store.snapshot.skins["a"]?.revision == 4)
        #expect(store.snapshot.skins["b"]?.revision == 2)
    }

    /// Each mutator, called with a revision one behind, for a store holding "spring" v1 and v2 released at v1.
    enum StaleChange: String, CaseIterable {
        case addVersion, setRelease, clearRelease, deleteSkin, setKillSwitch

        func apply(to store: FileSkinStore, expectedRevision: Int) throws {
            switch self {
            case .addVersion:
                try store.addVersion(
                    skinID: "spring", files: Make.files(variant: 9), metadata: Make.metadata(),
                    expectedRevision: expectedRevision, actor: Make.actor)
            case .setRelease:
                try store.setRelease(
                    skinID: "spring", version: 2, document: Make.releaseDocument(), expectedRevision: expectedRevision,
                    actor: Make.actor)
            case .clearRelease:
                try store.clearRelease(skinID: "spring", expectedRevision: expectedRevision, actor: Make.actor)
            case .deleteSkin:
                try store.deleteSkin(skinID: "spring", force: true, expectedRevision: expectedRevision, actor: Make.actor)
            case .setKillSwitch:
                try store.setKillSwitch(
                    app: nil, enabled: true, reason: "", expectedRevision: expectedRevision, actor: Make.actor)
            }
        }

        func currentRevision(in snapshot: StoreSnapshot) -> Int {
            self == .setKillSwitch ? snapshot.killSwitches.revision : snapshot.revision(ofSkin: "spring")
        }
    }

    static func prepared(_ directory: ScratchDirectory) throws -> FileSkinStore {
        let store = try directory.open()
        try Make.versions(2, in: store)
        try store.setKillSwitch(app: nil, enabled: false, reason: "", actor: Make.actor)
        try store.setRelease(skinID: "spring", version: 1, document: Make.releaseDocument(), actor: Make.actor)
        return store
    }

    @Test(arguments: StaleChange.allCases)
    func staleRevisionIsRefusedAndChangesNothing(change: StaleChange) throws {
        let directory = try ScratchDirectory.forStore()
        let store = try Self.prepared(directory)
        let before = store.snapshot
        let current = change.currentRevision(in: before)
        #expect(throws: StoreError.revisionMismatch(current: current)) {
            try change.apply(to: store, expectedRevision: current - 1)
        }
        #expect(store.snapshot == before)
        #expect(store.audit(limit: 100).count == before.revision)
    }

    @Test(arguments: StaleChange.allCases)
    func currentRevisionIsAccepted(change: StaleChange) throws {
        let directory = try ScratchDirectory.forStore()
        let store = try Self.prepared(directory)
        let before = store.snapshot
        try change.apply(to: store, expectedRevision: change.currentRevision(in: before))
        #expect(store.snapshot.revision == before.revision + 1)
    }

    @Test func revisionZeroMeansCreateOnly() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        try store.addVersion(skinID: "new", files: [:], metadata: Make.metadata(), expectedRevision: 0, actor: Make.actor)
        #expect(throws: StoreError.revisionMismatch(current: 1)) {
            try store.addVersion(skinID: "new", files: [:], metadata: Make.metadata(), expectedRevision: 0, actor: Make.actor)
        }
        try store.deleteSkin(skinID: "new", actor: Make.actor)
        // A deleted skin keeps its revision, so an ETag from before the deletion never matches again.
        #expect(throws: StoreError.revisionMismatch(current: 2)) {
            try store.addVersion(skinID: "new", files: [:], metadata: Make.metadata(), expectedRevision: 0, actor: Make.actor)
        }
    }

    @Test func concurrentWritersAreSerializedAndReadersSeeWholeChanges() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        let writers = 4
        let changesPerWriter = 10
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: writers + 1) { index in
            if index == writers {
                // A reader: revisions only grow, and every snapshot is internally consistent.
                var last = 0
                let deadline = Date().addingTimeInterval(30)
                while last < writers * changesPerWriter && Date() < deadline {
                    let snapshot = store.snapshot
                    if snapshot.revision < last { failures.add("revision went back") }
                    if snapshot.killSwitches.revision != snapshot.revision { failures.add("half-applied change") }
                    last = snapshot.revision
                }
                return
            }
            for change in 0..<changesPerWriter {
                do {
                    try store.setKillSwitch(app: "app\(index)", enabled: change % 2 == 0, reason: "\(change)", actor: "w\(index)")
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(store.snapshot.revision == writers * changesPerWriter)
        #expect(store.audit(limit: 1000).map(\.sequence) == Array(1...(writers * changesPerWriter)))
    }
}

/// Failures collected from several threads.
final class Failures: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ failure: String) { list.withLock { $0.append(failure) } }
    var all: [String] { list.withLock { $0 } }
}
