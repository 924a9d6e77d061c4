#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import Synchronization

/// Episodes of running out of file descriptors (`EMFILE`, `ENFILE`), logged once each: one error when the first
/// failure of an episode happens, one notice with the count when a descriptor is obtained again. Without it, an
/// accept loop retrying every 100 ms and every failed download would each write a line.
///
/// Cheap on the hot path: a success costs one relaxed atomic load unless an episode is under way.
final class DescriptorExhaustion: Sendable {
    private let failures = Atomic<Int>(0)
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Whether `code` means the process (or the system) has no descriptor left.
    static func isExhaustion(_ code: Int32) -> Bool { code == EMFILE || code == ENFILE }

    /// Counts a failure for want of a descriptor; the first of an episode is logged, naming `what` failed.
    func failed(_ what: String, errno code: Int32) {
        if failures.add(1, ordering: .relaxed).newValue == 1 {
            let message =
                "out of file descriptors (\(String(cString: strerror(code)))): \(what); new connections wait and "
                + "file downloads get 503 until descriptors are free; further failures are counted, not logged"
            logger.error("\(message)")
        }
    }

    /// A descriptor was obtained: ends an episode under way, logging how many failures it had.
    func obtained() {
        guard failures.load(ordering: .relaxed) > 0 else { return }
        let count = failures.exchange(0, ordering: .relaxed)
        if count > 0 {
            logger.notice("file descriptors available again after \(count) failure(s) for want of one")
        }
    }

    /// Failures counted in the episode under way (0 when none is).
    var currentFailures: Int { failures.load(ordering: .relaxed) }
}
