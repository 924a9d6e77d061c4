import CLiveryHTTP
import Foundation
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One thread running an epoll loop, and the connections that live on it, with buffers they all reuse.
///
/// Connections are spread over a few loops (one per core by default). Everything a connection does runs on its
/// loop's thread, so the loop's read buffer, output buffer, `Date` cache and request-id counter need no locking,
/// and an idle connection holds no buffer of its own. A ready socket is handled on the thread that saw it
/// ready, with no hop to another thread: each loop also accepts new connections on the server's listening socket
/// (see `Listener`) and serves them itself, or, when another loop that is not stuck holds fewer connections, hands
/// the new one to that loop once, so keep-alive connections opened in a burst are shared evenly rather than all
/// taken by the first loop woken. Work from elsewhere (an async handler's response, shutdown) is queued
/// with `execute` and wakes the loop through an eventfd. Timeouts are checked by one
/// periodic sweep per loop rather than a timer per connection.
///
/// Readiness is level-triggered, as with Dispatch read sources: a connection that stops reading removes its
/// interest in input instead of leaving data unread.
final class EventLoop: @unchecked Sendable {
    // Invariant: every mutable property not behind `tasks` (and the buffers' contents) is used only on the loop's
    // thread, after `start()`.

    struct Interest: Equatable {
        var read: Bool
        var write: Bool

        var mask: UInt32 {
            (read ? UInt32(LIVERY_EPOLLIN) : 0) | (write ? UInt32(LIVERY_EPOLLOUT) : 0)
        }
    }

    let index: Int
    let context: ServerContext
    /// This loop's replica of the server's routing (`HTTPRouting.replica()`).
    let routing: any HTTPRouting
    /// `routing` when it is a `FrozenRouter` with a route that answers views (`HTTPHandler.answeringViews(_:)`),
    /// which connections then ask first; nil otherwise.
    let viewRouter: FrozenRouter?
    /// The `Server` header line, in a buffer of this loop's own (every response retains it).
    let serverLine: [UInt8]
    /// The CPU the loop's thread is pinned to (`HTTPServer.Configuration.pinsEventLoops`), or nil when it floats.
    let cpu: Int32?
    /// Where every `recv` of this loop lands; parsed in place when a request arrives in one read.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Where responses are encoded during one round of processing, then sent with one `send`.
    let output = OutputBuffer(capacity: 64 * 1024)
    var dateCache = DateHeaderCache()
    var requestIDs: RequestIDGenerator
    /// Where this loop's request lines collect, with a `RequestLog` configured; nil for swift-log's path.
    let requestLines: RequestLog.Buffer?

    private let epollFD: Int32
    private let wakeFD: Int32
    private let tasks = Mutex<TaskQueue>(TaskQueue())

    private struct TaskQueue {
        var items: [@Sendable () -> Void] = []
        /// Set when the loop's thread has ended; later tasks are dropped rather than kept forever.
        var closed = false
    }
    /// Connections by descriptor, for dispatching readiness.
    private var byDescriptor: [HTTPConnection?] = []
    /// Connections in no particular order, for the sweep.
    private var connections: [HTTPConnection] = []
    private var drainDeadline: UInt64?
    /// The listener whose socket this loop watches (`startAccepting`), and that socket; -1 when not accepting.
    private var listener: Listener?
    private var listenerFD: Int32 = -1
    /// While accepting is paused for want of descriptors or socket memory, when it resumes.
    private var acceptResumesAt: UInt64?
    /// The loop's thread (`pthread_self`), 0 before it runs.
    private let thread = Atomic<UInt>(0)
    /// Connections this loop serves or has been handed and not yet opened: counted by the loop that accepts each
    /// one (`Listener`), uncounted by this loop when it closes it. Read by other loops to share new connections.
    let connectionCount = Atomic<Int>(0)
    /// When the loop's current round of work began (monotonic nanoseconds), or 0 while it waits in `epoll_wait`:
    /// a loop that has been busy for long (a handler holding its thread) is not handed new connections.
    let roundStart = Atomic<UInt64>(0)
    private var running = true
    /// Monotonic time read once per wake-up: deadlines and request start times need no finer precision, and
    /// this saves clock reads on the hot path.
    private(set) var now: UInt64 = Syscall.monotonicNanoseconds()
    /// Which wake-up this is, counting from 1 (0 before the first): what the loop handles between two waits in
    /// `epoll_wait` shares one turn, so a handler may make a check once per turn for all the requests read in it
    /// (`HTTPRequest.eventLoopTurn`). Only the loop's thread reads it.
    private(set) var turn: UInt64 = 0
    private let sweepInterval: UInt64

