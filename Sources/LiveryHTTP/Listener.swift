#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemCalls
import Dispatch
import Logging

/// The listening socket and its accept loop.
///
/// Accepts on its own serial queue and hands each connection to the next event loop in turn. Every connection
/// over `maxConnections` is still accepted, answered with a 503 (`Retry-After`) and closed, however many there
/// are: refusing costs a descriptor for the short time the answer takes, and running out of descriptors is
/// handled below. When the process runs out of descriptors (`EMFILE`, `ENFILE`), accepting pauses for 100 ms at
/// a time instead of spinning on a socket that stays readable (new connections wait in the listen backlog); the
/// episode is logged once when it starts and once, with its count of failures, when it ends.
final class Listener: @unchecked Sendable {
    // Invariant: `source`, `paused` and `nextLoop` are used only on `queue`.

    let fd: Int32
    let address: SocketAddress
    private let queue = DispatchQueue(label: "livery.http.accept")
    private let loops: [EventLoop]
    private let context: ServerContext
    private var source: DispatchSourceRead?
    private var paused = false
    /// Signalled by the source's cancel handler once the socket is closed.
    private let closed = DispatchSemaphore(value: 0)
    private var nextLoop = 0

    /// Creates, binds and listens.
    init(configuration: HTTPServer.Configuration, loops: [EventLoop], context: ServerContext) throws(HTTPServerError) {
        let bindAddress = try BindAddress.resolve(host: configuration.host, port: configuration.port)
        let host = configuration.host
        let port = configuration.port
        let fd: Int32
        do {
            fd = try Syscall.socket(domain: bindAddress.family, type: Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue))
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

    func start() {
        queue.sync {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            // Strong on purpose: a running listener lives until `stop()` cancels its source, even if the server
            // object that started it is gone.
            source.setEventHandler { [self] in acceptAll() }
            let fd = self.fd
            let closed = self.closed
            source.setCancelHandler {
                Syscall.close(fd)
                closed.signal()
            }
            self.source = source
            source.activate()
        }
    }

    /// Stops accepting and closes the socket; returns once no accept handler is running and the socket is closed, so
    /// a connection attempt after it is refused rather than left in the listen backlog.
    ///
    /// Must not be called on the listener's own queue (the cancel handler that closes the socket runs there).
    func stop() {
        let cancelled = queue.sync { () -> Bool in
            guard let source else { return false }
            if paused {
                paused = false
                source.resume()
            }
            source.cancel()
            self.source = nil
            return true
        }
        if cancelled { closed.wait() }
    }

    private func acceptAll() {
        // Bounded so one burst of connections cannot starve the queue's other work.
        for _ in 0..<256 {
            var peer = sockaddr_storage()
            let result: IOResult<Int32?>
            do {
                result = try Syscall.accept(fd, peer: &peer)
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE {
                    pauseAccepting(error)
                } else {
                    context.logger.warning("accept failed: \(error)")
                }
                return
            }
            guard case .processed(let accepted) = result else { return }
            guard let connectionFD = accepted else { continue }
            context.descriptors.obtained()
            admit(connectionFD, peer: peer)
        }
    }

    private func admit(_ connectionFD: Int32, peer: sockaddr_storage) {
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
        let loop = loops[nextLoop]
        nextLoop = (nextLoop + 1) % loops.count
        let refused = open > maximum
        loop.execute {
            HTTPConnection(fd: connectionFD, loop: loop, remoteAddress: remote, refused: refused, tls: session).open()
        }
    }

    private func pauseAccepting(_ error: SystemCallError) {
        guard !paused, let source else { return }
        context.descriptors.failed("accepting a connection", errno: error.errno)
        paused = true
        source.suspend()
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in
            guard let self, self.paused, let source = self.source else { return }
            self.paused = false
            source.resume()
        }
    }
}
