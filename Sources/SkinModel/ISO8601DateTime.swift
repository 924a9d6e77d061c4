import Foundation

/// An ISO 8601 date-time as written in `skin.json`: `YYYY-MM-DDTHH:MM:SS`, optional fraction (1–9 digits),
/// and an optional offset (`Z` or `±HH:MM`). Without an offset it is a local (wall-clock) time.
struct ISO8601DateTime: Sendable, Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    /// Fraction of a second, 0 ..< 1.
    var fraction: Double
    /// Seconds east of UTC, or `nil` for a local date-time.
    var offsetSeconds: Int?

    /// Parses the strict form above; `nil` for anything else (including impossible dates such as 02-30).
    init?(_ text: String) {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for i in start..<start + count {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ i: Int, _ ascii: Unicode.Scalar) -> Bool { i < b.count && b[i] == UInt8(ascii: ascii) }
        guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"), let day = number(8, 2),
            byte(10, "T"), let hour = number(11, 2), byte(13, ":"), let minute = number(14, 2), byte(16, ":"),
            let second = number(17, 2)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if byte(i, ".") {
            var scale = 0.1
            var digits = 0
            i += 1
            while i < b.count, let digit = number(i, 1) {
                fraction += Double(digit) * scale
                scale /= 10
                digits += 1
                i += 1
            }
            guard (1...9).contains(digits) else { return nil }
        }
        var offset: Int?
        if byte(i, "Z") {
            offset = 0
            i += 1
        } else if byte(i, "+") || byte(i, "-") {
            let sign = byte(i, "-") ? -1 : 1
            guard let hours = number(i + 1, 2), byte(i + 3, ":"), let minutes = number(i + 4, 2), hours <= 18,
                minutes < 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
            i += 6
        }
        guard i == b.count, year >= 1, (1...12).contains(month),
            (1...ISO8601DateTime.daysIn(month, year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fraction = fraction
        offsetSeconds = offset
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Seconds since 1970-01-01T00:00:00 of the wall-clock reading, as if it were UTC.
    var localSecondsSinceEpoch: Int {
        RecurrenceRule.CivilDate(year: year, month: month, day: day).daysSinceEpoch * 86_400
            + hour * 3600 + minute * 60 + second
    }

    /// The instant, using the written offset. `nil` for a local date-time.
    var instant: Date? {
        guard let offsetSeconds else { return nil }
        return Date(timeIntervalSince1970: Double(localSecondsSinceEpoch - offsetSeconds) + fraction)
    }

    /// The instant this wall-clock reading names in `zone`.
    ///
    /// When a daylight-saving change repeats the reading, the earlier instant is chosen; when it skips the
    /// reading (the gap in spring), the result is `nil`.
    func instant(in zone: TimeZone) -> Date? {
        let local = localSecondsSinceEpoch
        let probes = [local - 86_400, local, local + 86_400]
        let offsets = Set(probes.map { zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double($0))) })
        let candidates = offsets.compactMap { offset -> Int? in
            let utc = local - offset
            return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utc))) == offset ? utc : nil
        }
        guard let earliest = candidates.min() else { return nil }
        return Date(timeIntervalSince1970: Double(earliest) + fraction)
    }

    /// `date` in UTC as `YYYY-MM-DDTHH:MM:SSZ`, with milliseconds when the date has a fraction.
    static func utcText(_ date: Date) -> String {
        // Clamp to years 0001...9999, the range the parser accepts, so any Date formats without trapping.
        let interval = max(
            -62_135_596_800, min(253_402_300_799, date.timeIntervalSince1970.isNaN ? 0 : date.timeIntervalSince1970))
        let whole = Int(interval.rounded(.down))
        let millis = Int(((interval - Double(whole)) * 1000).rounded())
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondsOfDay = whole - days * 86_400
        let date = RecurrenceRule.CivilDate(daysSinceEpoch: days)
        let (year, month, day) = (date.year, date.month, date.day)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondsOfDay / 3600, 2)):"
            + "\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))"
        if millis > 0 && millis < 1000 { text += "." + pad(millis, 3) }
        return text + "Z"
    }
}
