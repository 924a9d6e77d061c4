import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The `Date` header line (RFC 9110 §6.6.1, IMF-fixdate), rebuilt at most once per second.
///
/// One per event loop; checking the clock costs a vDSO call per response, formatting happens once a second.
struct DateHeaderCache {
    private var second = -1
    private(set) var line: [UInt8] = []

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for the current second.
    mutating func current() -> [UInt8] {
        let now = Syscall.coarseWallClockSeconds()
        if now != second {
            second = now
            line = Array("Date: \(Self.format(now))\r\n".utf8)
        }
        return line
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since the epoch as IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(_ seconds: Int) -> String {
        let parts = WallClock.utcParts(seconds)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = days[parts.weekday % 7]
        let month = months[(parts.month - 1) % 12]
        return "\(day), \(two(parts.day)) \(month) \(parts.year) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }
}
