import CoreMetrics
import LiveryHTTP
import Synchronization

/// Turns the HTTP server's events into the `livery_http_*` series.
///
/// Runs on the event-loop threads for every request, so the handles of each (method, route, status) are made once
/// and then found with one dictionary lookup under a lock. Labels take bounded values only: the route is the
/// registered pattern (`unmatched` for 404, 405 and requests rejected before routing), never the raw path, and a
/// non-standard method is `other`, so no client can create new series at will.
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

    private let factory: any MetricsFactory
    private let open: Meter
    private let accepted: CoreMetrics.Counter
    private let refused: CoreMetrics.Counter
    /// Scanned linearly: a service has a few dozen (route, method, status) kinds at most, and comparing an `Int`, a
    /// byte and a route string that shares its storage with the router's is cheaper than hashing two strings.
    private let entries = Mutex<[Entry]>([])

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
        let entry = entries.withLock { entries in
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
        entry.requests.increment()
        entry.duration.recordNanoseconds(event.nanoseconds)
        entry.bytes.increment(by: Int64(event.bytesSent))
    }
}
