import CoreMetrics
import LiveryHTTP
import Synchronization

/// Turns the HTTP server's events into the `livery_http_*` series.
///
/// Runs on the event-loop threads for every request, so a request touches only memory its own loop writes: each
/// loop counts its requests, bytes and durations in a `Shard` of its own, and adds them to the shared series in
/// batches, when `batchSize` requests are pending and before every scrape (`flush()`, which
/// `LiveryMetrics.exposition()` calls), so a scrape sees every request completed before it. The series' handles of
/// each (method, route, status) are made once. Labels take bounded values only: the route is the registered
/// pattern (`unmatched` for 404, 405 and requests rejected before routing), never the raw path, and a non-standard
/// method is `other`, so no client can create new series at will.
public final class HTTPMetricsObserver: HTTPServerObserver {
    /// Requests by `method`, `route` and `status`.
    public static let requestsName = "livery_http_requests_total"
    /// Time from complete head to response handed to the connection, by `route`.
    public static let durationName = "livery_http_request_duration_seconds"
    /// Response bytes (head plus body) by `route`.
    public static let bytesName = "livery_http_response_bytes_total"
    /// Connections open now.
    public static let openConnectionsName = "livery_http_open_connections"
    /// Connections accepted.
    public static let connectionsName = "livery_http_connections_total"
    /// Connections refused with 503 at the connection limit.
    public static let refusedName = "livery_http_connections_refused_total"
    /// The `route` label of requests that matched no route.
    public static let unmatchedRoute = HTTPServer.unmatchedRoute

    /// The `method` label: the standard methods, `other`, or `none` (rejected before the method was known).
    private enum MethodLabel: String, Sendable {
        case get = "GET", head = "HEAD", post = "POST", put = "PUT", delete = "DELETE", options = "OPTIONS"
        case patch = "PATCH", other, none

        init(_ method: HTTPMethod?) {
            switch method {
            case .get?: self = .get
            case .head?: self = .head
            case .post?: self = .post
            case .put?: self = .put
            case .delete?: self = .delete
            case .options?: self = .options
            case .patch?: self = .patch
            case .other?: self = .other
            case nil: self = .none
            }
        }
    }

    /// The series one kind of request feeds. Requests of one route share the duration and bytes handles (the
    /// factory returns the same series for the same labels). A class, so a request takes one reference to it from
    /// the lock rather than retaining its route and three handles (shared by every event loop) one by one.
    private final class Entry: Sendable {
        let status: Int
        let method: MethodLabel
        let route: String
        let requests: CoreMetrics.Counter
        /// Where durations go: the route's histogram when the observer keeps its own, else the factory's timer.
        let duration: Durations
        let bytes: CoreMetrics.Counter

        enum Durations: Sendable {
            case timer(CoreMetrics.Timer)
            case histogram(RouteDurations)
        }

        init(
            status: Int, method: MethodLabel, route: String, requests: CoreMetrics.Counter, duration: Durations,
            bytes: CoreMetrics.Counter
        ) {
            self.status = status
            self.method = method
            self.route = route
            self.requests = requests
            self.duration = duration
            self.bytes = bytes
        }
    }

    /// What one kind of request has added up on one loop since the last flush.
    private struct Pending {
        let entry: Entry
        /// The entry's kind, kept beside it so a request is matched without touching the entry (shared by every
        /// loop, so retaining it would bounce its reference count between their caches).
        let status: Int
        let method: MethodLabel
        let route: String
        var requests: Int64 = 0
        var bytes: Int64 = 0
        /// Each duration, for a factory's timer.
        var nanoseconds: [Int64] = []
        /// Durations counted into the route histogram's buckets (`RouteDurations.Counts`), when it has one.
        var counts: RouteDurations.Counts?

        init(entry: Entry, route: String) {
            self.entry = entry
            status = entry.status
            method = entry.method
            self.route = route
            if case .histogram(let histogram) = entry.duration { counts = histogram.emptyCounts }
        }

