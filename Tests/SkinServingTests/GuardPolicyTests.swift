import Foundation
import LiveryJSON
import SkinModel
import SkinServing
import Testing

/// The guard's decision without a store or HTTP: figures plus a guard give a verdict, and a release's `guard` and
/// `paused` parse, default and refuse as documented.
@Suite struct GuardPolicyTests {
    static func figures(reporting: Int, failed: Int) -> VersionFigures {
        VersionFigures(
            skinID: "spring", version: 3, reportingDevices: reporting, failedDevices: failed,
            failedByStage: ["crash": failed])
    }

    @Test(arguments: [
        // reporting, failed, verdict under the standard guard (5 % once 50 devices reported)
        (0, 0, GuardPolicy.Verdict.tooFewDevices(reporting: 0, needed: 50)),
        (49, 49, .tooFewDevices(reporting: 49, needed: 50)),
        (50, 2, .healthy(rate: 0.04)),
        (100, 5, .healthy(rate: 0.05)),
        (100, 6, .trip(rate: 0.06)),
        (500, 150, .trip(rate: 0.3))
    ])
    func theStandardGuardTripsAboveFivePercentOnceFiftyDevicesReported(
        reporting: Int, failed: Int, verdict: GuardPolicy.Verdict
    ) {
        #expect(GuardPolicy.evaluate(Self.figures(reporting: reporting, failed: failed), under: .standard) == verdict)
    }

    @Test func aGuardWhoseActionIsNoneNeverTrips() {
        let off = ReleaseGuard(maxFailureRate: 0, minDevices: 1, windowMinutes: 60, action: .none)
        #expect(GuardPolicy.evaluate(Self.figures(reporting: 1000, failed: 1000), under: off) == .off)
    }

    @Test func theRateCountsFailedDevicesOverReportingOnesAndStaysWithinOne() {
        #expect(GuardPolicy.failureRate(Self.figures(reporting: 8, failed: 2)) == 0.25)
        #expect(GuardPolicy.failureRate(Self.figures(reporting: 8, failed: 20)) == 1)
        #expect(GuardPolicy.failureRate(Self.figures(reporting: 0, failed: 3)) == 0)
        let tight = ReleaseGuard(maxFailureRate: 0, minDevices: 1, windowMinutes: 5, action: .pause)
        #expect(GuardPolicy.evaluate(Self.figures(reporting: 1, failed: 1), under: tight) == .trip(rate: 1))
        #expect(GuardPolicy.evaluate(Self.figures(reporting: 1, failed: 0), under: tight) == .healthy(rate: 0))
    }

