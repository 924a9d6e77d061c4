import Foundation
import LiveryCrypto
import LiveryJSON
import SkinModel
import SkinStore
import Synchronization
import Testing

/// What every `SkinStore` implementation must do, as checks any test target can run against its own stores:
///
/// ```swift
/// @Test(arguments: StoreConformance.allCases)
/// func conforms(to check: StoreConformance) async throws {
///     try await check.run(with: .myStore)
/// }
/// ```
///
/// Each check starts from fresh storage (`StoreFactory.makeStorage`) and speaks only through the protocol, so the
/// same checks hold the file store and the next implementation (PostgreSQL) to the same promises.
public enum StoreConformance: String, CaseIterable, Sendable, CustomStringConvertible {
    case revisionsAreCheckedLikeIfMatch
    case filesRoundTripByContentAddress
    case anIdenticalUploadAddsNothing
    case aDamagedFileIsRefusedNamingIt
    case theAuditLogIsInOrderAndPages
    case killSwitchesAreKeptPerAppAndGlobally
    case releasesAreSetReplacedAndCleared
    case deletesKeepHistoryAndNumbers
    case changesSurviveCloseAndReopen
    case changesAreDecidedOnTheCurrentState
    case versionsAreNumberedPerSkinWithSortedFilesAndDigests
    case unsafeInputIsRefusedAndChangesNothing
    case releasesKeepTheirVersionUntilToldOtherwise
    case auditEntriesDescribeEachChange
    case eachChangeMovesTheRevisionsOfWhatItChanges
    case concurrentChangesAreSerializedAndReadersSeeWholeChanges
    case aScrubsMarksLeaveVersionsOutUntilAScrubFindsThemSound

    public var description: String { rawValue }

    /// Runs this check on stores made by `factory`.
    public func run(with factory: StoreFactory) async throws {
        let storage = try await factory.makeStorage()
        let clock = ConformanceClock()
        let store = try await storage.open(clock: clock.read)
        switch self {
        case .revisionsAreCheckedLikeIfMatch: try await Self.revisions(store)
        case .filesRoundTripByContentAddress: try await Self.roundTrip(store)
        case .anIdenticalUploadAddsNothing: try await Self.unchanged(store)
        case .aDamagedFileIsRefusedNamingIt: try await Self.damage(store, storage: storage)
        case .theAuditLogIsInOrderAndPages: try await Self.audit(store, clock: clock)
        case .killSwitchesAreKeptPerAppAndGlobally: try await Self.killSwitches(store, clock: clock)
        case .releasesAreSetReplacedAndCleared: try await Self.releases(store)
        case .deletesKeepHistoryAndNumbers: try await Self.deletes(store)
        case .changesSurviveCloseAndReopen: try await Self.reopen(store, storage: storage, clock: clock)
        case .changesAreDecidedOnTheCurrentState: try await Self.decided(store)
        case .versionsAreNumberedPerSkinWithSortedFilesAndDigests: try await Self.versions(store, clock: clock)
        case .unsafeInputIsRefusedAndChangesNothing: try await Self.unsafeInput(store)
        case .releasesKeepTheirVersionUntilToldOtherwise: try await Self.releaseVersions(store, clock: clock)
        case .auditEntriesDescribeEachChange: try await Self.auditEntries(store)
        case .eachChangeMovesTheRevisionsOfWhatItChanges: try await Self.revisionSteps(store)
        case .concurrentChangesAreSerializedAndReadersSeeWholeChanges: try await Self.concurrent(store)
        case .aScrubsMarksLeaveVersionsOutUntilAScrubFindsThemSound:
            try await Self.scrubMarks(store, storage: storage, clock: clock)
        }
        await store.close()
    }

    // MARK: Checks

