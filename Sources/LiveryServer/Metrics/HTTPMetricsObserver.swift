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
        let duration: CoreMetrics.Timer
        let bytes: CoreMetrics.Counter

        init(
            status: Int, method: MethodLabel, route: String, requests: CoreMetrics.Counter,
            duration: CoreMetrics.Timer, bytes: CoreMetrics.Counter
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
        var requests: Int64 = 0
        var bytes: Int64 = 0
        var nanoseconds: [Int64] = []
    }

    private struct ShardState {
        /// The kinds of request this loop has seen, scanned linearly (as `entries`).
        var pending: [Pending] = []
        /// Requests counted since the last flush.
        var count = 0

        /// Counts one request of the kind at `index`; returns what is due for the shared series (nothing until
        /// `batchSize` requests are pending).
        mutating func record(at index: Int, bytes: Int64, nanoseconds: Int64) -> [Pending] {
            pending[index].requests += 1
            pending[index].bytes += bytes
            pending[index].nanoseconds.append(nanoseconds)
            count += 1
            return count >= HTTPMetricsObserver.batchSize ? take() : []
        }

        /// Takes what is pending, leaving the kinds in place with nothing counted.
        mutating func take() -> [Pending] {
            guard count > 0 else { return [] }
            count = 0
            var taken: [Pending] = []
            for index in pending.indices where pending[index].requests > 0 {
                taken.append(pending[index])
                pending[index].requests = 0
                pending[index].bytes = 0
                pending[index].nanoseconds = []
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
    private let open: Meter
    private let accepted: CoreMetrics.Counter
    private let refused: CoreMetrics.Counter
    /// Scanned linearly: a service has a few dozen (route, method, status) kinds at most, and comparing an `Int`, a
    /// byte and a route string that shares its storage with the router's is cheaper than hashing two strings.
    private let entries = Mutex<[Entry]>([])
    /// One per event loop (`HTTPRequestEvent.loopIndex`; a server has at most 64).
    private let shards: [Shard] = (0..<64).map { _ in Shard() }

    public init(factory: any MetricsFactory) {
        self.factory = factory
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
        let shard = shards[min(max(event.loopIndex, 0), shards.count - 1)]
        // nil: a kind this loop has not seen yet; otherwise what is due for the shared series (usually nothing).
        let due = shard.state.withLock { state -> [Pending]? in
            for index in state.pending.indices {
                let entry = state.pending[index].entry
                guard entry.status == status && entry.method == method && entry.route == route else { continue }
                return state.record(at: index, bytes: bytes, nanoseconds: event.nanoseconds)
            }
            return nil
        }
        if let due {
            add(due)
            return
        }
        // Only this loop records into its shard, so the kind is still missing when the lock is taken again.
        let entry = entry(status: status, method: method, route: route)
        add(
            shard.state.withLock { state in
                state.pending.append(Pending(entry: entry))
                return state.record(at: state.pending.count - 1, bytes: bytes, nanoseconds: event.nanoseconds)
            })
    }

    /// Adds every loop's pending counts to the shared series: call before reading them (a scrape).
    public func flush() {
        for shard in shards { add(shard.state.withLock { $0.take() }) }
    }

    private func add(_ batch: [Pending]) {
        for pending in batch {
            pending.entry.requests.increment(by: pending.requests)
            pending.entry.bytes.increment(by: pending.bytes)
            for nanoseconds in pending.nanoseconds { pending.entry.duration.recordNanoseconds(nanoseconds) }
        }
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
                duration: CoreMetrics.Timer(label: Self.durationName, dimensions: [("route", route)], factory: factory),
                bytes: CoreMetrics.Counter(label: Self.bytesName, dimensions: [("route", route)], factory: factory))
            entries.append(made)
            return made
        }
    }
}
