import Foundation
import LiveryJSON
import SkinModel
import Testing

/// Yearly windows anchored on the Chinese or the Gregorian calendar. The festival dates are the published ones, so a
/// change in ICU or Foundation's Chinese calendar shows here.
@Suite struct RecurrenceRuleTests {
    static let shanghai = TimeZone(identifier: "Asia/Shanghai")!
    static let january2024 = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01T00:00:00Z

    static func rule(
        _ json: String, now: Date = january2024, zone: TimeZone = shanghai
    ) throws -> ParseResult<RecurrenceRule> {
        RecurrenceRule.parse(
            try JSONValue.parse(json), pointer: JSONPointer(tokens: ["release", "recurs"]), timeZone: zone, now: now)
    }

    static func anchors(_ rule: RecurrenceRule, _ years: ClosedRange<Int>) -> [String] {
        years.map { year in
            if case .day(let date) = rule.anchor(inYear: year) { return date.description }
            return "none"
        }
    }

    @Test(arguments: [
        ("Spring Festival", 1, 1, ["2024-02-10", "2025-01-29", "2026-02-17", "2027-02-06", "2028-01-26"]),
        ("Dragon Boat", 5, 5, ["2024-06-10", "2025-05-31", "2026-06-19", "2027-06-09", "2028-05-28"]),
        ("Mid-Autumn", 8, 15, ["2024-09-17", "2025-10-06", "2026-09-25", "2027-09-15", "2028-10-03"])
    ])
    func chineseFestivalsFallOnTheirOfficialDates(name: String, month: Int, day: Int, dates: [String]) {
        let rule = RecurrenceRule(calendar: .chinese, month: month, day: day)
        #expect(Self.anchors(rule, 2024...2028) == dates, "\(name)")
    }

    @Test func aLeapMonthExistsOnlyInItsYears() {
        // 2025 has a leap sixth month; 2028 a leap fifth month, after the regular one (Dragon Boat stays 2028-05-28).
        let leapSixth = RecurrenceRule(calendar: .chinese, month: 6, day: 15, leapMonth: true, ifMissing: .skip)
        #expect(Self.anchors(leapSixth, 2024...2026) == ["none", "2025-08-08", "none"])
        let leapFifth = RecurrenceRule(calendar: .chinese, month: 5, day: 5, leapMonth: true, ifMissing: .skip)
        #expect(Self.anchors(leapFifth, 2027...2028) == ["none", "2028-06-27"])
        let fallback = RecurrenceRule(calendar: .chinese, month: 6, day: 15, leapMonth: true, ifMissing: .lastDay)
        #expect(Self.anchors(fallback, 2024...2024) == ["2024-07-20"])
    }

    @Test func springFestivalFromTheIssueSpansMinusSevenToPlusFifteenDaysInShanghai() throws {
        let result = try Self.rule(
            """
            {"calendar": "chinese", "month": 1, "day": 1, "startOffsetDays": -7, "endOffsetDays": 15,
             "startTime": "00:00:00", "endTime": "23:59:59"}
            """)
        #expect(result.issues.isEmpty, "\(result.issues)")
        let rule = try #require(result.value)
        let occurrence = try #require(rule.occurrence(inYear: 2027, timeZone: Self.shanghai))
        // 2027-02-06 minus 7 days at 00:00 +08:00, and plus 15 days at 23:59:59 +08:00.
        #expect(occurrence.startsAt == Date(timeIntervalSince1970: 1_801_238_400))  // 2027-01-30T00:00:00+08:00
        #expect(occurrence.endsAt.timeIntervalSince(occurrence.startsAt) == Double(22 * 86_400 + 86_399))
    }

