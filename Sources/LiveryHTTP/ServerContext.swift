import Logging
import Synchronization

/// What every connection of one server shares: configuration turned into ready-to-use values, the routing,
/// the logger, the observer and the connection count. Immutable apart from atomics and a mutex.
final class ServerContext: Sendable {
    let configuration: HTTPServer.Configuration
    let routing: any HTTPRouting
    let logger: Logger
    let observer: (any HTTPServerObserver)?
    /// Checked before touching `observer`, which costs a retain and release of the existential on every access.
    let hasObserver: Bool
    let parserConfiguration: HTTPRequestParser.Configuration
    let serverLine: [UInt8]
    let requestLogLevel: Logger.Level
    /// Decided once at start: checking the level per request would cost a call into the log handler.
    let logsRequests: Bool
    let headerTimeout: UInt64
    let idleTimeout: UInt64
    let lingerTimeout: UInt64
    let requestIDSeed: UInt64
    let acceptsRequestID: Bool
    let defaultBodyLimit: Int

    /// Open connections, including ones being refused with 503.
    let openConnections = Atomic<Int>(0)
    /// Episodes of running out of descriptors, shared by the accept loop and file bodies.
    let descriptors: DescriptorExhaustion
    /// Episodes of `accept4` failing for want of kernel memory (`ENOBUFS`, `ENOMEM`).
    let socketMemory: DescriptorExhaustion
    /// Files of `.immutableFile` bodies kept open across responses.
    let openFiles: OpenFileCache
    /// Set once shutdown begins; responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)
    private let stopWaiters = Mutex<StopState>(StopState())
    /// The TLS context new connections use; nil without TLS. Set by `start()`, replaced by `reloadTLS()`.
    let tls = Mutex<TLSContext?>(nil)

    private struct StopState {
        var stopped = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var onStopped: [@Sendable () -> Void] = []
    }

    init(configuration: HTTPServer.Configuration, routing: any HTTPRouting, logger: Logger) {
        self.configuration = configuration
        self.routing = routing
        self.logger = logger
        self.observer = configuration.observer
        self.hasObserver = configuration.observer != nil
        self.parserConfiguration = HTTPRequestParser.Configuration(
            maxHeaderBytes: configuration.maxHeaderBytes, maxHeaderCount: configuration.maxHeaderCount)
        self.serverLine = Array("Server: \(configuration.serverName)\r\n".utf8)
        self.requestLogLevel = configuration.requestLogLevel
        self.logsRequests = logger.logLevel <= configuration.requestLogLevel
        self.headerTimeout = configuration.headerTimeout.nanoseconds
        self.idleTimeout = configuration.idleTimeout.nanoseconds
        self.lingerTimeout = configuration.lingerTimeout.nanoseconds
        self.requestIDSeed = UInt64.random(in: 0...UInt64.max)
        self.acceptsRequestID = configuration.acceptsRequestID
        self.defaultBodyLimit = configuration.defaultBodyLimit
        self.descriptors = DescriptorExhaustion(logger: logger)
        self.socketMemory = DescriptorExhaustion(logger: logger, resource: .memory)
        self.openFiles = configuration.openFiles ?? OpenFileCache()
    }

    /// Called by a connection once it is fully closed.
    func connectionClosed() {
        let remaining = openConnections.subtract(1, ordering: .acquiringAndReleasing).newValue
        if remaining == 0 && draining.load(ordering: .acquiring) { markStopped() }
    }

    /// Marks the server stopped and wakes every waiter; later calls do nothing.
    func markStopped() {
        let (waiters, callbacks): ([CheckedContinuation<Void, Never>], [@Sendable () -> Void]) =
            stopWaiters.withLock { state in
                guard !state.stopped else { return ([], []) }
                state.stopped = true
                defer {
                    state.waiters = []
                    state.onStopped = []
                }
                return (state.waiters, state.onStopped)
            }
        for callback in callbacks { callback() }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `callback` once the server has stopped (immediately if it already has).
    func onStopped(_ callback: @escaping @Sendable () -> Void) {
        let already = stopWaiters.withLock { state in
            if state.stopped { return true }
            state.onStopped.append(callback)
            return false
        }
        if already { callback() }
    }

    /// Returns once the server has stopped.
    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = stopWaiters.withLock { state in
                if state.stopped { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    var isStopped: Bool { stopWaiters.withLock { $0.stopped } }
}
