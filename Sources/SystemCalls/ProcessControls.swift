#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The calls about the process rather than a file or socket: signals, its open-file limit, its id, its
/// environment, a pause.
extension Syscall {
    /// Sets `signal`'s disposition to "ignore": its default action (usually ending the process) never runs.
    /// Dispatch signal sources still receive an ignored signal.
    public static func ignoreSignal(_ number: Int32) {
        _ = signal(number, SIG_IGN)
    }

    /// The open-file limit (`RLIMIT_NOFILE`): the soft limit in force and the hard limit it may rise to; nil if
    /// it cannot be read.
    public static func openFileLimit() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Sets the soft open-file limit to `soft` (at most the hard limit `hard`, which it keeps).
    public static func setOpenFileLimit(soft: UInt64, hard: UInt64) throws(SystemCallError) {
        var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw lastFailure("setrlimit") }
    }

    /// This process's id.
    public static var processID: Int32 { getpid() }

    /// The value of the environment variable `name`, nil when unset.
    public static func environmentValue(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// Blocks the calling thread for `milliseconds` (the full time: an interrupted sleep goes on for the rest).
    public static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && SystemCallError.currentErrno() == EINTR { request = remaining }
    }
}
