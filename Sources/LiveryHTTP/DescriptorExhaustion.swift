import Logging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Episodes of running out of a resource, logged once each: one error when the first failure of an episode happens,
/// one notice with the count when the resource is obtained again. Without it, an accept loop retrying every 100 ms
/// and every failed download would each write a line. The resource is file descriptors (`EMFILE`, `ENFILE`) or, for
/// `accept4` alone, kernel memory for sockets (`ENOBUFS`, `ENOMEM`).
///
/// Cheap on the hot path: a success costs one relaxed atomic load unless an episode is under way.
final class DescriptorExhaustion: Sendable {
    /// What ran out.
    enum Resource: Sendable, Equatable {
        /// File descriptors (`EMFILE`, `ENFILE`).
        case descriptors
        /// Kernel memory for sockets and their buffers (`ENOBUFS`, `ENOMEM`).
        case memory

        /// The resource whose want `accept4`'s failure `code` means; nil for any other failure.
        init?(acceptFailure code: Int32) {
            if DescriptorExhaustion.isExhaustion(code) {
                self = .descriptors
            } else if code == ENOBUFS || code == ENOMEM {
                self = .memory
            } else {
                return nil
            }
        }

        /// What the episode's first failure logs (before the count note), and what its end logs.
        fileprivate var texts: (name: String, effect: String, regained: String) {
            switch self {
            case .descriptors:
                (
                    "file descriptors", "new connections wait and file downloads get 503 until descriptors are free",
                    "file descriptors available again"
                )
            case .memory:
                (
                    "memory for sockets", "new connections wait in the listen backlog until memory is free",
                    "memory for sockets available again"
                )
            }
        }
    }

    private let failures = Atomic<Int>(0)
    private let logger: Logger
    let resource: Resource

    init(logger: Logger, resource: Resource = .descriptors) {
        self.logger = logger
        self.resource = resource
    }

    /// Whether `code` means the process (or the system) has no descriptor left.
    static func isExhaustion(_ code: Int32) -> Bool { code == EMFILE || code == ENFILE }

    /// Counts a failure for want of the resource; the first of an episode is logged, naming `what` failed.
    func failed(_ what: String, errno code: Int32) {
        if failures.add(1, ordering: .relaxed).newValue == 1 {
            let texts = resource.texts
            let message =
                "out of \(texts.name) (\(SystemCallError.text(code))): \(what); \(texts.effect); "
                + "further failures are counted, not logged"
            logger.error("\(message)")
        }
    }

    /// The resource was obtained (a descriptor opened, a connection accepted): ends an episode under way, logging
    /// how many failures it had.
    func obtained() {
        guard failures.load(ordering: .relaxed) > 0 else { return }
        let count = failures.exchange(0, ordering: .relaxed)
        if count > 0 {
            logger.notice("\(resource.texts.regained) after \(count) failure(s) for want of them")
        }
    }

    /// Failures counted in the episode under way (0 when none is).
    var currentFailures: Int { failures.load(ordering: .relaxed) }
}
