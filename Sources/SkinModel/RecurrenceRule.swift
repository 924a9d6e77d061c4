import Foundation

/// A release window that comes back every year, anchored on a day of the Gregorian or the Chinese calendar
/// (`release.recurs`): Spring Festival is `chinese` 1-1 from −7 days 00:00:00 to +15 days 23:59:59 in
/// Asia/Shanghai, Christmas `gregorian` 12-25 from −5 to +2.
///
/// An occurrence starts at `startTime` on the anchor day plus `startOffsetDays` and ends (exclusively, like every
/// `endsAt`) at `endTime` on the anchor day plus `endOffsetDays`, both read in the release's time zone. Occurrences
/// are keyed by the Gregorian year of their anchor day and have no end year.
///
/// Invariants (guaranteed by ``parse(_:pointer:timeZone:now:)`` and stated for the memberwise initializer's callers):
/// `month` is 1...12; `day` is 1...31 (`gregorian`) or 1...30 (`chinese`); `leapMonth` only with `chinese`; times
/// are valid times of day. Chinese dates are computed with Foundation's Chinese calendar (ICU) in China's time zone,
/// where the calendar is defined, whatever the release's zone; phones never compute them: they get instants.
public struct RecurrenceRule: Sendable, Equatable {
    /// The calendar whose month and day anchor each occurrence.
    public enum CalendarKind: String, Sendable, CaseIterable {
        /// The Chinese lunisolar calendar (Spring Festival is month 1, day 1).
        case chinese
        /// The Gregorian calendar (Christmas is month 12, day 25).
        case gregorian
    }

    /// What a year without the anchor day (or without the leap month) does.
    public enum IfMissing: String, Sendable, CaseIterable {
        /// The rule is refused when any year checked lacks the day (the default).
        case refuse
        /// That year has no occurrence.
        case skip
        /// That year anchors on the month's last day; a missing leap month falls back to the regular month of the
        /// same number.
        case lastDay
    }

    /// A wall-clock time of day, `HH:MM:SS`.
    public struct TimeOfDay: Sendable, Equatable, CustomStringConvertible {
        public var hour: Int
        public var minute: Int
        public var second: Int

        /// A time of day; `nil` unless `hour` is 0...23 and `minute` and `second` are 0...59.
        public init?(hour: Int, minute: Int, second: Int) {
            guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
            self.init(checked: hour, minute, second)
        }

        /// The first second of a day, 00:00:00: `startTime`'s default.
        public static let startOfDay = TimeOfDay(checked: 0, 0, 0)
        /// The last second of a day, 23:59:59: `endTime`'s default.
        public static let lastSecondOfDay = TimeOfDay(checked: 23, 59, 59)

        /// The caller guarantees the ranges of the failable initializer.
        private init(checked hour: Int, _ minute: Int, _ second: Int) {
            self.hour = hour
            self.minute = minute
            self.second = second
        }