    static let readBufferSize = 64 * 1024
    private static let maxEvents = 256

    init(index: Int, context: ServerContext, cpu: Int32? = nil) throws(HTTPServerError) {
        self.index = index
        self.context = context
        self.routing = context.routing.replica()
        self.viewRouter = (routing as? FrozenRouter).flatMap { $0.hasViews ? $0 : nil }
        self.serverLine = context.serverLine.withUnsafeBufferPointer { Array($0) }
        self.cpu = cpu
        let epollFD = livery_epoll_create()
        guard epollFD >= 0 else { throw .socket(call: "epoll_create1", errno: errno) }
        let wakeFD = livery_eventfd()
        guard wakeFD >= 0 else {
            let code = errno
            Syscall.close(epollFD)
            throw .socket(call: "eventfd", errno: code)
        }
        guard livery_epoll_ctl(epollFD, Int32(LIVERY_EPOLL_CTL_ADD), wakeFD, UInt32(LIVERY_EPOLLIN)) == 0 else {
            let code = errno
            Syscall.close(epollFD)
            Syscall.close(wakeFD)
            throw .socket(call: "epoll_ctl", errno: code)
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
        self.requestIDs = RequestIDGenerator(seed: context.requestIDSeed, loopIndex: index)
        self.requestLines =
            context.logsRequests ? context.configuration.requestLog?.makeBuffer(level: context.requestLogLevel) : nil
        // A quarter of the shortest timeout, between 5 ms and 500 ms.
        let shortest = min(context.headerTimeout, context.idleTimeout, context.lingerTimeout)
        self.sweepInterval = min(max(shortest / 4, 5_000_000), 500_000_000)
    }

    deinit {
        readBuffer.deallocate()
        Syscall.close(epollFD)
        Syscall.close(wakeFD)
    }

    /// Starts the loop's thread.
    func start() {
        // Named from inside the thread: Foundation's `Thread.name` does not reach the kernel on Linux.
        Thread { [self] in
            livery_name_current_thread(Self.threadName(index))
            run()
        }.start()
    }

    /// Runs `task` on the loop's thread, soon. Safe from any thread.
    /// After the loop has stopped, tasks are dropped (a late async response for a connection already closed);
    /// returns whether `task` was queued.
    @discardableResult
    func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        let (queued, wasEmpty) = tasks.withLock { queue in
            guard !queue.closed else { return (false, false) }
            queue.items.append(task)
            return (true, queue.items.count == 1)
        }
        if wasEmpty { _ = livery_eventfd_signal(wakeFD) }
        return queued
    }

    /// A connection counted on this loop (`connectionCount`) has closed, or was never opened: uncounted here and in
    /// the server's open connections.
    func connectionClosed() {
        connectionCount.subtract(1, ordering: .relaxed)
        context.connectionClosed()
    }

