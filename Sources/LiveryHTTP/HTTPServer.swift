import Logging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An HTTP/1.1 server on BSD sockets, epoll and Dispatch.
///
/// Connections are non-blocking and event-driven: a few event-loop threads (one per core by default) each wait
/// on an epoll set of their connections and serve whichever are ready, with no thread per connection, so a slow
/// client never blocks another. Each loop also accepts on the listening socket (`EPOLLEXCLUSIVE`: a new connection
/// wakes one free loop, which serves it); async handlers run as Swift tasks. Requests are
/// parsed strictly per RFC 9112 with the limits of `Configuration`; every response carries `Content-Length`,
/// `Date`, `Server` and `X-Request-Id`, and one log line is written per request (method, raw path without query,
/// status, bytes, duration; in the metadata `request.id` and the same facts as fields: `http.method`, `http.path`
/// (when the head was read), `http.route` (the matched pattern, or `unmatched`), `http.status`,
/// `http.response_bytes` and `http.duration_ms` (numbers); never header values or the query).
///
/// Lifecycle: `start()` binds and begins accepting; `shutdown(drainTimeout:)` stops accepting, lets in-flight
/// requests finish, closes idle connections and returns once every connection is closed. `waitUntilStopped()`
/// returns at the same moment. A server starts at most once, and once started it runs until shut down, even if
/// no reference to it remains.
public final class HTTPServer: Sendable {
    /// The route of a request that matched none (404, 405, refused before routing), in request log lines.
    public static let unmatchedRoute = "unmatched"

    private enum State {
        case created
        case running(Listener, [EventLoop])
        case stopping([EventLoop], deadline: UInt64)
        case stopped
    }

    private let context: ServerContext
    private let state = Mutex<State>(.created)

    /// - Parameters:
    ///   - configuration: limits, timeouts and the listen address; validated by `start()`.
    ///   - routing: chooses the route (handler, body limit, head check) for each request, usually `router.freeze()`.
    ///   - logger: receives the per-request lines and server events; the server never builds its own.
    public init(configuration: Configuration = Configuration(), routing: some HTTPRouting, logger: Logger) {
        context = ServerContext(configuration: configuration, routing: routing, logger: logger)
    }

    /// A server answering with `router`'s routes (frozen now; later registrations are not seen).
    public convenience init(configuration: Configuration = Configuration(), router: Router, logger: Logger) {
        self.init(configuration: configuration, routing: router.freeze(), logger: logger)
    }

    /// The configuration the server was created with.
    public var configuration: Configuration { context.configuration }

    /// Binds, listens and starts accepting connections.
    ///
    /// - Returns: the bound address; with port 0 it carries the port the kernel chose.
    /// - Throws: `HTTPServerError` if the configuration is invalid, the address does not resolve or is in use,
    ///   or the server was already started.
    /// The process ignores `SIGPIPE` from then on: `sendfile` has no `MSG_NOSIGNAL`, and a client closing
    /// mid-file must cost a connection, not the process.
    @discardableResult
    public func start() throws(HTTPServerError) -> SocketAddress {
        try context.configuration.validate()
        try reloadTLS()
        Syscall.ignoreSignal(SIGPIPE)
        if !DescriptorReserve.shared.isReleased && !DescriptorReserve.shared.fill() {
            let count = DescriptorReserve.shared.count
            context.logger.warning(
                "cannot hold \(count) file descriptors in reserve: the open-file limit is nearly reached")
        }
        var loops: [EventLoop] = []
        let cpus = context.configuration.pinsEventLoops ? EventLoop.allowedCPUs() : []
        for index in 0..<context.configuration.eventLoopCount {
            let cpu = cpus.isEmpty ? nil : cpus[index % cpus.count]
            loops.append(try EventLoop(index: index, context: context, cpu: cpu))
        }
        let listener = try state.withLock { state throws(HTTPServerError) -> Listener in
            guard case .created = state else { throw .alreadyStarted }
            let listener = try Listener(configuration: context.configuration, loops: loops, context: context)
            state = .running(listener, loops)
            return listener
        }
        for loop in loops { loop.start() }
        listener.start()
        context.logger.info(
            "listening on \(listener.address)",
            metadata: ["http.host": "\(listener.address.host)", "http.port": "\(listener.address.port)"])
        return listener.address
    }

    /// Reads the TLS certificate chain and key again (after a renewal, on SIGHUP): connections accepted from now
    /// on use them, connections already open keep the ones they started with, none is dropped. On failure the
    /// current ones stay and the error names the file. Does nothing without TLS.
    public func reloadTLS() throws(HTTPServerError) {
        guard let tls = context.configuration.tls else { return }
        let loaded: TLSContext
        do {
            loaded = try TLSContext(tls)
        } catch {
            throw .tls(error)
        }
        context.tls.withLock { $0 = loaded }
    }

    /// The bound address while the server runs, nil before `start()` and after shutdown.
    public var localAddress: SocketAddress? {
        state.withLock { state in
            if case .running(let listener, _) = state { return listener.address }
            return nil
        }
    }

    /// Stops accepting, lets in-flight requests finish within `drainTimeout` (default:
    /// `configuration.drainTimeout`), closes idle keep-alive connections at once and returns when every
    /// connection is closed. Requests still running at the deadline have their connections closed.
    /// Calling it again, or on a server never started, returns once the server has stopped.
    public func shutdown(drainTimeout: Duration? = nil) async {
        beginShutdown(drainTimeout: drainTimeout)
        await waitUntilStopped()
    }

    /// Starts `shutdown` without waiting for it; safe to call from any thread, including a signal handler's
    /// Dispatch queue. Use `waitUntilStopped()` to wait. Called again during shutdown with a shorter timeout
    /// (such as `.zero` on a second signal), it moves the deadline earlier.
    public func beginShutdown(drainTimeout: Duration? = nil) {
        let timeout = drainTimeout ?? context.configuration.drainTimeout
        let deadline = Syscall.monotonicNanoseconds() &+ max(timeout, .zero).nanoseconds
        let previous = state.withLock { state -> State in
            let previous = state
            switch state {
            case .created: state = .stopped
            case .running(_, let loops): state = .stopping(loops, deadline: deadline)
            case .stopping(let loops, let current): state = .stopping(loops, deadline: min(current, deadline))
            case .stopped: break
            }
            return previous
        }
        switch previous {
        case .created:
            context.markStopped()
        case .stopping(let loops, let current) where deadline < current:
            for loop in loops { loop.execute { loop.beginDrain(deadline: deadline) } }
        case .running(let listener, let loops):
            context.draining.store(true, ordering: .releasing)
            listener.stop()
            context.logger.info("shutting down", metadata: ["http.drain_timeout": "\(timeout)"])
            context.onStopped { [self] in
                state.withLock { $0 = .stopped }
                for loop in loops { loop.stop() }
                context.logger.info("stopped")
            }
            for loop in loops { loop.execute { loop.beginDrain(deadline: deadline) } }
            // Accepted connections are counted before they reach a loop, so zero here means none are left.
            if context.openConnections.load(ordering: .acquiring) == 0 { context.markStopped() }
        case .stopping, .stopped:
            break
        }
    }

    /// Returns once the server has stopped (immediately if it never started and `shutdown` was called).
    public func waitUntilStopped() async {
        await context.waitUntilStopped()
    }
}