        @inline(__always)
        mutating func count(bytes: Int64, nanoseconds: Int64) {
            requests &+= 1
            self.bytes &+= bytes
            if counts != nil {
                counts!.add(nanoseconds)
            } else {
                self.nanoseconds.append(nanoseconds)
            }
        }

        /// Nothing counted, the kind kept.
        mutating func reset() {
            requests = 0
            bytes = 0
            nanoseconds = []
            counts?.reset()
        }
    }

    private struct ShardState {
        /// The kinds of request this loop has seen, scanned linearly (as `entries`).
        var pending: [Pending] = []
        /// Requests counted since the last flush.
        var count = 0

        /// The position of the kind in `pending`, or nil when this loop has not seen it yet.
        @inline(__always)
        func index(status: Int, method: MethodLabel, route: String) -> Int? {
            // Lengths first: another route of the same status and method is told apart without comparing bytes.
            let length = route.utf8.count
            for index in pending.indices
            where pending[index].status == status && pending[index].method == method
                && pending[index].route.utf8.count == length && pending[index].route == route
            {
                return index
            }
            return nil
        }

        /// Counts one request of the kind at `index`; returns whether a batch is due for the shared series
        /// (`batchSize` requests pending), which `take()` then hands over.
        @inline(__always)
        mutating func record(at index: Int, bytes: Int64, nanoseconds: Int64) -> Bool {
            pending[index].count(bytes: bytes, nanoseconds: nanoseconds)
            count &+= 1
            return count >= HTTPMetricsObserver.batchSize
        }

        /// Takes what is pending, leaving the kinds in place with nothing counted.
        mutating func take() -> [Pending] {
            guard count > 0 else { return [] }
            count = 0
            var taken: [Pending] = []
            for index in pending.indices where pending[index].requests > 0 {
                taken.append(pending[index])
                pending[index].reset()
            }
            return taken
        }
    }

    /// One event loop's counts. Its lock is taken by that loop for every request and by a flush, so it is nearly
    /// always free, and the padding keeps two loops' shards off one cache line.
    private final class Shard: Sendable {
        let state = Mutex<ShardState>(ShardState())
        private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// Requests a loop counts before adding them to the shared series itself.
    static let batchSize = 256

    private let factory: any MetricsFactory
    /// The upper bounds of the duration buckets when the observer keeps its own histograms (nil: the factory's
    /// timers); and those histograms, one per route, in the order routes first completed a request.
    private let durationBounds: [Duration]?
    private let histograms = Mutex<[RouteDurations]>([])
    private let open: Meter
    private let accepted: CoreMetrics.Counter
    private let refused: CoreMetrics.Counter
    /// Scanned linearly: a service has a few dozen (route, method, status) kinds at most, and comparing an `Int`, a
    /// byte and a route string that shares its storage with the router's is cheaper than hashing two strings.
    private let entries = Mutex<[Entry]>([])
    /// One per event loop (`HTTPRequestEvent.loopIndex`; a server has at most 64).
    private let shards: [Shard] = (0..<64).map { _ in Shard() }

    /// - Parameters:
    ///   - factory: where the counters, the gauge and (without `durationBuckets`) the duration timers go.
    ///   - durationBuckets: the upper bounds of the duration histogram's buckets, ascending, when the observer keeps
    ///     the histograms itself: a loop's batch of durations is then added bucket by bucket, not one `record` per
    ///     request, and `renderDurations(into:)` writes them in the Prometheus text format (the same lines
    ///     swift-prometheus's histogram writes for the same observations). Without it, each duration is recorded
    ///     into the factory's timer for the route.
    public init(factory: any MetricsFactory, durationBuckets: [Duration]? = nil) {
        self.factory = factory
        self.durationBounds = durationBuckets
        open = Meter(label: Self.openConnectionsName, factory: factory)
        open.set(0)
        accepted = CoreMetrics.Counter(label: Self.connectionsName, factory: factory)
        refused = CoreMetrics.Counter(label: Self.refusedName, factory: factory)
        accepted.increment(by: 0)
        refused.increment(by: 0)
    }