    /// Whether the caller runs on this loop's thread.
    var isCurrentThread: Bool { thread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Starts accepting connections on `listener`'s socket, sharing it with the other loops (`EPOLLEXCLUSIVE`: a
    /// new connection wakes one of them). Call on the loop's thread.
    func startAccepting(_ listener: Listener) {
        guard !listener.isStopped else { return }
        self.listener = listener
        listenerFD = listener.fd
        watchListener()
    }

    /// Stops accepting on `listener`'s socket. Call on the loop's thread, before the socket is closed.
    func stopAccepting(_ listener: Listener) {
        guard self.listener === listener else { return }
        if acceptResumesAt == nil { _ = livery_epoll_ctl(epollFD, Int32(LIVERY_EPOLL_CTL_DEL), listenerFD, 0) }
        self.listener = nil
        listenerFD = -1
        acceptResumesAt = nil
    }

    /// Stops watching the listening socket for `nanoseconds` (out of descriptors: new connections wait in the
    /// backlog rather than making the loop spin on a socket that stays readable). Call on the loop's thread.
    func pauseAccepting(for nanoseconds: UInt64) {
        guard listener != nil, acceptResumesAt == nil else { return }
        _ = livery_epoll_ctl(epollFD, Int32(LIVERY_EPOLL_CTL_DEL), listenerFD, 0)
        acceptResumesAt = Syscall.monotonicNanoseconds() &+ nanoseconds
    }

    /// The process ran out of file descriptors: gives its reserve to the runtime (libdispatch ends the process when
    /// it cannot open one) and stops accepting until the reserve can be filled whole again (checked when accepting
    /// would resume, in `run`). Call on the loop's thread.
    func outOfDescriptors() {
        DescriptorReserve.shared.release()
        pauseAccepting(for: Listener.exhaustionPause)
    }

    private func watchListener() {
        let mask = UInt32(LIVERY_EPOLLIN) | UInt32(LIVERY_EPOLLEXCLUSIVE)
        if livery_epoll_ctl(epollFD, Int32(LIVERY_EPOLL_CTL_ADD), listenerFD, mask) != 0 {
            context.logger.warning(
                "epoll_ctl add of the listening socket failed: errno \(errno); loop \(index) does not accept")
        }
    }

    /// Ends the loop's thread after the current iteration; called once the server has stopped.
    func stop() {
        execute { [self] in running = false }
    }

    private func run() {
        let fds = UnsafeMutablePointer<Int32>.allocate(capacity: Self.maxEvents)
        let events = UnsafeMutablePointer<UInt32>.allocate(capacity: Self.maxEvents)
        defer {
            fds.deallocate()
            events.deallocate()
            tasks.withLock { queue in
                queue.closed = true
                queue.items = []
            }
        }
        thread.store(UInt(pthread_self()), ordering: .releasing)
        if let cpu, livery_pin_current_thread(cpu) != 0 {
            context.logger.warning("cannot pin event loop \(index) to CPU \(cpu): errno \(errno); its thread floats")
        }
        var nextSweep = Syscall.monotonicNanoseconds() &+ sweepInterval
        while running {
            let now = Syscall.monotonicNanoseconds()
            let wake = min(nextSweep, acceptResumesAt ?? .max)
            let timeout = wake > now ? Int32(min((wake - now) / 1_000_000 + 1, 1000)) : 0
            roundStart.store(0, ordering: .relaxed)
            let count = livery_epoll_wait(epollFD, fds, events, Int32(Self.maxEvents), timeout)
            self.now = Syscall.monotonicNanoseconds()
            turn &+= 1
            roundStart.store(self.now, ordering: .relaxed)
            if count < 0 {
                if errno == EINTR { continue }
                context.logger.critical("epoll_wait failed: errno \(errno); loop \(index) stops")
                return
            }
            for slot in 0..<Int(count) {
                let fd = fds[slot]
                let mask = events[slot]
                if fd == wakeFD {
                    runTasks()
                    continue
                }
                if fd == listenerFD, let listener {
                    listener.acceptReady(on: self)
                    continue
                }
                guard let connection = connection(for: fd) else { continue }
                // Error or hang-up in both directions (a reset, or the client's FIN after ours): nothing more
                // can be delivered, and epoll reports these even to a connection that stopped reading.
                if mask & (UInt32(LIVERY_EPOLLERR) | UInt32(LIVERY_EPOLLHUP)) != 0 {
                    connection.handleHangup()
                    continue
                }
                if mask & UInt32(LIVERY_EPOLLOUT) != 0 {
                    connection.handleWritable()
                }
                if mask & UInt32(LIVERY_EPOLLIN) != 0, self.connection(for: fd) === connection {
                    connection.handleReadable()
                }
            }
            if let resume = acceptResumesAt, self.now >= resume {
                if DescriptorReserve.shared.isReleased && !DescriptorReserve.shared.fill() {
                    // Still short of descriptors: the reserve stays with the runtime, and accepting waits longer.
                    acceptResumesAt = self.now &+ Listener.exhaustionPause
                } else {
                    acceptResumesAt = nil
                    watchListener()
                }
            }
            if self.now >= nextSweep {
                sweep(now: self.now)
                nextSweep = self.now &+ sweepInterval
            }
        }
    }

    private func runTasks() {
        _ = livery_eventfd_drain(wakeFD)
        let batch = tasks.withLock { queue in
            let batch = queue.items
            queue.items.removeAll(keepingCapacity: true)
            return batch
        }
        for task in batch { task() }
    }

    /// The kernel name of loop `index`'s thread, such as `livery-loop-0` (15 bytes at most).
    static func threadName(_ index: Int) -> String { "livery-loop-\(index)" }

    /// The CPU the calling thread runs on now, or -1.
    static func currentCPU() -> Int32 { livery_current_cpu() }

    /// The CPUs the process may run on, in increasing order (empty if they cannot be read).
    static func allowedCPUs() -> [Int32] {
        var cpus = [Int32](repeating: 0, count: 1024)
        let count = cpus.withUnsafeMutableBufferPointer { livery_allowed_cpus($0.baseAddress, Int32($0.count)) }
        return count > 0 ? Array(cpus.prefix(Int(count))) : []
    }

    @inline(__always)
    private func connection(for fd: Int32) -> HTTPConnection? {
        let slot = Int(fd)
        return slot < byDescriptor.count ? byDescriptor[slot] : nil
    }

    /// Adds a connection and starts watching it for `interest`. Returns false if epoll refused it.
    func register(_ connection: HTTPConnection, interest: Interest) -> Bool {
        guard livery_epoll_ctl(epollFD, Int32(LIVERY_EPOLL_CTL_ADD), connection.fd, interest.mask) == 0 else {
            context.logger.warning("epoll_ctl add failed: errno \(errno)")
            return false
        }
        let slot = Int(connection.fd)
        if slot >= byDescriptor.count {
            byDescriptor.append(
                contentsOf: repeatElement(nil, count: max(slot + 1 - byDescriptor.count, byDescriptor.count)))
        }
        byDescriptor[slot] = connection
        connection.loopSlot = connections.count
        connections.append(connection)
        return true
    }

    /// Changes what a registered connection waits for.
    func update(_ connection: HTTPConnection, interest: Interest) {
        if livery_epoll_ctl(epollFD, Int32(LIVERY_EPOLL_CTL_MOD), connection.fd, interest.mask) != 0 {
            context.logger.warning("epoll_ctl modify failed: errno \(errno)")
        }
    }

    /// Stops watching a connection and forgets it; call before closing its descriptor.
    func unregister(_ connection: HTTPConnection) {
        _ = livery_epoll_ctl(epollFD, Int32(LIVERY_EPOLL_CTL_DEL), connection.fd, 0)
        let fdSlot = Int(connection.fd)
        if fdSlot < byDescriptor.count, byDescriptor[fdSlot] === connection { byDescriptor[fdSlot] = nil }
        let slot = connection.loopSlot
        guard slot >= 0, slot < connections.count, connections[slot] === connection else { return }
        let last = connections.removeLast()
        if slot < connections.count {
            connections[slot] = last
            last.loopSlot = slot
        }
        connection.loopSlot = -1
    }

    /// Begins graceful shutdown on this loop: idle connections close now, busy ones after their response;
    /// whatever is still open at `deadline` is closed.
    func beginDrain(deadline: UInt64) {
        drainDeadline = min(drainDeadline ?? .max, deadline)
        for connection in connections { connection.drain() }
        sweep(now: now)
    }

    private func sweep(now: UInt64) {
        if let drainDeadline, now >= drainDeadline {
            for connection in connections { connection.forceClose() }
            return
        }
        var expired: [HTTPConnection] = []
        for connection in connections where connection.deadline <= now {
            expired.append(connection)
        }
        for connection in expired { connection.deadlineExpired() }
    }
}
