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
    public static let unmatchedRoute = "unmatched"

    private struct RequestKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private struct RouteHandles: Sendable {
        let duration: CoreMetrics.Timer
        let bytes: CoreMetrics.Counter
    }

    private let factory: any MetricsFactory
    private let open: Meter
    private let accepted: CoreMetrics.Counter
    private let refused: CoreMetrics.Counter
    private let requests = Mutex<[RequestKey: CoreMetrics.Counter]>([:])
    private let routes = Mutex<[String: RouteHandles]>([:])

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
        let method: String
        switch event.method {
        case .other?: method = "other"
        case let known?: method = known.rawValue
        case nil: method = "none"
        }
        let key = RequestKey(method: method, route: route, status: event.status.code)
        let counter = requests.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: Self.requestsName,
                dimensions: [("method", method), ("route", route), ("status", String(event.status.code))],
                factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
        let handles = routes.withLock { handles in
            if let existing = handles[route] { return existing }
            let made = RouteHandles(
                duration: CoreMetrics.Timer(label: Self.durationName, dimensions: [("route", route)], factory: factory),
                bytes: CoreMetrics.Counter(label: Self.bytesName, dimensions: [("route", route)], factory: factory))
            handles[route] = made
            return made
        }
        handles.duration.recordNanoseconds(Self.nanoseconds(event.duration))
        handles.bytes.increment(by: Int64(event.bytesSent))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
