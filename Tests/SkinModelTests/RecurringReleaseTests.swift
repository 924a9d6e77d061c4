import Foundation
import LiveryJSON
import SkinModel
import Testing

/// A release written once for every year (`recurs`), with per-year overrides (`occurrences`): parsed, stored and
/// read back, and resolved to concrete instants (issue 27).
@Suite struct RecurringReleaseTests {
    /// 2026-12-01T00:00:00Z: before Spring Festival 2027 (2027-02-06).
    static let now = Date(timeIntervalSince1970: 1_796_083_200)
    static let springFestival =
        #""recurs": {"calendar": "chinese", "month": 1, "day": 1, "startOffsetDays": -7, "endOffsetDays": 15}, "timeZone": "Asia/Shanghai""#

    static func parse(_ members: String, at now: Date = now) throws -> ParseResult<ReleasePlan> {
        ReleasePlan.parse(try JSONValue.parse("{\(members)}"), file: nil, pointer: .root, now: now)
    }

    /// `YYYY-MM-DDTHH:MM:SS` in Asia/Shanghai (+08:00, no daylight saving).
    static func shanghai(_ text: String) -> Date? { ISO8601Instant.parse(text + "+08:00") }

    @Test func springFestivalIsInForceFromSevenDaysBeforeTheNewYear() throws {
        let result = try Self.parse(Self.springFestival)
        #expect(result.issues.isEmpty, "\(result.issues)")
        let plan = try #require(result.value)
        #expect(plan.recurrence?.calendar == .chinese && plan.timeZone == "Asia/Shanghai")
        #expect(plan.startsAt == Self.shanghai("2027-01-30T00:00:00"), "2027-02-06 minus 7 days")
        #expect(plan.endsAt == Self.shanghai("2027-02-21T23:59:59"), "2027-02-06 plus 15 days")
        let years = plan.occurrences(notEndedAt: Self.now, count: 5)
        #expect(years.map(\.year) == [2027, 2028, 2029, 2030, 2031])
        #expect(years[1].startsAt == Self.shanghai("2028-01-19T00:00:00"), "2028-01-26 minus 7 days")
        #expect(years.allSatisfy { $0.source == .rule })
    }

    @Test func whatIsStoredReadsBackEqualWithoutAWindow() throws {
        let plan = try #require(try Self.parse(Self.springFestival + #", "occurrences": {"2028": "skip"}"#).value)
        let stored = plan.jsonValue
        #expect(stored.objectValue?["startsAt"] == nil && stored.objectValue?["endsAt"] == nil)
        #expect(stored.objectValue?["occurrences"] == .object(JSONObject([.init(key: "2028", value: "skip")])))
        #expect(ReleasePlan.parse(stored, file: nil, pointer: .root, now: Self.now).value == plan)
    }

