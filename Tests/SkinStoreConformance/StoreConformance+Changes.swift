import Foundation
import LiveryJSON
import SkinModel
import SkinStore
import Synchronization
import Testing

/// Releases, audit entries, revisions and concurrent changes in detail (moved here from the file store's own tests,
/// so PostgreSQL keeps the same promises).
extension StoreConformance {
    static func releaseVersions(_ store: any SkinStore, clock: ConformanceClock) async throws {
        try await add(store)
        try await add(store, variant: 1)
        clock.advance(milliseconds: 60_000)
        let first = try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(rollout: 10), expectedRevision: nil, actor: "bob",
            action: AuditAction.setRelease)
        #expect(first.release?.releasedAt == clock.current && first.release?.actor == "bob")
        #expect(first.revision == 3)
        // A new plan alone keeps the version.
        let rollout = try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(rollout: 50), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        #expect(rollout.release?.version == 1 && rollout.release?.plan == plan(rollout: 50))
        // A release written once for every year (issue 27) is a plan like any other: its rule and its overrides
        // are kept as written, and a reader of the store sees them.
        let yearly = try #require(
            ReleasePlan.parse(
                try JSONValue.parse(
                    Array(
                        #"{"recurs":{"calendar":"chinese","month":1,"day":1,"startOffsetDays":-7,"endOffsetDays":15},"occurrences":{"2027":"skip","2028":{"startsAt":"2028-01-20T00:00:00","endsAt":"2028-02-10T00:00:00"}},"timeZone":"Asia/Shanghai","rollout":50}"#
                            .utf8)), file: nil, pointer: .root, now: clock.current
            ).value)
        let recurring = try await store.setRelease(
            skinID: "spring", version: 1, plan: yearly, expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        #expect(recurring.release?.plan == yearly && store.snapshot.skins["spring"]?.release?.plan == yearly)
        #expect(yearly.recurrence != nil && yearly.occurrenceOverrides[2027] == .skip)
        // A new version leaves the release alone.
        try await add(store, variant: 2)
        #expect(store.snapshot.skins["spring"]?.versions.count == 3)
        #expect(store.snapshot.skins["spring"]?.release?.version == 1)
        // Unless it is released in the change that adds it: the audit entry names the release.
        let released = try await store.addVersion(
            skinID: "spring", files: files(variant: 3), metadata: metadata(), expectedRevision: nil,
            release: plan(),
            actor: "importer")
        let skin = try #require(store.snapshot.skins["spring"])
        #expect(skin.release?.version == released.number && skin.release?.actor == "importer")
        let after = try json(try await store.audit(since: nil, limit: 100).last?.after)
        #expect((after["release"] as? [String: Any])?["version"] as? Int == released.number)
    }

    static func auditEntries(_ store: any SkinStore) async throws {
        let version = try await add(store)
        try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(rollout: 10), expectedRevision: nil, actor: "bob",
            action: AuditAction.setRelease)
        try await store.setRelease(
            skinID: "spring", version: 1, plan: plan(rollout: 90), expectedRevision: nil, actor: "bob",
            action: AuditAction.setRelease)
        try await store.setKillSwitch(
            app: "news", enabled: true, reason: "outage", expectedRevision: nil, actor: "carol")
        try await store.clearRelease(skinID: "spring", expectedRevision: nil, actor: "bob")
        try await add(store, variant: 1)
        try await store.setRelease(
            skinID: "spring", version: 2, plan: plan(), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        try await store.deleteSkin(skinID: "spring", force: true, expectedRevision: nil, actor: "dave")

        let entries = try await store.audit(since: nil, limit: 100)
        #expect(
            entries.map(\.action) == [
                "version.add", "release.set", "release.set", "killswitch.set", "release.clear", "version.add",
                "release.set",
                "skin.delete"
            ])
        let added = try json(entries[0].after)
        #expect(entries[0].before == nil)
        #expect(
            added["version"] as? Int == 1 && added["digest"] as? String == version.digest && added["files"] as? Int == 3
        )
        #expect(entries[1].before == nil)
        #expect((try json(entries[1].after)["document"] as? [String: Any])?["rollout"] as? Int == 10)
        #expect((try json(entries[2].before)["document"] as? [String: Any])?["rollout"] as? Int == 10)
        #expect((try json(entries[2].after)["document"] as? [String: Any])?["rollout"] as? Int == 90)
        let killed = try json(entries[3].after)
        #expect(entries[3].before == nil)
        #expect(
            killed["app"] as? String == "news" && killed["enabled"] as? Bool == true
                && killed["reason"] as? String == "outage")
        #expect(try json(entries[4].before)["version"] as? Int == 1)
        #expect(entries[4].after == nil)
        // A deletion names every version and the release it ended.
        let deleted = try json(entries[7].before)
        #expect(entries[7].after == nil && entries[7].actor == "dave" && entries[7].skinID == "spring")
        #expect(deleted["versions"] as? [Int] == [1, 2])
        #expect((deleted["release"] as? [String: Any])?["version"] as? Int == 2)
        #expect(entries.filter { $0.skinID == "spring" }.count == 7, "the history outlives the skin")
    }

    static func revisionSteps(_ store: any SkinStore) async throws {
        try await add(store, skinID: "a")
        try await add(store, skinID: "b")
        try await store.setKillSwitch(app: "news", enabled: true, reason: "", expectedRevision: nil, actor: actor)
        #expect(store.snapshot.revision == 3)
        #expect(store.snapshot.skins["a"]?.revision == 1 && store.snapshot.skins["b"]?.revision == 2)
        try await store.setRelease(
            skinID: "a", version: 1, plan: plan(), expectedRevision: nil, actor: actor,
            action: AuditAction.setRelease)
        #expect(store.snapshot.revision == 4)
        #expect(store.snapshot.skins["a"]?.revision == 4 && store.snapshot.skins["b"]?.revision == 2)
        try await store.clearRelease(skinID: "a", expectedRevision: nil, actor: actor)
        #expect(store.snapshot.revision == 5 && store.snapshot.skins["a"]?.revision == 5)
        try await store.deleteSkin(skinID: "b", force: false, expectedRevision: nil, actor: actor)
        #expect(store.snapshot.revision == 6 && store.snapshot.revision(ofSkin: "b") == 6)
        #expect(store.snapshot.killSwitches.revision == 3, "the switches keep the revision of their last change")
    }

    static func concurrent(_ store: any SkinStore) async throws {
        let writers = 4
        let changesPerWriter = 10
        let total = writers * changesPerWriter
        let failures = Failures()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<writers {
                group.addTask {
                    for change in 0..<changesPerWriter {
                        do throws(StoreError) {
                            try await store.setKillSwitch(
                                app: "app\(index)", enabled: change % 2 == 0, reason: "\(change)",
                                expectedRevision: nil,
                                actor: "w\(index)")
                        } catch {
                            failures.add("\(error)")
                        }
                    }
                }
            }
            // A reader: revisions only grow, and every snapshot holds whole changes.
            group.addTask {
                var last = 0
                let deadline = ContinuousClock.now + .seconds(60)
                while last < total && ContinuousClock.now < deadline {
                    let snapshot = store.snapshot
                    if snapshot.revision < last { failures.add("revision went back") }
                    if snapshot.killSwitches.revision != snapshot.revision {
                        failures.add("half-applied change")
                    }
                    last = snapshot.revision
                    await Task.yield()
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(store.snapshot.revision == total)
        #expect(try await store.audit(since: nil, limit: 1_000).map(\.sequence) == Array(1...total))
    }

    /// An audit record's JSON as an object.
    static func json(_ bytes: [UInt8]?) throws -> [String: Any] {
        let bytes = try #require(bytes)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }
}

/// Failures collected from several tasks.
final class Failures: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ failure: String) { list.withLock { $0.append(failure) } }
    var all: [String] { list.withLock { $0 } }
}
