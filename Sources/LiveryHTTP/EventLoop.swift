import Dispatch

/// One serial queue and the connections that live on it, with buffers they all reuse.
///
/// Connections are spread over a few loops (one per core by default). Everything a connection does runs on its
/// loop's queue, so the loop's read buffer, output buffer, `Date` cache and request-id counter need no locking,
/// and an idle connection holds no buffer of its own. Timeouts are checked by one periodic sweep per loop rather
/// than a timer per connection.
final class EventLoop: @unchecked Sendable {
    // Invariant: every mutable property (and the buffers' contents) is used only on `queue`.

    let index: Int
    let queue: DispatchQueue
    let context: ServerContext
    /// Where every `recv` of this loop lands; parsed in place when a request arrives in one read.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Where responses are encoded during one round of processing, then sent with one `send`.
    let output = OutputBuffer(capacity: 64 * 1024)
    var dateCache = DateHeaderCache()
    var requestIDs: RequestIDGenerator

    private var connections: [HTTPConnection] = []
    private var sweepTimer: DispatchSourceTimer?
    private var drainDeadline: UInt64?

    static let readBufferSize = 64 * 1024

    init(index: Int, context: ServerContext) {
        self.index = index
        self.context = context
        self.queue = DispatchQueue(label: "livery.http.loop.\(index)")
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
        self.requestIDs = RequestIDGenerator(seed: context.requestIDSeed, loopIndex: index)
    }

    deinit { readBuffer.deallocate() }

    /// Starts the timeout sweep. The interval is a quarter of the shortest timeout, between 5 ms and 500 ms.
    func start() {
        let shortest = min(context.headerTimeout, context.idleTimeout, context.lingerTimeout)
        let interval = min(max(shortest / 4, 5_000_000), 500_000_000)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)),
            leeway: .nanoseconds(Int(interval / 4)))
        timer.setEventHandler { [unowned self] in sweep() }
        sweepTimer = timer
        timer.activate()
    }

    /// Stops the sweep; called on `queue` once the server has stopped.
    func stop() {
        sweepTimer?.cancel()
        sweepTimer = nil
    }

    func register(_ connection: HTTPConnection) {
        connection.loopSlot = connections.count
        connections.append(connection)
    }

    func unregister(_ connection: HTTPConnection) {
        let slot = connection.loopSlot
        guard slot >= 0, slot < connections.count, connections[slot] === connection else { return }
        let last = connections.removeLast()
        if slot < connections.count {
            connections[slot] = last
            last.loopSlot = slot
        }
        connection.loopSlot = -1
    }

    var connectionCount: Int { connections.count }

    /// Begins graceful shutdown on this loop: idle connections close now, busy ones after their response;
    /// whatever is still open at `deadline` is closed.
    func beginDrain(deadline: UInt64) {
        drainDeadline = min(drainDeadline ?? .max, deadline)
        for connection in connections { connection.drain() }
        sweep()
    }

    private func sweep() {
        let now = Syscall.monotonicNanoseconds()
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
