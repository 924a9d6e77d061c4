import Foundation
import LiveryJSON
import SkinModel
import SkinStore
import Testing

@testable import LiveryServer

/// The admin API's decisions as pure functions of a store state (no HTTP, no store): what `SkinStore.change` runs
/// on the state it commits on.
@Suite struct AdminRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let document = Array(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z","rollout":30}"#.utf8)

    static func version(_ number: Int, app: String = "demo") -> SkinVersion {
        let metadata = Array(#"{"skin":{"id":"tiny","app":"\#(app)"}}"#.utf8)
        return SkinVersion(
            skinID: "tiny", number: number, createdAt: now, actor: "ops", files: [], metadata: metadata,
            metadataDigest: "m\(number)", digest: "d\(number)")
    }

    /// `tiny` with versions 1…`versions`, `released` (nil: not released) with `document`, at skin revision `revision`.
    static func state(versions: Int = 3, released: Int? = 2, revision: Int = 7, switches: Int = 0) -> StoreSnapshot {
        let release = released.map { Release(version: $0, document: document, releasedAt: now, actor: "ops") }
        let skin = SkinState(id: "tiny", revision: revision, versions: (1...versions).map { version($0) }, release: release)
        return StoreSnapshot(
            revision: max(revision, switches), skins: ["tiny": skin],
            killSwitches: KillSwitches(global: nil, apps: [:], revision: switches))
    }

    /// The code of the `APIError` `body` throws (nil when it throws none).
    static func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? APIError)?.code ?? "\(error)"
        }
    }

    static func plan(_ json: String) throws -> ReleasePlan {
        try #require(ReleasePlan.parse(try JSONValue.parse(Array(json.utf8)), file: nil, pointer: .root).value)
    }

    @Test func aPatchMergesIntoTheReleaseOfTheStateItIsDecidedOn() throws {
        var patch = JSONObject()
        patch["rollout"] = AdminJSON.number(50)
        let (version, plan) = try AdminRules.release(.patch(patch), id: "tiny", condition: .none, now: Self.now, state: Self.state())
        #expect(version.number == 2 && plan.rollout == 50)
        #expect(plan.endsAtText == "2100-01-01T00:00:00Z", "the fields not patched are the state's")
        #expect(Self.code { _ = try AdminRules.release(.patch(patch), id: "tiny", condition: .none, now: Self.now, state: Self.state(released: nil)) } == "not_released")
        #expect(Self.code { _ = try AdminRules.release(.patch(patch), id: "gone", condition: .none, now: Self.now, state: Self.state()) } == "skin_not_found")
    }

    @Test func aPutWithoutAVersionKeepsTheReleasedOneElseTheLatest() throws {
        let plan = try Self.plan(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"}"#)
        let kept = try AdminRules.release(.put(version: nil, plan: plan), id: "tiny", condition: .none, now: Self.now, state: Self.state())
        #expect(kept.version.number == 2)
        let latest = try AdminRules.release(
            .put(version: nil, plan: plan), id: "tiny", condition: .none, now: Self.now, state: Self.state(released: nil))
        #expect(latest.version.number == 3)
        #expect(Self.code { _ = try AdminRules.release(.put(version: 9, plan: plan), id: "tiny", condition: .none, now: Self.now, state: Self.state()) } == "version_not_found")
        let past = try Self.plan(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2001-01-01T00:00:00Z"}"#)
        #expect(Self.code { _ = try AdminRules.release(.put(version: 1, plan: past), id: "tiny", condition: .none, now: Self.now, state: Self.state()) } == "invalid_release")
    }

    @Test func aRollbackGoesBelowTheVersionReleasedInTheState() throws {
        let back = try AdminRules.release(.rollback, id: "tiny", condition: .none, now: Self.now, state: Self.state(released: 3))
        #expect(back.version.number == 2 && back.plan.rollout == 30)
        #expect(Self.code { _ = try AdminRules.release(.rollback, id: "tiny", condition: .none, now: Self.now, state: Self.state(released: 1)) } == "no_previous_version")
    }

    @Test func ifMatchIsComparedWithTheStatesRevision() throws {
        let plan = try Self.plan(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"}"#)
        #expect(throws: Never.self) {
            try AdminRules.release(.put(version: 1, plan: plan), id: "tiny", condition: .revisions([7]), now: Self.now, state: Self.state())
        }
        #expect(Self.code { _ = try AdminRules.release(.put(version: 1, plan: plan), id: "tiny", condition: .revisions([6]), now: Self.now, state: Self.state()) } == "precondition_failed")
        #expect(Self.code { _ = try AdminRules.stop(id: "tiny", condition: .revisions([6]), state: Self.state()) } == "precondition_failed")
        #expect(Self.code { _ = try AdminRules.delete(id: "tiny", force: true, condition: .revisions([6]), state: Self.state()) } == "precondition_failed")
        #expect(Self.code {
            _ = try AdminRules.killSwitch(app: nil, enabled: true, reason: "", force: false, condition: .revisions([3]), state: Self.state(switches: 4))
        } == "precondition_failed")
        #expect(Self.code { _ = try AdminRules.push(skinID: "new", app: "demo", force: false, condition: .any, state: Self.state()) } == "precondition_failed")
    }

    @Test func aReleaseCommitsOnlyTheVersionWhosePackagesWereBuilt() throws {
        var patch = JSONObject()
        patch["rollout"] = AdminJSON.number(60)
        let built = try AdminRules.releaseDecision(
            .patch(patch), id: "tiny", condition: .none, now: Self.now, action: AuditAction.setRelease,
            prepared: (2, "d2"), state: Self.state())
        guard case .setRelease(let skinID, let number, let document, _)? = built.edit else {
            Issue.record("no release edit: \(String(describing: built.edit))")
            return
        }
        #expect(skinID == "tiny" && number == 2)
        #expect(String(decoding: document, as: UTF8.self).contains(#""rollout":60"#))
        // Another replica released version 3 meanwhile: the packages built for 2 are not the ones to serve.
        let moved = try AdminRules.releaseDecision(
            .patch(patch), id: "tiny", condition: .none, now: Self.now, action: AuditAction.setRelease,
            prepared: (2, "d2"), state: Self.state(released: 3))
        #expect(moved.edit == nil && moved.value == .rebuild(version: 3))
    }

    @Test func pushesAndKillSwitchesCheckTheAppsOfTheState() {
        #expect(Self.code { _ = try AdminRules.push(skinID: "tiny", app: "other", force: false, condition: .none, state: Self.state()) } == "app_mismatch")
        #expect(Self.code { _ = try AdminRules.push(skinID: "tiny", app: "other", force: true, condition: .none, state: Self.state()) } == nil)
        #expect(Self.code { _ = try AdminRules.killSwitch(app: "nowhere", enabled: true, reason: "", force: false, condition: .none, state: Self.state()) } == "unknown_app")
        #expect(Self.code { _ = try AdminRules.killSwitch(app: "demo", enabled: true, reason: "", force: false, condition: .none, state: Self.state()) } == nil)
    }
}