    @Test func theRecordedFiguresNameTheCountsTheRateAndTheStages() {
        let figures = VersionFigures(
            skinID: "spring", version: 3, reportingDevices: 3, failedDevices: 1,
            failedByStage: ["unpack": 1, "crash": 0])
        #expect(
            JSONValue.object(GuardPolicy.json(figures)).serialized(.compact)
                == Array(
                    #"{"reportingDevices":3,"failedDevices":1,"failureRate":0.3333,"failedByStage":{"crash":0,"unpack":1}}"#
                        .utf8))
    }

    // MARK: - The release's fields

    static func parse(_ text: String) -> ParseResult<ReleasePlan> {
        ReleasePlan.parse(
            (try? JSONValue.parse(Array(text.utf8))) ?? .null, file: nil, pointer: .root,
            now: Date(timeIntervalSince1970: 1_800_000_000))
    }

    static let window = #""startsAt":"2027-02-05T00:00:00Z","endsAt":"2027-02-20T00:00:00Z""#

    @Test func aReleaseWithoutAGuardHasTheStandardOneAndKeepsItsDocument() throws {
        let plan = try #require(Self.parse("{\(Self.window)}").value)
        #expect(plan.releaseGuard == nil && plan.paused == nil)
        #expect(
            plan.effectiveGuard == ReleaseGuard(maxFailureRate: 0.05, minDevices: 50, windowMinutes: 60, action: .pause)
        )
        #expect(
            !String(decoding: plan.jsonValue.serialized(.compact), as: UTF8.self).contains("guard"), "no guard written")
    }

    @Test func aPartialGuardTakesTheStandardValuesForWhatItLeavesOut() throws {
        let off = try #require(Self.parse(#"{\#(Self.window),"guard":{"action":"none"}}"#).value)
        #expect(
            off.effectiveGuard == ReleaseGuard(maxFailureRate: 0.05, minDevices: 50, windowMinutes: 60, action: .none))
        let rollback = try #require(
            Self.parse(#"{\#(Self.window),"guard":{"maxFailureRate":0.2,"minDevices":500,"action":"rollback"}}"#).value)
        #expect(
            rollback.effectiveGuard
                == ReleaseGuard(maxFailureRate: 0.2, minDevices: 500, windowMinutes: 60, action: .rollback))
        // Written whole, and read back equal.
        let again = try #require(
            Self.parse(String(decoding: rollback.jsonValue.serialized(.compact), as: UTF8.self)).value)
        #expect(again == rollback)
    }

    @Test(arguments: [
        (#"{"maxFailureRate":1.5}"#, "/guard/maxFailureRate"),
        (#"{"maxFailureRate":"5%"}"#, "/guard/maxFailureRate"),
        (#"{"minDevices":0}"#, "/guard/minDevices"),
        (#"{"minDevices":2.5}"#, "/guard/minDevices"),
        (#"{"windowMinutes":50000}"#, "/guard/windowMinutes"),
        (#"{"action":"stop"}"#, "/guard/action"),
        (#"{"acton":"none"}"#, "/guard/acton"),
        (#""pause""#, "/guard")
    ])
    func aBadGuardIsRefusedNamingTheField(guardText: String, pointer: String) {
        let parsed = Self.parse(#"{\#(Self.window),"guard":\#(guardText)}"#)
        #expect(parsed.value == nil)
        #expect(parsed.errors.first?.pointer.description == pointer)
    }

    @Test func aPausedReleaseIsServedAtRolloutZeroAndReadsBack() throws {
        let text =
            #"{\#(Self.window),"rollout":40,"paused":{"at":"2027-02-06T03:00:00Z","action":"pause","rollout":40,"figures":{"failedDevices":9}}}"#
        let plan = try #require(Self.parse(text).value)
        #expect(
            plan.paused?.rollout == 40 && plan.paused?.action == .pause && plan.paused?.atText == "2027-02-06T03:00:00Z"
        )
        #expect(plan.rollout == 40 && plan.served.rollout == 0, "a guard never widens; paused serves 0")
        #expect(
            try #require(Self.parse(String(decoding: plan.jsonValue.serialized(.compact), as: UTF8.self)).value) == plan
        )
        let bad = Self.parse(
            #"{\#(Self.window),"paused":{"at":"2027-02-06T03:00:00Z","action":"none","rollout":40,"figures":{}}}"#)
        #expect(bad.errors.first?.pointer.description == "/paused/action")
    }

    @Test func skinJSONMayCarryAGuardButNeverAPause() throws {
        func manifest(_ release: String) throws -> ParseResult<SkinManifest> {
            SkinManifest.parse(
                try JSONValue.parse(Array(#"{"id":"spring","title":"Spring","app":"demo","release":\#(release)}"#.utf8))
            )
        }
        let guarded = try manifest(#"{\#(Self.window),"guard":{"minDevices":200}}"#)
        #expect(guarded.value?.release?.effectiveGuard.minDevices == 200)
        let paused = try manifest(
            #"{\#(Self.window),"paused":{"at":"2027-02-06T03:00:00Z","action":"pause","rollout":40,"figures":{}}}"#)
        #expect(paused.value == nil)
        #expect(paused.errors.map(\.pointer).contains("/release/paused"))
    }
}
