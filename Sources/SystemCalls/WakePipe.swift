#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pipe that one thread writes to so that another thread's `poll` on `reader` wakes up.
///
/// Invariants: both ends are close-on-exec; the write end is non-blocking, so `wake()` never blocks even when the
/// pipe is full (one unread byte is wake-up enough); both ends are closed once, when the value is released, so a
/// `wake()` that comes late never writes into a closed or reused descriptor.
public final class WakePipe: Sendable {
    /// The end to `poll` for `POLLIN`.
    public let reader: Int32
    private let writer: Int32

    public init() throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        // `pipe2` is not in Swift's Glibc module; the flags follow at once (a child spawned in between by another
        // thread could inherit the ends, which costs it two descriptors and nothing else).
        guard pipe(&ends) == 0 else { throw Syscall.lastFailure("pipe") }
        reader = ends[0]
        writer = ends[1]
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        Syscall.close(reader)
        Syscall.close(writer)
    }

    /// Makes `reader` readable. A full pipe (already readable) is left as it is.
    public func wake() {
        var byte: UInt8 = 1
        _ = Syscall.retryingInterrupts { write(writer, &byte, 1) }
    }
}
