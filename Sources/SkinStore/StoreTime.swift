import Foundation

/// The store keeps time as whole milliseconds since 1970 on disk; every `Date` it hands out is built from that
/// integer, so values read back after a restart compare equal to the ones returned before it.
package enum StoreTime {
    /// Milliseconds since 1970, rounded down; non-finite or out-of-range dates clamp rather than trap.
    package static func millis(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return 0 }
        if value >= 9.2e18 { return Int64.max / 2 }
        if value <= -9.2e18 { return Int64.min / 2 }
        return Int64(value)
    }

    /// The date `millis` milliseconds after 1970.
    package static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}
