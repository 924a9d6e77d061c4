import Foundation
import LiveryJSON
import SkinModel
import SkinServing
import SkinStore
import Testing

/// The rules of every change as pure functions of a store state (no HTTP, no store): what `SkinStore.change` runs
/// on the state it commits on.
@Suite struct ChangeRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let plan = ReleasePlan(
        startsAt: Date(timeIntervalSince1970: 946_684_800), endsAt: Date(timeIntervalSince1970: 4_102_444_800),
        rollout: 30)

    static func version(_ number: Int, app: String = "demo") -> SkinVersion {
        let metadata = VersionMetadata(
            skin: JSONObject([.init(key: "id", value: "tiny"), .init(key: "app", value: .string(app))]))
        return SkinVersion(
            skinID: "tiny", number: number, createdAt: now, actor: "ops", files: [], metadata: metadata,
            metadataDigest: "m\(number)", digest: "d\(number)")
    }

    /// `tiny` with versions 1…`versions`, `released` (nil: not released) with `plan`, at skin revision `revision`.
    static func state(versions: Int = 3, released: Int? = 2, revision: Int = 7, switches: Int = 0) -> StoreSnapshot {
        let release = released.map { Release(version: $0, plan: plan, releasedAt: now, actor: "ops") }
        let skin = SkinState(
            id: "tiny", revision: revision, versions: (1...versions).map { version($0) }, release: release)
        return StoreSnapshot(
            revision: max(revision, switches), skins: ["tiny": skin],
            killSwitches: KillSwitches(global: nil, apps: [:], revision: switches))
    }

    /// The case of the `ChangeError` `body` throws (nil when it throws none).
    static func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ChangeError {
            return String(String(describing: error).prefix { $0 != "(" })
        } catch {
            return "not a ChangeError: \(error)"
        }
    }

    static func plan(_ json: String) throws -> ReleasePlan {
        try #require(ReleasePlan.parse(try JSONValue.parse(Array(json.utf8)), file: nil, pointer: .root).value)
    }

    static func rollout(_ percent: Int) -> JSONObject {
        var patch = JSONObject()
        patch["rollout"] = .number(JSONNumber(percent))
        return patch
    }

    @Test func aPatchMergesIntoTheReleaseOfTheStateItIsDecidedOn() throws {
        let patch = Self.rollout(50)
        let (version, plan) = try ChangeRules.release(
            .patch(patch), id: "tiny", condition: .none, now: Self.now, state: Self.state())
        #expect(version.number == 2 && plan.rollout == 50)
        #expect(plan.endsAtText == "2100-01-01T00:00:00Z", "the fields not patched are the state's")
        #expect(
            Self.refusal {
                _ = try ChangeRules.release(
                    .patch(patch), id: "tiny", condition: .none, now: Self.now, state: Self.state(released: nil))
            } == "notReleased")
        #expect(
            Self.refusal {
                _ = try ChangeRules.release(
                    .patch(patch), id: "gone", condition: .none, now: Self.now, state: Self.state())
            } == "unknownSkin")
        var bad = JSONObject()
        bad["rollout"] = .number(JSONNumber(130))
        #expect(
            Self.refusal {
                _ = try ChangeRules.release(
                    .patch(bad), id: "tiny", condition: .none, now: Self.now, state: Self.state())
            } == "invalidReleasePlan")
    }

    @Test func aPutWithoutAVersionKeepsTheReleasedOneElseTheLatest() throws {
        let plan = try Self.plan(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"}"#)
        let kept = try ChangeRules.release(
            .put(version: nil, plan: plan), id: "tiny", condition: .none, now: Self.now, state: Self.state())
        #expect(kept.version.number == 2)
        let latest = try ChangeRules.release(
            .put(version: nil, plan: plan), id: "tiny", condition: .none, now: Self.now,
            state: Self.state(released: nil))
        #expect(latest.version.number == 3)
        #expect(
            Self.refusal {
                _ = try ChangeRules.release(
                    .put(version: 9, plan: plan), id: "tiny", condition: .none, now: Self.now, state: Self.state())
            } == "unknownReleaseVersion")
    }

    @Test func aWindowWhollyInThePastIsRefusedNamingItsEnd() throws {
        let past = try Self.plan(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2001-01-01T00:00:00+08:00"}"#)
        do {
            _ = try ChangeRules.release(
                .put(version: 1, plan: past), id: "tiny", condition: .none, now: Self.now, state: Self.state())
            Issue.record("a window over before now was accepted")
        } catch {
            guard case .windowInPast(let endsAt) = error else {
                Issue.record("refused otherwise: \(error)")
                return
            }
            #expect(endsAt == "2001-01-01T00:00:00+08:00", "as written")
        }
    }

    @Test func aRollbackGoesBelowTheVersionReleasedInTheState() throws {
        let back = try ChangeRules.release(
            .rollback, id: "tiny", condition: .none, now: Self.now, state: Self.state(released: 3))
        #expect(back.version.number == 2 && back.plan.rollout == 30)
        #expect(
            Self.refusal {
                _ = try ChangeRules.release(
                    .rollback, id: "tiny", condition: .none, now: Self.now, state: Self.state(released: 1))
            } == "noPreviousVersion")
        #expect(
            Self.refusal {
                _ = try ChangeRules.release(
                    .rollback, id: "tiny", condition: .none, now: Self.now, state: Self.state(released: nil))
            } == "notReleased")
    }

    @Test func ifMatchIsComparedWithTheStatesRevision() throws {
        let plan = try Self.plan(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"}"#)
        #expect(throws: Never.self) {
            try ChangeRules.release(
                .put(version: 1, plan: plan), id: "tiny", condition: .revisions([7]), now: Self.now, state: Self.state()
            )
        }
        #expect(
            Self.refusal {
                _ = try ChangeRules.release(
                    .put(version: 1, plan: plan), id: "tiny", condition: .revisions([6]), now: Self.now,
                    state: Self.state())
            } == "preconditionFailed")
        #expect(
            Self.refusal { _ = try ChangeRules.stop(id: "tiny", condition: .revisions([6]), state: Self.state()) }
                == "preconditionFailed")
        #expect(
            Self.refusal {
                _ = try ChangeRules.delete(id: "tiny", force: true, condition: .revisions([6]), state: Self.state())
            } == "preconditionFailed")
        #expect(
            Self.refusal {
                _ = try ChangeRules.killSwitch(
                    app: nil, enabled: true, reason: "", force: false, condition: .revisions([3]),
                    state: Self.state(switches: 4))
            } == "preconditionFailed")
        #expect(
            Self.refusal {
                _ = try ChangeRules.push(skinID: "new", app: "demo", force: false, condition: .any, state: Self.state())
            } == "preconditionFailed")
        #expect(
            Self.refusal {
                _ = try ChangeRules.push(
                    skinID: "tiny", app: "demo", force: false, condition: .any, state: Self.state())
            } == nil)
    }

    @Test func aReleaseCommitsOnlyTheVersionWhosePackagesWereBuilt() throws {
        let patch = Self.rollout(60)
        let built = try ChangeRules.releaseDecision(
            .patch(patch), id: "tiny", condition: .none, now: Self.now, prepared: (2, "d2"), state: Self.state())
        guard case .setRelease(let skinID, let number, let plan, let action)? = built.edit else {
            Issue.record("no release edit: \(String(describing: built.edit))")
            return
        }
        #expect(skinID == "tiny" && number == 2 && action == AuditAction.setRelease)
        #expect(plan.rollout == 60 && plan.startsAt == Self.plan.startsAt)
        // Another replica released version 3 meanwhile: the packages built for 2 are not the ones to serve.
        let moved = try ChangeRules.releaseDecision(
            .patch(patch), id: "tiny", condition: .none, now: Self.now, prepared: (2, "d2"),
            state: Self.state(released: 3))
        #expect(moved.edit == nil && moved.value == .rebuild(version: 3))
        let back = try ChangeRules.releaseDecision(
            .rollback, id: "tiny", condition: .none, now: Self.now, prepared: (1, "d1"), state: Self.state())
        guard case .setRelease(_, 1, _, let rollbackAction)? = back.edit else {
            Issue.record("no rollback edit: \(String(describing: back.edit))")
            return
        }
        #expect(rollbackAction == "release.rollback")
    }

    @Test func pushesAndKillSwitchesCheckTheAppsOfTheState() {
        #expect(
            Self.refusal {
                _ = try ChangeRules.push(
                    skinID: "tiny", app: "other", force: false, condition: .none, state: Self.state())
            } == "appMismatch")
        #expect(
            Self.refusal {
                _ = try ChangeRules.push(
                    skinID: "tiny", app: "other", force: true, condition: .none, state: Self.state())
            } == nil)
        #expect(
            Self.refusal {
                _ = try ChangeRules.killSwitch(
                    app: "nowhere", enabled: true, reason: "", force: false, condition: .none, state: Self.state())
            } == "unknownApp")
        #expect(
            Self.refusal {
                _ = try ChangeRules.killSwitch(
                    app: "nowhere", enabled: true, reason: "", force: true, condition: .none, state: Self.state())
            } == nil)
        #expect(
            Self.refusal {
                _ = try ChangeRules.killSwitch(
                    app: "demo", enabled: true, reason: "", force: false, condition: .none, state: Self.state())
            } == nil)
    }

    @Test func aReleaseRequestNamesItsFaultyField() {
        func parse(_ json: String) -> String? {
            let object = (try? JSONValue.parse(Array(json.utf8)).objectValue) ?? JSONObject()
            return Self.refusal { _ = try ReleaseRequest.parse(object) }
        }
        #expect(
            parse(#"{"version":0,"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"}"#)
                == "invalidRelease")
        #expect(parse(#"{"endsAt":"2100-01-01T00:00:00Z"}"#) == "invalidRelease")
        #expect(
            parse(#"{"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z","rolout":3}"#)
                == "invalidReleasePlan")
        #expect(parse(#"{"version":2,"startsAt":"2000-01-01T00:00:00Z","endsAt":"2100-01-01T00:00:00Z"}"#) == nil)
        #expect(parse(#"{"kind":"theme"}"#) == nil, "a theme needs no window")
    }
}