    static func revisions(_ store: any SkinStore) async throws {
        #expect(store.snapshot.revision == 0)
        #expect(store.snapshot.revision(ofSkin: "spring") == 0)

        let first = try await add(store, expectedRevision: 0)
        #expect(first.number == 1)
        #expect(store.snapshot.revision == 1)
        #expect(store.snapshot.revision(ofSkin: "spring") == 1)

        // "The skin must not exist yet" fails once it does, and changes nothing.
        await expectMismatch(current: 1) { () async throws(StoreError) in try await add(store, expectedRevision: 0) }
        #expect(store.snapshot.revision == 1)
        #expect(try await store.audit(since: nil, limit: 100).count == 1)

        let second = try await add(store, variant: 1, expectedRevision: 1)
        #expect(second.number == 2)
        #expect(store.snapshot.revision(ofSkin: "spring") == 2)

        // Another skin's change moves the store's revision, not this skin's.
        try await add(store, skinID: "autumn", expectedRevision: 0)
        #expect(store.snapshot.revision == 3)
        #expect(store.snapshot.revision(ofSkin: "spring") == 2)
        #expect(store.snapshot.revision(ofSkin: "autumn") == 3)

        await expectMismatch(current: 2) { () async throws(StoreError) in
            try await store.setRelease(
                skinID: "spring", version: 1, plan: plan(), expectedRevision: 1, actor: actor,
                action: AuditAction.setRelease)
        }
        await expectMismatch(current: 2) { () async throws(StoreError) in
            try await store.clearRelease(skinID: "spring", expectedRevision: 3, actor: actor)
        }
        await expectMismatch(current: 2) { () async throws(StoreError) in
            try await store.deleteSkin(skinID: "spring", force: true, expectedRevision: 1, actor: actor)
        }
        // Kill switches have a revision of their own.
        await expectMismatch(current: 0) { () async throws(StoreError) in
            try await store.setKillSwitch(app: nil, enabled: true, reason: "", expectedRevision: 3, actor: actor)
        }
        #expect(store.snapshot.revision == 3, "refused changes change nothing")

        let released = try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(), expectedRevision: 2, actor: actor,
            action: AuditAction.setRelease)
        #expect(released.revision == 4)
        let switches = try await store.setKillSwitch(
            app: nil, enabled: true, reason: "", expectedRevision: 0, actor: actor)
        #expect(switches.revision == 5)
        #expect(store.snapshot.killSwitches.revision == 5)
        // Without an expected revision, a change is unconditional.
        try await add(store, variant: 2)
        #expect(store.snapshot.revision == 6)
    }

    static func roundTrip(_ store: any SkinStore) async throws {
        let files: [String: [UInt8]] = [
            "config.json": Array(#"{"name":"spring"}"#.utf8),
            "images/all-bytes.bin": (0...255).map { UInt8($0) },
            "images/copy.bin": (0...255).map { UInt8($0) },
            "empty.txt": [],
            "z/last.png": [UInt8](repeating: 0xAB, count: 70_000)
        ]
        let version = try await store.addVersion(
            skinID: "spring", files: files, metadata: metadata(), expectedRevision: nil, release: nil, actor: actor)
        #expect(
            version.files.map(\.path) == [
                "config.json", "empty.txt", "images/all-bytes.bin", "images/copy.bin", "z/last.png"
            ])
        #expect(version.metadata == metadata(), "metadata is kept")
        #expect(version.skinID == "spring")
        #expect(version.actor == actor)
        for file in version.files {
            let bytes = try #require(files[file.path])
            #expect(file.size == bytes.count)
            #expect(file.sha256 == SHA256.hexHash(bytes), "files are addressed by their SHA-256")
            #expect(try await store.fileBytes(skinID: "spring", version: 1, path: file.path) == bytes, "\(file.path)")
            let path = try await store.verifiedFilePath(of: file, skinID: "spring", version: 1)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "\(file.path)")
        }
        #expect(store.snapshot.skins["spring"]?.version(1) == version)

        // Identical content under two versions is the same address.
        let again = try await store.addVersion(
            skinID: "spring", files: files, metadata: metadata(), expectedRevision: nil, release: nil, actor: actor)
        #expect(again.number == 2)
        #expect(again.files == version.files)
        #expect(again.digest == version.digest, "the version digest depends on content only")

        await #expect(throws: StoreError.unknownSkin("winter")) {
            try await store.fileBytes(skinID: "winter", version: 1, path: "config.json")
        }
        await #expect(throws: StoreError.unknownVersion(skinID: "spring", version: 9)) {
            try await store.fileBytes(skinID: "spring", version: 9, path: "config.json")
        }
        await #expect(throws: StoreError.unknownFile(skinID: "spring", version: 1, path: "nope.json")) {
            try await store.fileBytes(skinID: "spring", version: 1, path: "nope.json")
        }
        // Unsafe names and paths are refused before anything is stored.
        for (skinID, path) in [("../up", "a"), ("spring", "../escape"), ("spring", "/absolute"), ("", "a")] {
            await #expect(throws: StoreError.self) {
                try await store.addVersion(
                    skinID: skinID, files: [path: [1]], metadata: metadata(), expectedRevision: nil, release: nil,
                    actor: actor)
            }
        }
        #expect(store.snapshot.revision == 2)
    }

    static func unchanged(_ store: any SkinStore) async throws {
        let first = try await store.addVersionUnlessUnchanged(
            skinID: "spring", files: files(), metadata: metadata(), expectedRevision: 0, actor: actor)
        #expect(first.added && first.version.number == 1)
        // The same files again (other metadata: it describes the upload, not the content): nothing is written.
        let again = try await store.addVersionUnlessUnchanged(
            skinID: "spring", files: files(), metadata: VersionMetadata(source: "retry"), expectedRevision: 1,
            actor: "ops-bob")
        #expect(!again.added)
        #expect(again.version == first.version)
        #expect(store.snapshot.revision == 1)
        #expect(try await store.audit(since: nil, limit: 100).count == 1)
        // The revision is still checked first.
        await expectMismatch(current: 1) { () async throws(StoreError) in
            try await store.addVersionUnlessUnchanged(
                skinID: "spring", files: files(), metadata: metadata(), expectedRevision: 0, actor: actor)
        }
        // Other files make a new version.
        let changed = try await store.addVersionUnlessUnchanged(
            skinID: "spring", files: files(variant: 1), metadata: metadata(), expectedRevision: 1, actor: actor)
        #expect(changed.added && changed.version.number == 2)
        // Only the latest version counts: going back to version 1's files is a new version.
        let back = try await store.addVersionUnlessUnchanged(
            skinID: "spring", files: files(), metadata: metadata(), expectedRevision: nil, actor: actor)
        #expect(back.added && back.version.number == 3)
    }

    static func damage(_ store: any SkinStore, storage: any StoreStorage) async throws {
        let version = try await add(store)
        let damaged = try #require(version.file(at: "images/background.png"))
        let intact = try #require(version.file(at: "config.json"))
        let name = try await storage.damage(digest: damaged.sha256)

        func isCorruptNamingIt(_ error: any Error) -> Bool {
            guard case .corruptFile(let path, let reason) = error as? StoreError else { return false }
            return path.contains(name) && reason.contains("spring v1 images/background.png")
        }
        await #expect(
            performing: {
                try await store.fileBytes(skinID: "spring", version: 1, path: "images/background.png")
            }, throws: isCorruptNamingIt)
        await #expect(
            performing: {
                try await store.verifiedFilePath(of: damaged, skinID: "spring", version: 1)
            }, throws: isCorruptNamingIt)
        // The rest of the version still reads.
        #expect(try await store.fileBytes(skinID: "spring", version: 1, path: "config.json") == files()["config.json"])
        _ = try await store.verifiedFilePath(of: intact, skinID: "spring", version: 1)
    }

    static func audit(_ store: any SkinStore, clock: ConformanceClock) async throws {
        #expect(try await store.audit(since: nil, limit: 100).isEmpty)
        var times: [Date] = []
        func step() {
            clock.advance(milliseconds: 1_500)
            times.append(clock.current)
        }
        step()
        try await add(store)
        step()
        try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(), expectedRevision: nil, actor: "ops-bob",
            action: "release.rollback")
        step()
        try await store.setKillSwitch(
            app: "com.example.app", enabled: true, reason: "incident", expectedRevision: nil, actor: actor)
        step()
        try await store.clearRelease(skinID: "spring", expectedRevision: nil, actor: actor)
        step()
        try await store.deleteSkin(skinID: "spring", force: false, expectedRevision: nil, actor: actor)

        let all = try await store.audit(since: nil, limit: 100)
        #expect(all.map(\.sequence) == [1, 2, 3, 4, 5], "entry N is the change that made revision N")
        #expect(
            all.map(\.action) == [
                AuditAction.addVersion, "release.rollback", AuditAction.setKillSwitch, AuditAction.clearRelease,
                AuditAction.deleteSkin
            ])
        #expect(all.map(\.actor) == [actor, "ops-bob", actor, actor, actor])
        #expect(all.map(\.skinID) == ["spring", "spring", nil, "spring", "spring"])
        #expect(all.map(\.time) == times, "each entry carries the store clock's time of its change")
        #expect(all[0].before == nil && all[0].after != nil)
        #expect(all[4].before != nil && all[4].after == nil)

        // Paging forward from the last sequence seen.
        #expect(try await store.audit(since: nil, limit: 2).map(\.sequence) == [1, 2])
        #expect(try await store.audit(since: .afterSequence(2), limit: 2).map(\.sequence) == [3, 4])
        #expect(try await store.audit(since: .afterSequence(4), limit: 2).map(\.sequence) == [5])
        #expect(try await store.audit(since: .afterSequence(5), limit: 2).isEmpty)
        #expect(try await store.audit(since: .afterSequence(0), limit: 100) == all)
        #expect(try await store.audit(since: nil, limit: 0).isEmpty)
        #expect(try await store.audit(since: nil, limit: -3).isEmpty)
        // By time: at or after the instant.
        #expect(try await store.audit(since: .time(times[2]), limit: 100).map(\.sequence) == [3, 4, 5])
        #expect(
            try await store.audit(since: .time(times[2].addingTimeInterval(0.001)), limit: 2).map(\.sequence) == [4, 5])
        #expect(try await store.audit(since: .time(times[4].addingTimeInterval(1)), limit: 100).isEmpty)
        // A refused change leaves no entry.
        await expectMismatch(current: 3) { () async throws(StoreError) in
            try await store.setKillSwitch(app: nil, enabled: true, reason: "", expectedRevision: 1, actor: actor)
        }
        #expect(try await store.audit(since: nil, limit: 100).count == 5)
    }

    static func killSwitches(_ store: any SkinStore, clock: ConformanceClock) async throws {
        #expect(store.snapshot.killSwitches == .none)
        #expect(!store.snapshot.killSwitches.isKilled(app: "com.example.app"))

        let app = try await store.setKillSwitch(
            app: "com.example.app", enabled: true, reason: "bad colors", expectedRevision: 0, actor: actor)
        #expect(app.revision == 1)
        #expect(app.global == nil)
        #expect(
            app.apps["com.example.app"]
                == KillSwitch(enabled: true, reason: "bad colors", actor: actor, changedAt: clock.current))
        #expect(store.snapshot.killSwitches == app)
        #expect(app.isKilled(app: "com.example.app"))
        #expect(!app.isKilled(app: "com.example.other"))

        clock.advance(milliseconds: 10)
        let global = try await store.setKillSwitch(
            app: nil, enabled: true, reason: "", expectedRevision: 1, actor: "ops-bob")
        #expect(global.global == KillSwitch(enabled: true, reason: "", actor: "ops-bob", changedAt: clock.current))
        #expect(global.isKilled(app: "com.example.other"))

        // Turning a switch off keeps its record, so the last change stays visible.
        let off = try await store.setKillSwitch(
            app: "com.example.app", enabled: false, reason: "fixed", expectedRevision: 2, actor: actor)
        #expect(off.apps["com.example.app"]?.enabled == false)
        #expect(off.apps["com.example.app"]?.reason == "fixed")
        let allOff = try await store.setKillSwitch(
            app: nil, enabled: false, reason: "", expectedRevision: 3, actor: actor)
        #expect(!allOff.isKilled(app: "com.example.app"))
        #expect(allOff.revision == 4)

        await #expect(throws: StoreError.self, "a NUL in the reason is refused") {
            try await store.setKillSwitch(
                app: nil, enabled: true, reason: "a\u{0}b", expectedRevision: nil, actor: actor)
        }
        await #expect(throws: StoreError.self, "an app id that is no safe name is refused") {
            try await store.setKillSwitch(app: "a/b", enabled: true, reason: "", expectedRevision: nil, actor: actor)
        }
        #expect(store.snapshot.killSwitches == allOff)
    }

    static func releases(_ store: any SkinStore) async throws {
        await #expect(throws: StoreError.unknownSkin("spring")) {
            try await store.setRelease(
                skinID: "spring", version: 1, plan: plan(), expectedRevision: nil, actor: actor,
                action: AuditAction.setRelease)
        }
        try await add(store)
        try await add(store, variant: 1)
        await #expect(throws: StoreError.unknownVersion(skinID: "spring", version: 3)) {
            try await store.setRelease(
                skinID: "spring", version: 3, plan: plan(), expectedRevision: nil, actor: actor,
                action: AuditAction.setRelease)
        }
        #expect(store.snapshot.skins["spring"]?.release == nil)

        // The plan is kept as given.
        let first = try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(rollout: 50, priority: 1), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        #expect(first.release?.version == 1)
        #expect(first.release?.plan == plan(rollout: 50, priority: 1) && first.release?.damage == nil)
        #expect(first.release?.actor == actor)
        #expect(store.snapshot.skins["spring"] == first)

        let replaced = try await store.setRelease(
            skinID: "spring", version: 2, plan: plan(), expectedRevision: first.revision, actor: actor,
            action: AuditAction.setRelease)
        #expect(replaced.release?.version == 2)
        #expect(replaced.versions.count == 2, "releasing keeps every version")

        let cleared = try await store.clearRelease(skinID: "spring", expectedRevision: replaced.revision, actor: actor)
        #expect(cleared.release == nil)
        let revision = store.snapshot.revision
        // Clearing again changes nothing and records nothing.
        let again = try await store.clearRelease(skinID: "spring", expectedRevision: nil, actor: actor)
        #expect(again == cleared)
        #expect(store.snapshot.revision == revision)
        #expect(try await store.audit(since: nil, limit: 100).count == revision)

        // A version added and released in one change: one revision, one audit entry.
        let released = try await store.addVersion(
            skinID: "autumn", files: files(), metadata: metadata(), expectedRevision: 0, release: plan(),
            actor: actor)
        #expect(store.snapshot.revision == revision + 1)
        #expect(store.snapshot.skins["autumn"]?.release?.version == released.number)
        #expect(store.snapshot.skins["autumn"]?.release?.plan == plan())
        #expect(
            try await store.audit(since: .afterSequence(revision), limit: 100).map(\.action) == [AuditAction.addVersion]
        )
    }

    static func deletes(_ store: any SkinStore) async throws {
        await #expect(throws: StoreError.unknownSkin("spring")) {
            try await store.deleteSkin(skinID: "spring", force: false, expectedRevision: nil, actor: actor)
        }
        try await add(store)
        try await add(store, variant: 1)
        try await store.setRelease(
            skinID: "spring", version: 2, plan: plan(), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        await #expect(throws: StoreError.skinReleased(skinID: "spring", version: 2)) {
            try await store.deleteSkin(skinID: "spring", force: false, expectedRevision: nil, actor: actor)
        }
        #expect(store.snapshot.skins["spring"] != nil)

        let deletion = try await store.deleteSkin(skinID: "spring", force: true, expectedRevision: 3, actor: actor)
        #expect(deletion == 4)
        #expect(store.snapshot.skins["spring"] == nil)
        #expect(store.snapshot.skinIDs.isEmpty)
        #expect(store.snapshot.revision(ofSkin: "spring") == 4, "a deleted skin keeps the revision of its deletion")
        await #expect(throws: StoreError.unknownSkin("spring")) {
            try await store.fileBytes(skinID: "spring", version: 1, path: "config.json")
        }

        // Uploaded again: "must not exist" is stale, and numbers go on where they stopped.
        await expectMismatch(current: 4) { () async throws(StoreError) in try await add(store, expectedRevision: 0) }
        let reborn = try await add(store, expectedRevision: 4)
        #expect(reborn.number == 3)
        #expect(store.snapshot.skins["spring"]?.versions.map(\.number) == [3])
        #expect(store.snapshot.skins["spring"]?.release == nil)
        // The history stays in the audit log.
        let actions = try await store.audit(since: nil, limit: 100).map(\.action)
        #expect(
            actions == [
                AuditAction.addVersion, AuditAction.addVersion, AuditAction.setRelease, AuditAction.deleteSkin,
                AuditAction.addVersion
            ])
    }

    static func reopen(_ store: any SkinStore, storage: any StoreStorage, clock: ConformanceClock) async throws {
        try await add(store)
        try await add(store, variant: 1)
        try await store.setRelease(
            skinID: "spring", version: 2, plan: plan(), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        try await add(store, skinID: "autumn")
        try await store.deleteSkin(skinID: "autumn", force: false, expectedRevision: nil, actor: actor)
        try await store.setKillSwitch(
            app: "com.example.app", enabled: true, reason: "r", expectedRevision: nil, actor: actor)
        let before = store.snapshot
        let audit = try await store.audit(since: nil, limit: 100)

        await store.close()
        await store.close()
        #expect(store.snapshot == before, "a closed store still answers reads with its last snapshot")
        await #expect(throws: StoreError.closed) { try await add(store, variant: 3) }
        await #expect(throws: StoreError.closed) {
            try await store.setKillSwitch(app: nil, enabled: true, reason: "", expectedRevision: nil, actor: actor)
        }

        let reopened = try await storage.open(clock: clock.read)
        #expect(reopened.snapshot == before, "every acknowledged change survives close and reopen")
        #expect(try await reopened.audit(since: nil, limit: 100) == audit)
        #expect(
            try await reopened.fileBytes(skinID: "spring", version: 2, path: "images/icon.png")
                == files(variant: 1)["images/icon.png"])
        // Deleted skins stay deleted with their numbers; the reopened store goes on from the same revision.
        let autumn = try await add(reopened, skinID: "autumn", expectedRevision: before.revision(ofSkin: "autumn"))
        #expect(autumn.number == 2)
        #expect(reopened.snapshot.revision == before.revision + 1)
        await reopened.close()
    }

    static func scrubMarks(_ store: any SkinStore, storage: any StoreStorage, clock: ConformanceClock) async throws {
        try await add(store)
        try await add(store, variant: 1)
        try await store.setRelease(
            skinID: "spring", version: 2, plan: plan(), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        try await add(store, skinID: "autumn")
        var report = StoreScrubReport()
        report.damages = [
            StoreDamage(kind: .blob, skinID: "spring", version: 2, location: "images/icon.png", reason: "flipped"),
            StoreDamage(kind: .blob, skinID: "spring", version: 2, location: "config.json", reason: "missing"),
            StoreDamage(kind: .version, skinID: "autumn", version: 1, location: "state.json", reason: "record"),
            StoreDamage(kind: .package, skinID: "autumn", version: 1, location: "a.zip", reason: "package"),
            StoreDamage(kind: .blob, skinID: "-", version: 0, location: "blobs/aa/bb", reason: "no version uses it"),
            StoreDamage(kind: .blob, skinID: "winter", version: 1, location: "config.json", reason: "no such skin")
        ]
        let before = store.snapshot.revision
        #expect(try await store.recordScrub(report) == ["spring"])
        let state = store.snapshot
        let marked = try #require(state.skins["spring"]?.version(2))
        #expect(marked.scrubDamage == "the scrub found images/icon.png damaged: flipped (and 1 more damaged file(s))")
        #expect(marked.damage == marked.scrubDamage)
        #expect(state.skins["spring"]?.version(1)?.damage == nil, "only the version using the damaged blobs")
        #expect(state.skins["autumn"]?.version(1)?.damage == nil, "a damaged record or package is no mark")
        #expect(state.damagedVersions.map(\.number) == [2])
        #expect(state.revision == before + 1 && state.revision(ofSkin: "spring") == before + 1)
        let entry = try #require(try await store.audit(since: .afterSequence(before), limit: 10).first)
        #expect(
            entry.action == AuditAction.markScrubDamage && entry.actor == StoreScrubReport.actor
                && entry.skinID == "spring")
        #expect(entry.before.map { String(decoding: $0, as: UTF8.self) } == #"{"damaged":[]}"#)
        // The same findings again change nothing.
        #expect(try await store.recordScrub(report).isEmpty)
        #expect(store.snapshot.revision == before + 1)

        // A marked version is neither read nor released, as damage found at load.
        await #expect(
            performing: {
                try await store.fileBytes(skinID: "spring", version: 2, path: "config.json")
            },
            throws: {
                ($0 as? StoreError).map { if case .damagedVersion("spring", 2, _) = $0 { true } else { false } }
                    ?? false
            })
        await #expect(
            performing: {
                try await store.setRelease(
                    skinID: "spring", version: 2, plan: plan(), expectedRevision: nil, actor: actor,
                    action: AuditAction.setRelease)
            },
            throws: {
                ($0 as? StoreError).map { if case .damagedVersion("spring", 2, _) = $0 { true } else { false } }
                    ?? false
            })
        #expect(try await store.fileBytes(skinID: "spring", version: 1, path: "config.json") == files()["config.json"])

        // Every process that loads the store sees the mark.
        let marks = store.snapshot
        await store.close()
        let reopened = try await storage.open(clock: clock.read)
        #expect(reopened.snapshot == marks)
        // A scrub that finds the version sound clears its mark.
        #expect(try await reopened.recordScrub(StoreScrubReport()) == ["spring"])
        #expect(reopened.snapshot.damagedVersions.isEmpty)
        #expect(
            try await reopened.fileBytes(skinID: "spring", version: 2, path: "config.json")
                == files(variant: 1)["config.json"])
        await reopened.close()
    }

    // MARK: Data

    /// A refusal of a test rule.
    struct Refused: Error, Equatable {
        let reason: String
    }

    /// The counter a test rule keeps in the release plan of `spring` (its priority).
    static func counter(in state: StoreSnapshot) -> Int {
        state.skins["spring"]?.release?.plan?.priority ?? 0
    }

    static func decided(_ store: any SkinStore) async throws {
        // An upload the rule chooses to add; the same files again add nothing.
        let upload = StoreUpload(skinID: "spring", files: files(), metadata: metadata())
        for expectedChange in [true, false] {
            let added = try await store.change(actor: actor, upload: upload) { _ throws(Refused) in
                StoreDecision(edit: .addUpload(unlessUnchanged: true), value: "push")
            }.get()
            #expect(added.changed == expectedChange && added.value == "push")
            #expect(added.state.skins["spring"]?.versions.count == 1)
            #expect(added.state.revision == 1 && store.snapshot.revision == 1)
        }
        #expect(
            try await store.fileBytes(skinID: "spring", version: 1, path: "images/icon.png")
                == files()["images/icon.png"])

        // A refusal and an empty decision change nothing and come back as they are.
        let refused = try await store.change(actor: actor, upload: nil) { state throws(Refused) -> StoreDecision<Int> in
            throw Refused(reason: "revision \(state.revision)")
        }
        #expect(throws: Refused(reason: "revision 1")) { try refused.get() }
        let kept = try await store.change(actor: actor, upload: nil) { state throws(Refused) in
            StoreDecision<Int>.unchanged(state.revision)
        }.get()
        #expect(kept.value == 1 && !kept.changed && store.snapshot.revision == 1)
        #expect(try await store.audit(since: nil, limit: 100).count == 1)

        // Read-modify-write rules run one at a time on the state each commit left: 24 concurrent increments of a
        // counter in the release plan all count.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    _ = try await store.change(actor: actor, upload: nil) { state throws(Refused) in
                        let next = counter(in: state) + 1
                        return StoreDecision(
                            edit: .setRelease(
                                skinID: "spring", version: 1, plan: plan(priority: next),
                                action: AuditAction.setRelease),
                            value: next)
                    }.get()
                }
            }
            try await group.waitForAll()
        }
        #expect(counter(in: store.snapshot) == 24)
        #expect(store.snapshot.revision == 25)
        #expect(try await store.currentSnapshot().revision == 25)

        // The chosen edit's own rules still hold (an unknown skin), thrown as the store's error.
        do throws(StoreError) {
            _ = try await store.change(actor: actor, upload: nil) { _ throws(Refused) in
                StoreDecision(edit: .clearRelease(skinID: "winter"), value: 0)
            }
            Issue.record("clearing an unknown skin's release was not refused")
        } catch {
            #expect(error == .unknownSkin("winter"))
        }
        // Kill switches and deletes through a rule.
        let switched = try await store.change(actor: actor, upload: nil) { _ throws(Refused) in
            StoreDecision(edit: .setKillSwitch(app: "demo", enabled: true, reason: "rule"), value: 0)
        }.get()
        #expect(switched.state.killSwitches.apps["demo"]?.enabled == true && switched.changed)
        let deleted = try await store.change(actor: actor, upload: nil) { _ throws(Refused) in
            StoreDecision(edit: .deleteSkin(skinID: "spring", force: true), value: 0)
        }.get()
        #expect(deleted.state.skins["spring"] == nil && store.snapshot.skins["spring"] == nil)
    }

    static let actor = "ops-alice"

    static func files(variant: Int = 0) -> [String: [UInt8]] {
        [
            "config.json": Array(#"{"name":"spring"}"#.utf8),
            "images/background.png": [0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 7, count: 100),
            "images/icon.png": [0x89, 0x50, 0x4E, 0x47, UInt8(variant & 0xFF)]
        ]
    }

    static func metadata() -> VersionMetadata { VersionMetadata(skin: JSONObject([.init(key: "id", value: "spring")])) }

    /// A release plan for a year from the conformance clock's start.
    static func plan(rollout: Int = 100, priority: Int = 10) -> ReleasePlan {
        ReleasePlan(
            startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: Date(timeIntervalSince1970: 1_831_536_000),
            priority: priority, rollout: rollout)
    }

    @discardableResult
    static func add(
        _ store: any SkinStore, skinID: String = "spring", variant: Int = 0, expectedRevision: Int? = nil
    ) async throws(StoreError) -> SkinVersion {
        try await store.addVersion(
            skinID: skinID, files: files(variant: variant), metadata: metadata(), expectedRevision: expectedRevision,
            release: nil, actor: actor)
    }

    /// Expects `change` to be refused as stale with `current` named as the revision now.
    static func expectMismatch(
        current: Int, sourceLocation: SourceLocation = #_sourceLocation,
        _ change: () async throws(StoreError) -> some Sendable
    ) async {
        await expectRefused(
            "the change", matching: { $0 == .revisionMismatch(current: current) }, sourceLocation: sourceLocation,
            change)
    }
}

/// The clock the checks give a store: it moves only when a check moves it, in whole milliseconds (the precision
/// stores keep).
public final class ConformanceClock: Sendable {
    private let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    public init() {}

    public var read: @Sendable () -> Date { { [self] in current } }

    public var current: Date { now.withLock { $0 } }

    func advance(milliseconds: Int) {
        now.withLock { $0 += Double(milliseconds) / 1000 }
    }

    /// Moves by `seconds`, fractions of a millisecond included (which stores drop).
    func advance(seconds: TimeInterval) {
        now.withLock { $0 += seconds }
    }
}
