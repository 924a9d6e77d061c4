import Dispatch
import Logging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The listening socket, accepted on by every event loop.
///
/// Each loop watches the socket in its own epoll set with `EPOLLEXCLUSIVE`, so a new connection wakes one loop,
/// which accepts it and serves it on its own thread: no accept thread, no hand-over between threads, and a loop busy
/// with work (such as TLS handshakes) leaves new connections to an idle one. (nginx's workers accept the same way.)
/// Every connection over `maxConnections` is still accepted, answered with a 503 (`Retry-After`) and closed,
/// however many there are: refusing costs a descriptor for the short time the answer takes, and running out of
/// descriptors is handled below. When the process runs out of descriptors (`EMFILE`, `ENFILE`), the loop that
/// failed stops watching the socket for 100 ms instead of spinning on a socket that stays readable (new
/// connections wait in the listen backlog); the episode is logged once when it starts and once, with its count of
/// failures, when it ends. Running out of kernel memory for sockets (`ENOBUFS`, `ENOMEM` from `accept4`) pauses the
/// loop and is logged the same way, as its own episode.
final class Listener: Sendable {
    let fd: Int32
    let address: SocketAddress
    private let loops: [EventLoop]
    private let context: ServerContext
    /// Set once by `stop()`; loops then stop watching the socket.
    private let stopped = Atomic<Bool>(false)
    /// Loops that have not yet stopped watching the socket since `stop()`; the last one closes it.
    private let watching = Atomic<Int>(0)
    /// Signalled once the socket is closed.
    private let closed = DispatchSemaphore(value: 0)

    /// Most connections one loop accepts per wake-up before looking at its other sockets: small, so a burst is
    /// shared between loops rather than taken by the first one woken.
    static let acceptBatch = 8
    /// How long a loop stops accepting after running out of descriptors or socket memory.
    static let exhaustionPause: UInt64 = 100_000_000

    /// Creates, binds and listens.
    init(configuration: HTTPServer.Configuration, loops: [EventLoop], context: ServerContext) throws(HTTPServerError) {
        let bindAddress = try BindAddress.resolve(host: configuration.host, port: configuration.port)
        let host = configuration.host
        let port = configuration.port
        let fd: Int32
        do {
            fd = try Syscall.socket(
                domain: bindAddress.family, type: Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue))
        } catch {
            throw .socket(call: "socket", errno: error.errno)
        }
        do throws(SystemCallError) {
            try Syscall.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            if bindAddress.family == AF_INET6 {
                // Dual-stack: "::" also accepts IPv4 (as v4-mapped addresses).
                try Syscall.setOption(fd, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: 0)
            }
            var storage = bindAddress.storage
            try withUnsafePointer(to: &storage) { pointer throws(SystemCallError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemCallError) in
                    try Syscall.bind(fd, address: address, length: bindAddress.length)
                }
            }
            try Syscall.listen(fd, backlog: Int32(clamping: configuration.backlog))
            guard let bound = SocketAddress(try Syscall.localAddress(fd)) else {
                throw SystemCallError("getsockname", errno: EAFNOSUPPORT)
            }
            self.address = bound
        } catch {
            Syscall.close(fd)
            switch error.errno {
            case EADDRINUSE: throw .addressInUse(host: host, port: port)
            case EACCES, EPERM: throw .permissionDenied(host: host, port: port)
            case EADDRNOTAVAIL: throw .invalidAddress(host: host, port: port)
            default: throw .socket(call: error.operation, errno: error.errno)
            }
        }
        self.fd = fd
        self.loops = loops
        self.context = context
    }

    /// Every loop starts watching the socket (connections arriving before then wait in the backlog).
    func start() {
        for loop in loops { loop.execute { [self] in loop.startAccepting(self) } }
    }

    /// Stops accepting and closes the socket; returns once no loop accepts on it any more and it is closed, so a
    /// connection attempt after it is refused rather than left in the listen backlog. Called on a loop's own thread,
    /// it returns at once (the loop finishes its part after the current task).
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // A listening socket shut down for reading leaves the listen state at once (Linux): new connection attempts
        // are refused from here on, and connections still in the backlog are reset rather than left waiting.
        Syscall.shutdownRead(fd)
        watching.store(loops.count, ordering: .releasing)
        for loop in loops {
            loop.execute { [self] in
                loop.stopAccepting(self)
                if watching.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                    Syscall.close(fd)
                    closed.signal()
                }
            }
        }
        guard !loops.contains(where: \.isCurrentThread) else { return }
        if closed.wait(timeout: .now() + .seconds(10)) == .timedOut {
            context.logger.warning("a loop did not stop accepting within 10 s; the listening socket stays shut down")
        }
    }

    /// Whether `stop()` was called.
    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Accepts up to `acceptBatch` connections on `loop`'s thread (the socket became readable there) and opens them
    /// on `loop`.
    func acceptReady(on loop: EventLoop) {
        for _ in 0..<Self.acceptBatch {
            guard !isStopped else {
                loop.stopAccepting(self)
                return
            }
            var peer = sockaddr_storage()
            let result: IOResult<Int32?>
            do {
                result = try Syscall.accept(fd, peer: &peer)
            } catch {
                if let episodes = exhaustion(after: error.errno) {
                    episodes.failed("accepting a connection", errno: error.errno)
                    loop.pauseAccepting(for: Self.exhaustionPause)
                } else if !isStopped {
                    context.logger.warning("accept failed: \(error)")
                }
                return
            }
            guard case .processed(let accepted) = result else { return }
            guard let connectionFD = accepted else { continue }
            context.descriptors.obtained()
            context.socketMemory.obtained()
            admit(connectionFD, peer: peer, on: loop)
        }
    }

    /// The episodes a failure of `accept4` with `code` counts in when it means a resource ran out (descriptors, or
    /// kernel memory for sockets), so the loop pauses accepting rather than spinning on the still-readable socket;
    /// nil for any other failure.
    func exhaustion(after code: Int32) -> DescriptorExhaustion? {
        switch DescriptorExhaustion.Resource(acceptFailure: code) {
        case .descriptors: context.descriptors
        case .memory: context.socketMemory
        case nil: nil
        }
    }

    private func admit(_ connectionFD: Int32, peer: sockaddr_storage, on loop: EventLoop) {
        let session: TLSSession?
        if let tls = context.tls.withLock({ $0 }) {
            guard let made = tls.makeSession(fd: connectionFD) else {
                context.logger.warning("cannot allocate a TLS session; connection closed")
                Syscall.close(connectionFD)
                return
            }
            session = made
        } else {
            session = nil
        }
        let open = context.openConnections.add(1, ordering: .acquiringAndReleasing).newValue
        let maximum = context.configuration.maxConnections
        // Responses go out in one send each, so Nagle's algorithm would only add delayed-ACK stalls.
        try? Syscall.setOption(connectionFD, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        let remote = SocketAddress(peer)?.description ?? "unknown"
        HTTPConnection(fd: connectionFD, loop: loop, remoteAddress: remote, refused: open > maximum, tls: session)
            .open()
    }
}