        /// Parses exactly `HH:MM:SS`.
        public init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3,
                parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2])
            else { return nil }
            self.init(hour: hour, minute: minute, second: second)
        }

        public var description: String {
            func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "\(pad(hour)):\(pad(minute)):\(pad(second))"
        }

        var secondsOfDay: Int { hour * 3600 + minute * 60 + second }
    }

    /// A day of the Gregorian calendar, with no time and no zone: the one place SkinModel turns dates into day
    /// numbers and back (`ISO8601DateTime` reads and writes instants through it too).
    public struct CivilDate: Sendable, Equatable, Comparable, CustomStringConvertible {
        public var year: Int
        public var month: Int
        public var day: Int

        public init(year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }

        /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
        var daysSinceEpoch: Int {
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let monthIndex = month > 2 ? month - 3 : month + 9
            let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
            return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        }

        /// The date `days` days since 1970-01-01 (civil_from_days).
        init(daysSinceEpoch: Int) {
            let days = daysSinceEpoch + 719_468
            let era = (days >= 0 ? days : days - 146_096) / 146_097
            let dayOfEra = days - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        }

        /// This date moved by `days` days.
        public func adding(days: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

        public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

        public var description: String {
            func pad(_ value: Int, _ width: Int) -> String {
                let digits = String(value)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
            return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        }
    }

    /// One year's window: the anchor day and the instants it yields.
    public struct Occurrence: Sendable, Equatable {
        /// The Gregorian year of the anchor day: the key of `release.occurrences` overrides.
        public var year: Int
        /// The anchor day, in the Gregorian calendar (after `lastDay` substitution).
        public var anchor: CivilDate
        /// First instant of the window (inclusive).
        public var startsAt: Date
        /// First instant after the window (exclusive).
        public var endsAt: Date
    }

    public var calendar: CalendarKind
    public var month: Int
    public var day: Int
    public var leapMonth: Bool
    public var startOffsetDays: Int
    public var endOffsetDays: Int
    public var startTime: TimeOfDay
    public var endTime: TimeOfDay
    public var ifMissing: IfMissing

    /// A rule; the caller guarantees the invariants on the type (use ``parse(_:pointer:timeZone:now:)`` for input).
    public init(
        calendar: CalendarKind, month: Int, day: Int, leapMonth: Bool = false, startOffsetDays: Int = 0,
        endOffsetDays: Int = 0, startTime: TimeOfDay = .startOfDay,
        endTime: TimeOfDay = .lastSecondOfDay, ifMissing: IfMissing = .refuse
    ) {
        self.calendar = calendar
        self.month = month
        self.day = day
        self.leapMonth = leapMonth
        self.startOffsetDays = startOffsetDays
        self.endOffsetDays = endOffsetDays
        self.startTime = startTime
        self.endTime = endTime
        self.ifMissing = ifMissing
    }

    /// The outcome of looking for the anchor day in one Gregorian year.
    public enum Anchor: Sendable, Equatable {
        /// The day exists (or `lastDay` substituted one).
        case day(CivilDate)
        /// The calendar has no such day (or no such leap month) that year, and `ifMissing` is not `lastDay`.
        case missing
        /// The calendar has the day, but it falls in another Gregorian year (a late Chinese month that crossed
        /// January); that year simply has no occurrence.
        case notInYear
    }

    /// The anchor day whose Gregorian year is `year`.
    ///
    /// Gregorian anchors are that year's month and day. A Chinese anchor belongs to the Gregorian year it falls in:
    /// the Chinese year that begins in `year - 1` or the one that begins in `year`; when both fall in `year` (only
    /// possible for days close to the winter solstice) the earlier one is that year's. A day the Chinese calendar
    /// lacks counts against the Gregorian year it would fall in: the year the Chinese year begins for months 1–10,
    /// the next one for months 11 and 12.
    public func anchor(inYear year: Int) -> Anchor {
        switch calendar {
        case .gregorian:
            let days = ISO8601DateTime.daysIn(month, year)
            if day <= days { return .day(CivilDate(year: year, month: month, day: day)) }
            return ifMissing == .lastDay ? .day(CivilDate(year: year, month: month, day: days)) : .missing
        case .chinese:
            var missing = false
            for beginning in [year - 1, year] {
                switch Self.chineseAnchor(
                    beginningInGregorianYear: beginning, month: month, day: day, leapMonth: leapMonth,
                    ifMissing: ifMissing)
                {
                case .day(let date) where date.year == year: return .day(date)
                case .missing where (month <= 10 ? beginning : beginning + 1) == year: missing = true
                default: break
                }
            }
            return missing ? .missing : .notInYear
        }
    }

    /// The occurrence anchored in `year`, or `nil` when the year has no anchor day.
    public func occurrence(inYear year: Int, timeZone: TimeZone) -> Occurrence? {
        guard case .day(let anchor) = anchor(inYear: year) else { return nil }
        return Occurrence(
            year: year, anchor: anchor,
            startsAt: Self.instant(anchor.adding(days: startOffsetDays), startTime, timeZone),
            endsAt: Self.instant(anchor.adding(days: endOffsetDays), endTime, timeZone))
    }

    /// The first `count` occurrences whose window has not ended at `instant` (those still open, then those ahead),
    /// in time order. Years without an anchor are passed over; at most 400 years are searched.
    public func occurrences(notEndedAt instant: Date, count: Int, timeZone: TimeZone) -> [Occurrence] {
        guard count > 0 else { return [] }
        let startYear = CivilDate(daysSinceEpoch: Int((instant.timeIntervalSince1970 / 86_400).rounded(.down))).year - 1
        var found: [Occurrence] = []
        for year in startYear..<(startYear + 400) {
            guard let next = occurrence(inYear: year, timeZone: timeZone), next.endsAt > instant else { continue }
            found.append(next)
            if found.count == count { break }
        }
        return found
    }

    /// The years in `years` that have no anchor day (what `ifMissing: refuse` refuses).
    public func yearsWithoutAnchor(in years: ClosedRange<Int>) -> [Int] {
        years.filter { anchor(inYear: $0) == .missing }
    }

    // MARK: - Calendar arithmetic

    /// China's civil time zone, in which the Chinese calendar's days are defined.
    private static let chinaTimeZone =
        TimeZone(identifier: "Asia/Shanghai") ?? TimeZone(secondsFromGMT: 8 * 3600) ?? .current

    /// The Gregorian date of `month`/`day` (in the leap month when `leapMonth`) of the Chinese year whose new year
    /// falls in Gregorian year `gregorianYear`, applying `ifMissing: .lastDay` when the day or leap month is absent.
    static func chineseAnchor(
        beginningInGregorianYear gregorianYear: Int, month: Int, day: Int, leapMonth: Bool, ifMissing: IfMissing
    ) -> Anchor {
        var chinese = Calendar(identifier: .chinese)
        chinese.timeZone = chinaTimeZone
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = chinaTimeZone
        // Mid-year of `gregorianYear` always lies in the Chinese year that began in its January or February.
        guard let midYear = gregorian.date(from: DateComponents(year: gregorianYear, month: 7, day: 1)) else {
            return .missing
        }
        let era = chinese.component(.era, from: midYear)
        let chineseYear = chinese.component(.year, from: midYear)

        /// The date of `m`/`d` (leap or not), `nil` unless Foundation's answer reads back as the same day.
        func exact(_ m: Int, _ d: Int, leap: Bool) -> CivilDate? {
            var components = DateComponents(era: era, year: chineseYear, month: m, day: d)
            components.isLeapMonth = leap
            guard let date = chinese.date(from: components) else { return nil }
            let back = chinese.dateComponents([.era, .year, .month, .day], from: date)
            guard back.era == era, back.year == chineseYear, back.month == m, back.day == d,
                (back.isLeapMonth ?? false) == leap
            else { return nil }
            let civil = gregorian.dateComponents([.year, .month, .day], from: date)
            guard let y = civil.year, let mo = civil.month, let da = civil.day else { return nil }
            return CivilDate(year: y, month: mo, day: da)
        }

        if let date = exact(month, day, leap: leapMonth) { return .day(date) }
        guard ifMissing == .lastDay else { return .missing }
        // The leap month is missing this year: the regular month of the same number stands in.
        let useLeap = leapMonth && exact(month, 1, leap: true) != nil
        // Day 30 falls back to 29, the last day of a short month.
        for candidate in day >= 30 ? [30, 29] : [day] {
            if let date = exact(month, candidate, leap: useLeap) { return .day(date) }
        }
        return .missing
    }

    /// The instant of `time` on `date` in `zone` (the earlier one when the reading repeats); a reading the clocks
    /// skip (a daylight-saving gap) moves on by the gap's hour.
    static func instant(_ date: CivilDate, _ time: TimeOfDay, _ zone: TimeZone) -> Date {
        let reading = ISO8601DateTime(local: date, time)
        if let exact = reading.instant(in: zone) { return exact }
        let later = ISO8601DateTime(
            local: date, TimeOfDay(hour: min(time.hour + 1, 23), minute: time.minute, second: time.second) ?? time)
        return later.instant(in: zone)
            ?? Date(timeIntervalSince1970: Double(reading.localSecondsSinceEpoch - zone.secondsFromGMT()))
    }
}

extension ISO8601DateTime {
    /// The local (offset-free) reading of `time` on `date`.
    init(local date: RecurrenceRule.CivilDate, _ time: RecurrenceRule.TimeOfDay) {
        year = date.year
        month = date.month
        day = date.day
        hour = time.hour
        minute = time.minute
        second = time.second
        fraction = 0
        offsetSeconds = nil
    }
}
