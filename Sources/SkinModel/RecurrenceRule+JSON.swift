import Foundation
import LiveryJSON

extension RecurrenceRule {
    /// The keys a `recurs` object may hold.
    public static let knownKeys: [String] = [
        "calendar", "month", "day", "leapMonth", "startOffsetDays", "endOffsetDays", "startTime", "endTime", "ifMissing"
    ]

    /// How many Gregorian years, from the current one, a rule is checked over when parsed (missing days under
    /// `refuse`, overlaps, at least one occurrence). Thirty years cover every leap-month pattern a person plans for.
    public static let checkedYears = 30

    /// Parses a `recurs` object.
    ///
    /// Required: `calendar` (`chinese` or `gregorian`), `month` (1–12), `day` (1–31 Gregorian, 1–30 Chinese).
    /// Optional: `leapMonth` (Chinese only, default false), `startOffsetDays` and `endOffsetDays` (−366…366, default
    /// 0), `startTime` (`HH:MM:SS`, default `00:00:00`), `endTime` (default `23:59:59`), `ifMissing` (`refuse`, the
    /// default, `skip` or `lastDay`). The rule is then checked over ``checkedYears`` years from `now`'s year in
    /// `timeZone`: each occurrence must end after it starts and before the next one starts, at least one must exist,
    /// and under `refuse` every year must have the anchor day (the error names the years that lack it).
    public static func parse(
        _ value: JSONValue, file: String? = "skin.json", pointer: JSONPointer, timeZone: TimeZone, now: Date
    ) -> ParseResult<RecurrenceRule> {
        var issues = IssueCollector(file: file)
        guard let object = value.objectValue else {
            issues.error(
                .releaseFieldInvalid, pointer, value: value,
                "recurs must be an object, not a \(value.kindName).",
                fix:
                    "Write recurs as {\"calendar\": \"chinese\", \"month\": 1, \"day\": 1, \"startOffsetDays\": -7, \"endOffsetDays\": 15}."
            )
            return ParseResult(value: nil, issues: issues.issues)
        }
        for member in object where !knownKeys.contains(member.key) {
            let suggestion = closestMatch(to: member.key, among: knownKeys).map { "Did you mean \"\($0)\"? " } ?? ""
            issues.error(
                .releaseKeyUnknown, pointer.appending(member.key), value: .string(member.key),
                "recurs has an unknown key \"\(member.key)\".",
                fix: "\(suggestion)recurs keys are \(knownKeys.joined(separator: ", ")).")
        }

        func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type, default fallback: T?) -> T?
        where T.RawValue == String {
            guard let field = object[key], !field.isNull else {
                if fallback == nil {
                    issues.error(
                        .releaseFieldMissing, pointer.appending(key), value: nil, "recurs has no \(key).",
                        fix:
                            "Add \"\(key)\": one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))."
                    )
                }
                return fallback
            }
            if let text = field.stringValue, let parsed = T(rawValue: text) { return parsed }
            issues.error(
                .releaseFieldInvalid, pointer.appending(key), value: field,
                "\(key) must be one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \(field.compactText).",
                fix: "Write \(key) as one of those strings.")
            return nil
        }
        func integer(_ key: String, in range: ClosedRange<Int>, default fallback: Int?, what: String) -> Int? {
            guard let field = object[key], !field.isNull else {
                if fallback == nil {
                    issues.error(
                        .releaseFieldMissing, pointer.appending(key), value: nil, "recurs has no \(key).",
                        fix: "Add \"\(key)\": \(what).")
                }
                return fallback
            }
            if let number = field.intValue, range.contains(number) { return number }
            issues.error(
                .releaseFieldInvalid, pointer.appending(key), value: field,
                "\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(field.compactText).",
                fix: "Write \(key) as \(what).")
            return nil
        }
        func time(_ key: String, default fallback: TimeOfDay) -> TimeOfDay? {
            guard let field = object[key], !field.isNull else { return fallback }
            if let text = field.stringValue, let parsed = TimeOfDay(text) { return parsed }
            issues.error(
                .releaseFieldInvalid, pointer.appending(key), value: field,
                "\(key) must be a time of day \"HH:MM:SS\", not \(field.compactText).",
                fix: "Write \(key) such as \"00:00:00\" or \"23:59:59\".")
            return nil
        }

