import SystemCalls

/// The process's open-file limit (`RLIMIT_NOFILE`), which bounds how many connections a server can hold: each
/// takes a descriptor, and a download takes a second one for its file.
public struct DescriptorLimit: Sendable, Equatable {
    /// The limit in force (the soft limit).
    public var current: UInt64
    /// The most the process may raise it to (the hard limit).
    public var maximum: UInt64
    /// The soft limit before `raiseToMaximum()`, when it raised it; nil when it was already at the maximum or
    /// could not be raised.
    public var raisedFrom: UInt64?

    /// Descriptors a server needs besides its connections: the listener, event loops, the store, files being
    /// sent, logs. A rough allowance, used only to warn.
    public static let reserve: UInt64 = 64

    /// Raises the soft limit to the hard limit (as a service manager's `LimitNOFILE` allows) and returns the
    /// result. Never lowers it; a failure leaves it as it was.
    public static func raiseToMaximum() -> DescriptorLimit {
        guard let limit = Syscall.openFileLimit() else {
            return DescriptorLimit(current: 0, maximum: 0, raisedFrom: nil)
        }
        guard limit.soft < limit.hard else {
            return DescriptorLimit(current: limit.soft, maximum: limit.hard, raisedFrom: nil)
        }
        do throws(SystemCallError) {
            try Syscall.setOpenFileLimit(soft: limit.hard, hard: limit.hard)
        } catch {
            return DescriptorLimit(current: limit.soft, maximum: limit.hard, raisedFrom: nil)
        }
        return DescriptorLimit(current: limit.hard, maximum: limit.hard, raisedFrom: limit.soft)
    }

    /// Whether `maxConnections` connections fit under the current limit with `reserve` to spare.
    public func fits(maxConnections: Int) -> Bool {
        UInt64(max(0, maxConnections)) + Self.reserve <= current
    }
}
