#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The wall clock and the calendar parts of its instants, for log lines and HTTP dates.
///
/// The one place the server reads the real-time clock and breaks instants into calendar fields (`gmtime_r`,
/// `localtime_r`), and the one writer of the ISO 8601 stamps in log lines, so every log line dates itself the same
/// way whichever writer made it.
public enum WallClock {
    /// The current wall-clock instant: seconds since the epoch and the nanoseconds past them.
    public static func now() -> (seconds: Int, nanoseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (Int(spec.tv_sec), Int(spec.tv_nsec))
    }

    /// The calendar fields of `seconds` since the epoch, in UTC.
    public static func utcParts(_ seconds: Int) -> CalendarParts {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return CalendarParts(year: 1970, month: 1, day: 1) }
        return CalendarParts(parts)
    }

    /// `strftime("%Y-%m-%dT%H:%M:%S%z")` of `seconds` in the process's local time zone (read from `TZ` each call),
    /// as swift-log's `StreamLogHandler` writes its stamps; `<unknown>` if the zone cannot convert it.
    public static func localTimestamp(_ seconds: Int) -> [UInt8] {
        var time = time_t(seconds)
        var parts = tm()
        tzset()
        guard localtime_r(&time, &parts) != nil else { return Array("<unknown>".utf8) }
        var buffer = [Int8](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return buffer[0..<count].map { UInt8(bitPattern: $0) }
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS` of `seconds` in UTC, then `.mmm` when `milliseconds` is given, then `Z` when
    /// `zone` is true: `2026-12-01T23:05:09.042Z`.
    public static func appendUTCStamp(_ seconds: Int, milliseconds: Int? = nil, zone: Bool, to out: inout [UInt8]) {
        let parts = utcParts(seconds)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = max(0, value)
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8((rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.year, 4)
        out.append(UInt8(ascii: "-"))
        digits(parts.month, 2)
        out.append(UInt8(ascii: "-"))
        digits(parts.day, 2)
        out.append(UInt8(ascii: "T"))
        digits(parts.hour, 2)
        out.append(UInt8(ascii: ":"))
        digits(parts.minute, 2)
        out.append(UInt8(ascii: ":"))
        digits(parts.second, 2)
        if let milliseconds {
            out.append(UInt8(ascii: "."))
            digits(milliseconds, 3)
        }
        if zone { out.append(UInt8(ascii: "Z")) }
    }
}

/// The calendar fields of an instant: `month` 1–12, `day` 1–31, `weekday` 0 (Sunday) – 6.
public struct CalendarParts: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour = 0
    public var minute = 0
    public var second = 0
    public var weekday = 4

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, weekday: Int = 4) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.weekday = weekday
    }

    init(_ parts: tm) {
        self.init(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec), weekday: Int(parts.tm_wday))
    }
}
