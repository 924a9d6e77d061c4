import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// File descriptors the process holds back from its own work, so that when it runs out of descriptors the runtime
/// beneath it still finds a few.
///
/// Why: on Linux, libdispatch (under Swift concurrency's thread pool) checks its worker threads once a second by
/// opening `/proc/<tid>/stat`, and ends the process with `SIGILL` when that open fails. A server that runs out of
/// descriptors (clients holding connections up to the open-file limit) would then crash instead of waiting for
/// descriptors to come back.
///
/// How: `fill()` holds `count` descriptors on `/dev/null` (the HTTP server fills the process's reserve when it
/// starts). The first time the process's own work fails for want of descriptors, `release()` closes them, so they
/// are free for the runtime; until the reserve is whole again the server's own new descriptors wait (accepting is
/// paused, file downloads and admin writes answer 503 `server_busy`), and `fill()`, tried when accepting would
/// resume, succeeds only once `count` descriptors are free again, which ends the episode.
///
/// Invariant: `isReleased` is true from `release()` until a `fill()` that holds all `count` descriptors; while it is
/// true the reserve holds none.
public final class DescriptorReserve: Sendable {
    /// The process's reserve (a process has one open-file limit).
    public static let shared = DescriptorReserve(count: 16)

    /// How many descriptors a full reserve holds.
    public let count: Int
    private let held = Mutex<[Int32]>([])
    private let released = Atomic<Bool>(false)

    /// A reserve of `count` descriptors, holding none until `fill()`.
    public init(count: Int) {
        self.count = max(0, count)
    }

    /// Whether the reserve was given up for want of descriptors and is not whole again: the process's own work
    /// should not take new descriptors meanwhile. One relaxed atomic load.
    public var isReleased: Bool { released.load(ordering: .relaxed) }

    /// Descriptors held now.
    public var heldCount: Int { held.withLock { $0.count } }

    /// The descriptors held now, for tests.
    var heldDescriptors: [Int32] { held.withLock { $0 } }

    /// Opens descriptors until `count` are held; returns whether the reserve is whole. When it cannot be made whole
    /// (descriptors are still short), the ones it just opened are closed again and the reserve stays as it was
    /// (released, if it was): a partial reserve would only take descriptors from the runtime it is kept for.
    @discardableResult
    public func fill() -> Bool {
        held.withLock { held in
            var opened: [Int32] = []
            while held.count + opened.count < count {
                guard let fd = try? Syscall.open("/dev/null", O_RDONLY) else {
                    for fd in opened { Syscall.close(fd) }
                    return false
                }
                opened.append(fd)
            }
            held += opened
            released.store(false, ordering: .relaxed)
            return true
        }
    }

    /// Closes every descriptor held, for the runtime to use, and marks the reserve released until `fill()` makes it
    /// whole. Returns whether this call released it (false when it already was, or held none).
    @discardableResult
    public func release() -> Bool {
        held.withLock { held in
            guard !held.isEmpty else { return false }
            for fd in held { Syscall.close(fd) }
            held = []
            released.store(true, ordering: .relaxed)
            return true
        }
    }
}