    @Test func newYearsEveIsTheDayBeforeSpringFestivalEveryYear() throws {
        let rule = try #require(
            try Self.rule(#"{"calendar": "chinese", "month": 1, "day": 1, "startOffsetDays": -1, "endOffsetDays": -1}"#)
                .value)
        let eves = (2024...2028).compactMap { rule.occurrence(inYear: $0, timeZone: Self.shanghai) }
        #expect(
            eves.map { $0.anchor.adding(days: -1).description } == [
                "2024-02-09", "2025-01-28", "2026-02-16", "2027-02-05", "2028-01-25"
            ])
    }

    @Test func theTwelfthMonthsThirtiethIsRefusedWithTheYearsThatLackIt() throws {
        let result = try Self.rule(#"{"calendar": "chinese", "month": 12, "day": 30}"#)
        #expect(result.value == nil)
        let issue = try #require(result.issues.first)
        #expect(issue.code == .releaseRecurrenceDayMissing)
        #expect(issue.pointer == "/release/recurs/day")
        #expect(issue.message.contains("2025") || issue.message.contains("2026") || issue.message.contains("2027"))
        let skipping = try Self.rule(#"{"calendar": "chinese", "month": 12, "day": 30, "ifMissing": "skip"}"#)
        #expect(skipping.value != nil, "\(skipping.issues)")
    }

    @Test func christmasRecursEveryGregorianYearAndFebruary29thNeedsAChoice() throws {
        let christmas = try #require(
            try Self.rule(
                #"{"calendar": "gregorian", "month": 12, "day": 25, "startOffsetDays": -5, "endOffsetDays": 2}"#
            ).value)
        let window = try #require(christmas.occurrence(inYear: 2026, timeZone: Self.shanghai))
        #expect(window.anchor.description == "2026-12-25")
        let refused = try Self.rule(#"{"calendar": "gregorian", "month": 2, "day": 29}"#)
        #expect(refused.issues.first?.code == .releaseRecurrenceDayMissing)
        let lastDay = try #require(
            try Self.rule(#"{"calendar": "gregorian", "month": 2, "day": 29, "ifMissing": "lastDay"}"#).value)
        #expect(Self.anchors(lastDay, 2027...2028) == ["2027-02-28", "2028-02-29"])
    }

    @Test func occurrencesListTheOpenOneThenTheNextOnesAcrossTheYearBoundary() throws {
        let rule = RecurrenceRule(calendar: .chinese, month: 1, day: 1, startOffsetDays: -7, endOffsetDays: 15)
        // 2026-12-31T12:00:00Z: the 2026 window has ended; the next five start with 2027.
        let next = rule.occurrences(
            notEndedAt: Date(timeIntervalSince1970: 1_798_718_400), count: 5, timeZone: Self.shanghai)
        #expect(next.map(\.year) == [2027, 2028, 2029, 2030, 2031])
        // Inside the 2027 window it is listed first.
        let inside = rule.occurrences(
            notEndedAt: Date(timeIntervalSince1970: 1_801_872_000), count: 2, timeZone: Self.shanghai)
        #expect(inside.map(\.year) == [2027, 2028])
    }

    @Test(arguments: [
        (#"{"calendar": "lunar", "month": 1, "day": 1}"#, "/release/recurs/calendar"),
        (#"{"calendar": "chinese", "month": 13, "day": 1}"#, "/release/recurs/month"),
        (#"{"calendar": "chinese", "month": 1, "day": 31}"#, "/release/recurs/day"),
        (#"{"calendar": "gregorian", "month": 4, "day": 31}"#, "/release/recurs/day"),
        (#"{"calendar": "gregorian", "month": 1, "day": 1, "leapMonth": true}"#, "/release/recurs/leapMonth"),
        (#"{"calendar": "chinese", "month": 1, "day": 1, "startTime": "24:00:00"}"#, "/release/recurs/startTime"),
        (
            #"{"calendar": "chinese", "month": 1, "day": 1, "startOffsetDays": 3, "endOffsetDays": 1}"#,
            "/release/recurs/endOffsetDays"
        ),
        (
            #"{"calendar": "chinese", "month": 1, "day": 1, "startOffsetDays": -200, "endOffsetDays": 200}"#,
            "/release/recurs/endOffsetDays"
        ),
        (#"{"calendar": "chinese", "month": 1, "day": 1, "every": "year"}"#, "/release/recurs/every"),
        (#"{"month": 1, "day": 1}"#, "/release/recurs/calendar")
    ])
    func badRulesAreRefusedNamingTheField(json: String, pointer: String) throws {
        let result = try Self.rule(json)
        #expect(result.value == nil)
        #expect(
            result.issues.contains { $0.pointer == pointer && $0.severity == .error }, "\(result.issues.map(\.pointer))"
        )
    }

    @Test func aLeapMonthThatNeverComesYieldsNoOccurrence() throws {
        // A leap first month does not occur between 2024 and 2053.
        let result = try Self.rule(
            #"{"calendar": "chinese", "month": 1, "day": 1, "leapMonth": true, "ifMissing": "skip"}"#)
        #expect(result.value == nil)
        #expect(result.issues.first?.code == .releaseRecurrenceEmpty)
    }
}