        let calendar = choice("calendar", CalendarKind.self, default: nil)
        let month = integer("month", in: 1...12, default: nil, what: "the month of the anchor day, 1 to 12")
        let dayLimit = calendar == .chinese ? 30 : 31
        let day = integer("day", in: 1...dayLimit, default: nil, what: "the day of the month, 1 to \(dayLimit)")
        var leapMonth = false
        if let field = object["leapMonth"], !field.isNull {
            if case .bool(let flag) = field {
                leapMonth = flag
                if flag && calendar == .gregorian {
                    issues.error(
                        .releaseFieldInvalid, pointer.appending("leapMonth"), value: field,
                        "leapMonth is for the Chinese calendar; the Gregorian calendar has no leap months.",
                        fix: "Remove leapMonth, or use \"calendar\": \"chinese\".")
                }
            } else {
                issues.error(
                    .releaseFieldInvalid, pointer.appending("leapMonth"), value: field,
                    "leapMonth must be true or false, not \(field.compactText).",
                    fix: "Write leapMonth as true or false.")
            }
        }
        let startOffset = integer(
            "startOffsetDays", in: -366...366, default: 0, what: "days from the anchor day, such as -7")
        let endOffset = integer(
            "endOffsetDays", in: -366...366, default: 0, what: "days from the anchor day, such as 15")
        let startTime = time("startTime", default: .startOfDay)
        let endTime = time("endTime", default: .lastSecondOfDay)
        let ifMissing = choice("ifMissing", IfMissing.self, default: .refuse)
        if calendar == .gregorian, let month, let day, day > ISO8601DateTime.daysIn(month, 2000) {
            issues.error(
                .releaseFieldInvalid, pointer.appending("day"), value: .number(JSONNumber(day)),
                "Month \(month) never has a day \(day).",
                fix: "Use a day from 1 to \(ISO8601DateTime.daysIn(month, 2000)).")
        }
        guard !issues.hasErrors, let calendar, let month, let day, let startOffset, let endOffset, let startTime,
            let endTime, let ifMissing
        else { return ParseResult(value: nil, issues: issues.issues) }

        let rule = RecurrenceRule(
            calendar: calendar, month: month, day: day, leapMonth: leapMonth, startOffsetDays: startOffset,
            endOffsetDays: endOffset, startTime: startTime, endTime: endTime, ifMissing: ifMissing)
        if endOffset * 86_400 + endTime.secondsOfDay <= startOffset * 86_400 + startTime.secondsOfDay {
            issues.error(
                .releaseRecurrenceOverlap, pointer.appending("endOffsetDays"), value: .number(JSONNumber(endOffset)),
                "Each occurrence would end (day \(endOffset) at \(endTime)) before it starts (day \(startOffset) at \(startTime)).",
                fix: "Make endOffsetDays and endTime later than startOffsetDays and startTime.")
            return ParseResult(value: nil, issues: issues.issues)
        }
        let firstYear = CivilDate(
            daysSinceEpoch: Int(
                ((now.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: now))) / 86_400).rounded(.down))
        ).year
        let years = firstYear...(firstYear + checkedYears - 1)
        if ifMissing == .refuse {
            let lacking = rule.yearsWithoutAnchor(in: years)
            if !lacking.isEmpty {
                let place = leapMonth ? "leapMonth" : "day"
                let what = leapMonth ? "leap month \(month)" : "day \(month)-\(day)"
                issues.error(
                    .releaseRecurrenceDayMissing, pointer.appending(place), value: object[place],
                    "The \(calendar.rawValue) calendar has no \(what) in \(lacking.map(String.init).joined(separator: ", ")).",
                    fix:
                        "Set \"ifMissing\": \"skip\" or \"lastDay\", or anchor on a day every year has (New Year's Eve is chinese 1-1 with both offsets -1)."
                )
                return ParseResult(value: nil, issues: issues.issues)
            }
        }
        let occurrences = years.compactMap { rule.occurrence(inYear: $0, timeZone: timeZone) }
        guard !occurrences.isEmpty else {
            issues.error(
                .releaseRecurrenceEmpty, pointer, value: nil,
                "This rule yields no occurrence from \(years.lowerBound) to \(years.upperBound).",
                fix: "Anchor on a day the calendar has, or set \"ifMissing\": \"lastDay\".")
            return ParseResult(value: nil, issues: issues.issues)
        }
        for (earlier, later) in zip(occurrences, occurrences.dropFirst()) where earlier.endsAt > later.startsAt {
            issues.error(
                .releaseRecurrenceOverlap, pointer.appending("endOffsetDays"), value: .number(JSONNumber(endOffset)),
                "The \(earlier.year) occurrence (until \(ISO8601DateTime.utcText(earlier.endsAt))) reaches into the \(later.year) one (from \(ISO8601DateTime.utcText(later.startsAt))).",
                fix: "Shorten the window: bring startOffsetDays and endOffsetDays closer together.")
            break
        }
        return ParseResult(value: issues.hasErrors ? nil : rule, issues: issues.issues)
    }
}

extension RecurrenceRule {
    /// The rule as a `recurs` object that ``parse(_:file:pointer:timeZone:now:)`` reads back to an equal rule:
    /// every key, in ``knownKeys`` order (`leapMonth` only for the Chinese calendar).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["calendar"] = .string(calendar.rawValue)
        object["month"] = .number(JSONNumber(month))
        object["day"] = .number(JSONNumber(day))
        if calendar == .chinese { object["leapMonth"] = .bool(leapMonth) }
        object["startOffsetDays"] = .number(JSONNumber(startOffsetDays))
        object["endOffsetDays"] = .number(JSONNumber(endOffsetDays))
        object["startTime"] = .string(startTime.description)
        object["endTime"] = .string(endTime.description)
        object["ifMissing"] = .string(ifMissing.rawValue)
        return .object(object)
    }
}