    public func connectionOpened(_ event: HTTPConnectionEvent) {
        open.increment()
        accepted.increment()
        if event.refused { refused.increment() }
    }

    public func connectionClosed(_ event: HTTPConnectionEvent) {
        open.decrement()
    }

    public func requestCompleted(_ event: HTTPRequestEvent) {
        let route = event.routePattern ?? Self.unmatchedRoute
        let method = MethodLabel(event.method)
        let status = event.status.code
        let bytes = Int64(event.bytesSent)
        let nanoseconds = event.nanoseconds
        let shard = shards[min(max(event.loopIndex, 0), shards.count - 1)]
        // nil: a kind this loop has not seen yet; otherwise whether a batch is due (once in `batchSize` requests):
        // the common request takes the lock once and hands nothing over.
        var due = shard.state.withLock { state -> Bool? in
            guard let index = state.index(status: status, method: method, route: route) else { return nil }
            return state.record(at: index, bytes: bytes, nanoseconds: nanoseconds)
        }
        if due == nil {
            // Only this loop records into its shard, so the kind is still missing when the lock is taken again.
            let entry = entry(status: status, method: method, route: route)
            due = shard.state.withLock { state in
                state.pending.append(Pending(entry: entry, route: route))
                return state.record(at: state.pending.count - 1, bytes: bytes, nanoseconds: nanoseconds)
            }
        }
        if due == true { add(shard.state.withLock { $0.take() }) }
    }

    /// Adds every loop's pending counts to the shared series: call before reading them (a scrape).
    public func flush() {
        for shard in shards { add(shard.state.withLock { $0.take() }) }
    }

    private func add(_ batch: [Pending]) {
        for pending in batch {
            pending.entry.requests.increment(by: pending.requests)
            pending.entry.bytes.increment(by: pending.bytes)
            switch pending.entry.duration {
            case .timer(let timer):
                for nanoseconds in pending.nanoseconds { timer.recordNanoseconds(nanoseconds) }
            case .histogram(let histogram):
                if let counts = pending.counts { histogram.add(counts) }
            }
        }
    }

    /// Writes the duration histograms the observer keeps (with `durationBuckets`) in the Prometheus text format:
    /// a `# TYPE` line, then each route's buckets, sum and count; nothing before the first request or without
    /// `durationBuckets`. Call `flush()` first so pending durations are in.
    public func renderDurations(into buffer: inout [UInt8]) {
        let histograms = self.histograms.withLock { $0 }
        guard !histograms.isEmpty else { return }
        buffer.append(contentsOf: "# TYPE \(Self.durationName) histogram\n".utf8)
        for histogram in histograms { histogram.render(name: Self.durationName, into: &buffer) }
    }

    /// The duration series of `route`: its histogram (made on first use) or the factory's timer.
    private func durations(route: String) -> Entry.Durations {
        guard let durationBounds else {
            return .timer(CoreMetrics.Timer(label: Self.durationName, dimensions: [("route", route)], factory: factory))
        }
        return .histogram(
            histograms.withLock { histograms in
                if let kept = histograms.first(where: { $0.route == route }) { return kept }
                let made = RouteDurations(route: route, bounds: durationBounds)
                histograms.append(made)
                return made
            })
    }

    /// The series of one kind of request, made on its first occurrence.
    private func entry(status: Int, method: MethodLabel, route: String) -> Entry {
        entries.withLock { entries in
            for entry in entries where entry.status == status && entry.method == method && entry.route == route {
                return entry
            }
            let made = Entry(
                status: status, method: method, route: route,
                requests: CoreMetrics.Counter(
                    label: Self.requestsName,
                    dimensions: [("method", method.rawValue), ("route", route), ("status", String(status))],
                    factory: factory),
                duration: durations(route: route),
                bytes: CoreMetrics.Counter(label: Self.bytesName, dimensions: [("route", route)], factory: factory))
            entries.append(made)
            return made
        }
    }
}