    /// A plan parsed once (as the store does, at its release time) is, resolved at a later instant, the plan a parse
    /// at that instant gives: the occurrence then in force, its instants as texts.
    @Test func aPlanParsedOnceResolvesAsAParseAtALaterInstant() throws {
        let members = Self.springFestival + #", "occurrences": {"2028": "skip"}"#
        let stored = try #require(try Self.parse(members).value)
        for later in [Self.now, Self.shanghai("2027-03-01T00:00:00"), Self.shanghai("2029-02-01T00:00:00")] {
            let instant = try #require(later)
            #expect(stored.resolved(at: instant) == (try Self.parse(members, at: instant).value), "\(instant)")
        }
        let once = ReleasePlan(startsAt: Self.now, endsAt: Self.now.addingTimeInterval(3600))
        #expect(once.resolved(at: Self.now.addingTimeInterval(86_400)) == once, "a plan without a rule is itself")
        // In force in 2027, then skipped for the eight years a parse looks ahead: nothing left to resolve.
        let skips = (2028...2035).map { #""\#($0)": "skip""# }.joined(separator: ", ")
        let ending = try #require(try Self.parse(Self.springFestival + #", "occurrences": {\#(skips)}"#).value)
        #expect(ending.resolved(at: try #require(Self.shanghai("2027-03-01T00:00:00"))) == nil)
    }

    @Test func anOverrideReplacesOrSkipsOneYear() throws {
        let skipped = try #require(try Self.parse(Self.springFestival + #", "occurrences": {"2027": "skip"}"#).value)
        #expect(skipped.startsAt == Self.shanghai("2028-01-19T00:00:00"), "2027 is skipped, 2028 is in force")
        #expect(skipped.occurrences(notEndedAt: Self.now, count: 2).map(\.source) == [.skip, .rule])

        let moved = try #require(
            try Self.parse(
                Self.springFestival
                    + #", "occurrences": {"2027": {"startsAt": "2027-02-01T00:00:00", "endsAt": "2027-02-18T00:00:00"}}"#
            ).value)
        #expect(
            moved.startsAt == Self.shanghai("2027-02-01T00:00:00")
                && moved.endsAt == Self.shanghai("2027-02-18T00:00:00"))
        #expect(moved.occurrences(notEndedAt: Self.now, count: 2).map(\.source) == [.override, .rule])
    }

    @Test func concreteWindowsCrossTheYearBoundaryWithoutARule() throws {
        let plan = try #require(try Self.parse(Self.springFestival + #", "occurrences": {"2028": "skip"}"#).value)
        let windows = plan.concreteWindows(from: Self.now, count: 2)
        #expect(
            windows.map(\.startsAt)
                == [Self.shanghai("2027-01-30T00:00:00"), Self.shanghai("2029-02-06T00:00:00")].compactMap { $0 },
            "2029's Spring Festival is 2029-02-13; 2028 is skipped")
        #expect(windows.allSatisfy { $0.recurrence == nil && $0.hasWindow && $0.priority == plan.priority })
    }

    @Test(arguments: [
        (#""recurs": {"calendar": "chinese", "month": 1, "day": 1}"#, "/timeZone"),
        (RecurringReleaseTests.springFestival + #", "startsAt": "2027-01-30T00:00:00""#, "/startsAt"),
        (#""recurs": {"calendar": "lunar", "month": 1, "day": 1}, "timeZone": "Asia/Shanghai""#, "/recurs/calendar"),
        (#""recurs": {"calendar": "gregorian", "month": 13, "day": 1}, "timeZone": "UTC""#, "/recurs/month"),
        (#""recurs": {"calendar": "gregorian", "month": 2, "day": 30}, "timeZone": "UTC""#, "/recurs/day"),
        (#""recurs": {"calendar": "chinese", "month": 12, "day": 30}, "timeZone": "Asia/Shanghai""#, "/recurs/day"),
        (
            #""recurs": {"calendar": "gregorian", "month": 1, "day": 1, "startOffsetDays": -200, "endOffsetDays": 200}, "timeZone": "UTC""#,
            "/recurs/endOffsetDays"
        ),
        (
            #""startsAt": "2027-01-30T00:00:00Z", "endsAt": "2027-02-01T00:00:00Z", "occurrences": {"2027": "skip"}"#,
            "/occurrences"
        ),
        (RecurringReleaseTests.springFestival + #", "occurrences": {"27": "skip"}"#, "/occurrences/27"),
        (RecurringReleaseTests.springFestival + #", "occurrences": {"2027": "later"}"#, "/occurrences/2027"),
        (
            RecurringReleaseTests.springFestival
                + #", "occurrences": {"2027": {"startsAt": "2027-02-10T00:00:00", "endsAt": "2027-02-01T00:00:00"}}"#,
            "/occurrences/2027/endsAt"
        )
    ])
    func refusesNamingTheField(members: String, pointer: String) throws {
        let result = try Self.parse(members)
        #expect(result.value == nil)
        #expect(result.issues.first { $0.severity == .error }?.pointer == pointer, "\(result.issues.map(\.message))")
    }

    @Test func aMissingChineseDayNamesTheYears() throws {
        let result = try Self.parse(
            #""recurs": {"calendar": "chinese", "month": 12, "day": 30}, "timeZone": "Asia/Shanghai""#)
        let error = try #require(result.issues.first)
        #expect(error.code == .releaseRecurrenceDayMissing)
        #expect(error.pointer == "/recurs/day")
        #expect(error.message.contains(" in 20"), "names the years: \(error.message)")
    }
}
