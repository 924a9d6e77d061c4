import CLiveryHTTP
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
/// which accepts it: no accept thread, and a loop busy with work (such as TLS handshakes) leaves new connections to
/// an idle one. (nginx's workers accept the same way.) The accepting loop serves the connection itself unless
/// another loop holds fewer connections and is not stuck (`servingLoop`): then it hands the connection over once,
/// through that loop's task queue, and it lives there. Without this, keep-alive connections opened in a burst
/// (a load balancer's pool, a benchmark) could all land on the first loop woken and leave the other cores idle.
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
    /// The server's loops, in index order (`loops[i].index == i`).
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
        // The descriptor reserve was given to the runtime (another loop ran out): accept nothing until it is whole.
        if DescriptorReserve.shared.isReleased {
            loop.pauseAccepting(for: Self.exhaustionPause)
            return
        }
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
                    if episodes.resource == .descriptors {
                        loop.outOfDescriptors()
                    } else {
                        loop.pauseAccepting(for: Self.exhaustionPause)
                    }
                } else if !isStopped {
                    context.logger.warning("accept failed: \(error)")
                }
                return
            }
            guard case .processed(let accepted) = result else { return }
            guard let connectionFD = accepted else { continue }
            context.descriptors.obtained()
            context.socketMemory.obtained()
            // Counted here, before any hand-over, so a drain never sees zero connections while one is on its way.
            let open = context.openConnections.add(1, ordering: .acquiringAndReleasing).newValue
            let refused = open > context.configuration.maxConnections
            let remote = SocketAddress(peer)?.description ?? "unknown"
            let target = loops.count > 1 ? servingLoop(acceptedOn: loop, fd: connectionFD) : loop
            target.connectionCount.add(1, ordering: .relaxed)
            if target !== loop {
                let handed = target.execute { [self] in
                    admit(connectionFD, remote: remote, refused: refused, on: target)
                }
                if handed { continue }
                target.connectionCount.subtract(1, ordering: .relaxed)
                loop.connectionCount.add(1, ordering: .relaxed)
            }
            admit(connectionFD, remote: remote, refused: refused, on: loop)
        }
    }

    /// A loop that has been in one round of work for this long (a handler holding its thread) is stuck: it is not
    /// handed new connections, which would wait for it.
    static let stuckAfter: UInt64 = 10_000_000

    /// The loop that serves connection `fd`, accepted on `loop` (`servingIndex`). With pinned loops, the loop on
    /// the CPU that received the connection's packets is preferred.
    private func servingLoop(acceptedOn loop: EventLoop, fd: Int32) -> EventLoop {
        let loads = loops.map { other in
            LoopLoad(
                connections: other.connectionCount.load(ordering: .relaxed),
                roundStart: other.roundStart.load(ordering: .relaxed))
        }
        var preferred: Int?
        if context.configuration.pinsEventLoops {
            let incoming = livery_incoming_cpu(fd)
            preferred = incoming >= 0 ? loops.firstIndex { $0.cpu == incoming } : nil
        }
        return loops[
            Self.servingIndex(
                acceptedOn: loop.index, preferring: preferred, loads: loads, now: loop.now,
                stuckAfter: context.configuration.stuckLoopAfter)]
    }

    /// What a loop tells the others when they share out a new connection.
    struct LoopLoad: Equatable {
        /// Connections it serves or has been handed (`EventLoop.connectionCount`).
        var connections: Int
        /// When its current round began, or 0 while it waits for events (`EventLoop.roundStart`).
        var roundStart: UInt64
    }

    /// The index in `loads` of the loop that serves a connection accepted by loop `own` at `now`.
    ///
    /// A `preferred` loop (the one on the CPU that received the connection, with pinned loops) serves it unless it
    /// is stuck or holds more than twice the connections of the least busy loop that is not, plus two: locality
    /// first, but never one loop serving everything. Otherwise `own` does, unless a loop with strictly fewer
    /// connections is waiting for events or began its round less than `stuckAfter` nanoseconds ago (the server's
    /// `stuckLoopAfter`, `Listener.stuckAfter` unless changed); then the one of those with
    /// the fewest, the first on a tie.
    static func servingIndex(
        acceptedOn own: Int, preferring preferred: Int? = nil, loads: [LoopLoad], now: UInt64,
        stuckAfter: UInt64 = Listener.stuckAfter
    )
        -> Int
    {
        func responsive(_ load: LoopLoad) -> Bool {
            load.roundStart == 0 || load.roundStart >= now || now - load.roundStart < stuckAfter
        }
        if let preferred, loads.indices.contains(preferred), responsive(loads[preferred]) {
            let fewest = loads.filter(responsive).map(\.connections).min() ?? 0
            if loads[preferred].connections <= 2 * fewest + 2 { return preferred }
        }
        var best = own
        var fewest = loads[own].connections
        for (index, load) in loads.enumerated() where index != own && load.connections < fewest {
            guard responsive(load) else { continue }
            best = index
            fewest = load.connections
        }
        return best
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

    /// Opens an accepted connection on `loop`, on its thread.
    private func admit(_ connectionFD: Int32, remote: String, refused: Bool, on loop: EventLoop) {
        let session: TLSSession?
        if let tls = context.tls.withLock({ $0 }) {
            guard let made = tls.makeSession(fd: connectionFD) else {
                context.logger.warning("cannot allocate a TLS session; connection closed")
                Syscall.close(connectionFD)
                loop.connectionClosed()
                return
            }
            session = made
        } else {
            session = nil
        }
        // Responses go out in one send each, so Nagle's algorithm would only add delayed-ACK stalls.
        try? Syscall.setOption(connectionFD, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        HTTPConnection(fd: connectionFD, loop: loop, remoteAddress: remote, refused: refused, tls: session).open()
    }
}
