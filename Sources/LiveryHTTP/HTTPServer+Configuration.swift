import Foundation
import Logging

extension HTTPServer {
    /// Everything an `HTTPServer` can be tuned with. Each property states its default.
    public struct Configuration: Sendable {
        /// Address to listen on: `0.0.0.0` (all IPv4), `::` (all IPv6 and, dual-stack, IPv4), `127.0.0.1`, `::1`,
        /// or a host name (its first address). Default `0.0.0.0`.
        public var host: String = "0.0.0.0"
        /// TCP port; 0 binds a free port, reported by `start()`. Default 8080.
        public var port: Int = 8080
        /// Open connections above which new ones get a 503 and are closed. Default 16,384.
        public var maxConnections: Int = 16_384
        /// Time allowed to receive a complete request head, counted from the connection's opening for its first
        /// request and from the first byte of each later one. On expiry: 408 and close (slowloris defence).
        /// Default 10 s.
        public var headerTimeout: Duration = .seconds(10)
        /// Time a keep-alive connection may sit idle between requests, and the longest pause allowed while
        /// receiving a body or sending a response. On expiry: closed (408 if a body was being received).
        /// Default 60 s.
        public var idleTimeout: Duration = .seconds(60)
        /// After a final response on a closing connection, how long unread client bytes are drained so the close
        /// does not reset the connection before the client has read the response. Default 2 s.
        public var lingerTimeout: Duration = .seconds(2)
        /// How long `shutdown` lets in-flight requests finish before closing their connections. Default 10 s.
        public var drainTimeout: Duration = .seconds(10)
        /// Maximum bytes of request line plus header section, CRLFs included; above is a 431. Default 16 KiB.
        public var maxHeaderBytes: Int = 16 * 1024
        /// Maximum number of header field lines; above is a 431. Default 100.
        public var maxHeaderCount: Int = 100
        /// Body limit, in bytes, of routes that set none (and of 404/405 answers). Default 1 MiB.
        public var defaultBodyLimit: Int = 1 << 20
        /// Event-loop threads connections are spread over, each with its own epoll set and buffers.
        /// Default: one per core.
        public var eventLoopCount: Int = ProcessInfo.processInfo.activeProcessorCount
        /// Whether each event loop's thread is pinned to a CPU of its own (loop `i` to the `i`-th CPU the process
        /// may run on, wrapping around), and each new connection is served by the loop on the CPU that received
        /// its packets (`SO_INCOMING_CPU`) unless that loop already holds far more connections than the least busy
        /// one: a connection's packets, its loop and its data then stay on one CPU's caches. Default off (threads
        /// float; connections are shared by count).
        public var pinsEventLoops: Bool = false
        /// Nanoseconds a loop may spend in one round of work before it counts as stuck and is passed over when a
        /// new connection is handed out (`Listener.servingIndex`). Default `Listener.stuckAfter` (10 ms); tests of
        /// how connections are shared raise it, so a loop the machine's other work keeps off its core for a moment
        /// is not taken for one held by a handler.
        var stuckLoopAfter: UInt64 = Listener.stuckAfter
        /// Listen backlog (capped by the kernel's `net.core.somaxconn`). Default 4096.
        public var backlog: Int = 4096
        /// The `Server` header value; must be a valid field value. Default `Livery`.
        public var serverName: String = "Livery"
        /// Level of the one log line per request. Default `.info`.
        public var requestLogLevel: Logger.Level = .info
        /// Where request lines go without swift-log's per-line path (each event loop buffers its own; see
        /// `RequestLog`), for a logger whose handler has no metadata of its own; its level should be
        /// `requestLogLevel`. Default nil: each line through the server's logger.
        public var requestLog: RequestLog?
        /// Whether a valid incoming `X-Request-Id` (1-64 characters of `A-Z a-z 0-9 . _ : -`) is reused instead of
        /// generating one. Default true.
        public var acceptsRequestID: Bool = true
        /// Receives per-request and per-connection events. Default none.
        public var observer: (any HTTPServerObserver)?
        /// Where the files of `.immutableFile` bodies stay open between responses; pass one to invalidate its
        /// paths when the files are replaced or removed. Default: a cache of the server's own, with
        /// `OpenFileCache`'s defaults (1,024 files, checked at most once a second).
        public var openFiles: OpenFileCache?
        /// Serve HTTPS with this certificate chain and key (read by `start()`, again by `reloadTLS()`); nil for
        /// plain HTTP. TLS 1.2 minimum, ALPN `http/1.1`, no renegotiation. Default nil.
        public var tls: TLSConfiguration?
        /// Where asynchronous handlers run (`Task(executorPreference:)`): nil, the default, for Swift's global
        /// concurrent executor. An executor of their own keeps a server's handlers answering while other work in
        /// the process (a test run sharing the pool, say) holds every thread of the pool.
        public var handlerExecutor: (any TaskExecutor)?

        public init() {}

        /// A configuration with the given host and port and every other value at its default.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        func validate() throws(HTTPServerError) {
            guard maxConnections > 0 else { throw .invalidConfiguration("maxConnections must be positive") }
            guard maxHeaderBytes >= 256 else { throw .invalidConfiguration("maxHeaderBytes must be at least 256") }
            guard maxHeaderCount > 0 else { throw .invalidConfiguration("maxHeaderCount must be positive") }
            guard defaultBodyLimit >= 0 else { throw .invalidConfiguration("defaultBodyLimit must not be negative") }
            guard (1...64).contains(eventLoopCount) else {
                throw .invalidConfiguration("eventLoopCount must be between 1 and 64")
            }
            guard backlog > 0 else { throw .invalidConfiguration("backlog must be positive") }
            for (name, value) in [
                ("headerTimeout", headerTimeout), ("idleTimeout", idleTimeout), ("lingerTimeout", lingerTimeout)
            ] where value <= .zero {
                throw .invalidConfiguration("\(name) must be positive")
            }
            guard drainTimeout >= .zero else { throw .invalidConfiguration("drainTimeout must not be negative") }
            guard HTTPGrammar.isValidFieldValue(serverName), !serverName.isEmpty else {
                throw .invalidConfiguration("serverName must be a valid header value")
            }
        }
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at `UInt64.max` (for deadlines on the monotonic clock).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000)).partialValue
    }
}
