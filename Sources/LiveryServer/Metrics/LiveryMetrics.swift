import CoreMetrics
import Foundation
import LiveryHTTP
import Prometheus
import SkinModel
import SkinServing

/// The process's metrics: a Prometheus registry fed through swift-metrics, and the `GET /metrics` route.
///
/// `livery serve` bootstraps `MetricsSystem` with `factory`, so every swift-metrics counter in the process (client
/// answers, package builds, admin changes) lands in `registry`. Everything is created through swift-metrics, never
/// on the registry directly: the registry refuses one name with two different help texts. The one exception is
/// `livery_http_request_duration_seconds`: `httpObserver` keeps those histograms itself (`RouteDurations`, the same
/// buckets, added a batch at a time rather than one registry `record` per request) and `/metrics` appends them to
/// the registry's series, written as the registry writes a histogram. The `# HELP` and
/// `# TYPE` lines come from one table keyed by series name (`MetricDescriptions`), applied when `/metrics` is
/// rendered, so `promtool check metrics` accepts the exposition.
///
/// Series (all names fixed; every label takes a bounded set of values):
///
/// | name | type | labels |
/// |---|---|---|
/// | `livery_http_requests_total` | counter | `method` (`other` for non-standard), `route` (pattern, `unmatched`), `status` |
/// | `livery_http_request_duration_seconds` | histogram | `route` |
/// | `livery_http_response_bytes_total` | counter | `route` (head plus body bytes) |
/// | `livery_http_open_connections` | gauge | |
/// | `livery_http_connections_total`, `livery_http_connections_refused_total` | counter | |
/// | `livery_package_builds_total`, `livery_package_build_failures_total` | counter | |
/// | `livery_package_build_duration_seconds` | histogram | |
/// | `livery_package_build_bytes_total` | counter | |
/// | `livery_package_cache_hits_total`, `livery_package_cache_misses_total` | counter | |
/// | `livery_skin_answers_total` | counter | `skin` (empty when skins are off) |
/// | `livery_skin_up_to_date_total` | counter | |
/// | `livery_admin_changes_total` | counter | `action` |
/// | `livery_guard_trips_total` | counter | `action` |
/// | `livery_reports_expired_total` | counter | |
/// | `livery_notify_failures_total` | counter | |
/// | `process_start_time_seconds` | gauge | |
public final class LiveryMetrics: Sendable {
    /// Where the series live; `/metrics` prints it.
    public let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory writing into `registry`.
    public let factory: PrometheusMetricsFactory
    /// The observer to give `HTTPServer.Configuration.observer` for the request and connection series.
    public let httpObserver: HTTPMetricsObserver

    /// The name of the process start time gauge (seconds since 1970, the Prometheus convention).
    public static let processStartTimeName = "process_start_time_seconds"

    /// Creates the registry and the series that exist from the start (at zero), and records the start time.
    ///
    /// - Parameter startTime: when the process started. Default now.
    public init(startTime: Date = Date()) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        factory.durationHistogramBuckets[PackageCacheMetrics.buildDurationName] = [
            .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60)
        ]
        self.registry = registry
        self.factory = factory
        // The request durations are histograms the observer keeps (added a batch at a time), with the same buckets.
        self.httpObserver = HTTPMetricsObserver(factory: factory, durationBuckets: Self.durationBuckets)
        CoreMetrics.Gauge(label: Self.processStartTimeName, factory: factory).record(startTime.timeIntervalSince1970)
        // Created now so dashboards see zeros rather than missing series before the first event.
        _ = PackageCacheMetrics(factory: factory)
        AdminChangeCounter(factory: factory).declare(AdminChangeCounter.knownActions)
        CoreMetrics.Counter(label: ClientMetrics.upToDateName, factory: factory).increment(by: 0)
        for action in [ReleaseGuard.Action.pause, .rollback] {
            CoreMetrics.Counter(
                label: Changes.guardTripsMetric, dimensions: [("action", action.rawValue)], factory: factory
            ).increment(by: 0)
        }
        CoreMetrics.Counter(label: GuardNotifier.failuresMetric, factory: factory).increment(by: 0)
    }

    /// The buckets of every duration histogram but the package builds'.
    static let durationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10)
    ]

    /// Every series in the Prometheus text format as rendered, before `MetricDescriptions` annotates it: the
    /// registry's, then the request durations the HTTP observer keeps (pending counts flushed first).
    func series() -> [UInt8] {
        httpObserver.flush()
        var series = registry.emitToBuffer()
        httpObserver.renderDurations(into: &series)
        return series
    }

    /// The Prometheus text exposition (format 0.0.4) of every series.
    public func exposition() -> HTTPResponse {
        let series = series()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(
            status: .ok, headers: headers, body: .bytes(MetricDescriptions.annotate(series)))
    }

    /// Adds `GET /metrics` to `router`.
    public func register(on router: Router) {
        router.on(.get, "/metrics", .sync { [self] _ in exposition() })
    }
}
