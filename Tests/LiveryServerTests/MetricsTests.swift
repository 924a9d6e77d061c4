import CoreMetrics
import Foundation
import HTTPTestSupport
import LiveryHTTP
import Logging
import MetricsTestKit
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing

@testable import LiveryServer
@testable import SkinServing

/// The metrics of one process, in-process: the HTTP observer over real sockets, the package cache counters, and the
/// test parser's own strictness.
@Suite struct MetricsTests {
    /// A server with the given routes, `LiveryMetrics` as its observer and `/metrics`.
    final class Harness: Sendable {
        let metrics: LiveryMetrics
        let server: TestServer
        var port: Int { server.port }

        init() throws {
            let metrics = LiveryMetrics()
            self.metrics = metrics
            server = try TestServer.start(
                logger: LiveryHarness.quiet, configure: { $0.observer = metrics.httpObserver }
            ) { router in
                router.on(
                    .get, "/hello/:name",
                    .sync { request in
                        .json(.ok, Array(#"{"hello":"\#(request.pathParameters["name"] ?? "")"}"#.utf8))
                    })
                router.on(.get, "/fail", .sync { _ in .json(.internalServerError, Array("{}".utf8)) })
                metrics.register(on: router)
            }
        }

        func scrape() throws -> PrometheusText {
            let response = try TestClient(port: port).get("/metrics")
            return try PrometheusText(response.text)
        }
    }

    @Test func requestsAreCountedByPatternNeverByRawPath() async throws {
        let harness = try Harness()
        let port = harness.port
        let scraped = try await blocking {
            let client = try TestClient(port: port)
            for name in ["ann", "bob", "cy"] { _ = try client.get("/hello/\(name)") }
            _ = try client.get("/fail")
            for path in ["/a", "/b/c", "/d?e=f"] { _ = try client.get(path) }
            try client.send("BREW /hello/x HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try client.readResponse()
            return try harness.scrape()
        }
        await harness.server.stop()
        #expect(
            try scraped.count("livery_http_requests_total", ["method": "GET", "route": "/hello/:name", "status": "200"])
                == 3)
        #expect(try scraped.count("livery_http_requests_total", ["route": "/fail", "status": "500"]) == 1)
        #expect(
            try scraped.count("livery_http_requests_total", ["method": "GET", "route": "unmatched", "status": "404"])
                == 3)
        #expect(try scraped.count("livery_http_requests_total", ["method": "other", "route": "unmatched"]) == 1)
        #expect(try scraped.count("livery_http_request_duration_seconds_count", ["route": "/hello/:name"]) == 3)
        #expect(try scraped.count("livery_http_response_bytes_total", ["route": "/hello/:name"]) > 3 * 9)
        let labels = Set(scraped.samples.compactMap { $0.labels["route"] })
        #expect(!labels.contains("/hello/ann") && !labels.contains("/a"), "raw paths never become labels")
    }

    /// Each event loop counts its requests apart and adds them to the shared series in batches of
    /// `HTTPMetricsObserver.batchSize`, so a request touches only its own loop's memory; a flush (every scrape makes
    /// one) adds whatever is pending, so nothing completed before a scrape is missing from it.
    @Test func eachLoopCountsApartAndAScrapeSeesEveryRequest() throws {
        let test = TestMetrics()
        let observer = HTTPMetricsObserver(factory: test)
        func complete(_ count: Int, loop: Int) {
            for index in 0..<count {
                observer.requestCompleted(
                    HTTPRequestEvent(
                        method: .get, routePattern: "/p/:x", status: .ok, bytesSent: 10, nanoseconds: 1_000,
                        requestID: "r\(index)", loopIndex: loop))
            }
        }
        func total() -> Int64 { test.counterTotal(label: HTTPMetricsObserver.requestsName) }
        complete(HTTPMetricsObserver.batchSize - 1, loop: 0)
        complete(3, loop: 1)
        #expect(total() == 0, "pending on their loops")
        complete(1, loop: 0)
        #expect(total() == Int64(HTTPMetricsObserver.batchSize), "loop 0's full batch, and only it")
        observer.flush()
        #expect(total() == Int64(HTTPMetricsObserver.batchSize + 3))
        let timer = try test.expectTimer(HTTPMetricsObserver.durationName, [("route", "/p/:x")])
        #expect(timer.values.count == HTTPMetricsObserver.batchSize + 3)
        observer.flush()
        #expect(total() == Int64(HTTPMetricsObserver.batchSize + 3), "a second flush adds nothing")
    }

    /// Issue 23: the request durations are histograms the observer keeps, added a loop's batch at a time (not one
    /// swift-prometheus `record`, with its lock and a comparison per bucket, per request); `/metrics` shows them line
    /// for line as the swift-prometheus histogram a swift-metrics timer used to feed shows the same durations.
    @Test func keptDurationHistogramsReadAsTheSwiftPrometheusHistogramOfTheSameDurations() throws {
        let route = #"/p/:x "quoted" \ back"#
        // Every bucket bound, each side of it, zero, and above the last bound; more than a batch, on two loops.
        var durations: [Int64] = [0, 1, 10_000_000_001, 123_456_789_012]
        for bound in LiveryMetrics.durationBuckets {
            let nanoseconds = bound.components.seconds * 1_000_000_000 + bound.components.attoseconds / 1_000_000_000
            durations += [nanoseconds - 1, nanoseconds, nanoseconds + 1]
        }
        while durations.count < HTTPMetricsObserver.batchSize + 50 { durations.append(Int64(durations.count) * 7_919) }

        let reference = LiveryMetrics()
        let timer = CoreMetrics.Timer(
            label: HTTPMetricsObserver.durationName, dimensions: [("route", route)], factory: reference.factory)
        let observer = HTTPMetricsObserver(factory: TestMetrics(), durationBuckets: LiveryMetrics.durationBuckets)
        var kept: [UInt8] = []
        observer.renderDurations(into: &kept)
        #expect(kept.isEmpty, "no series before the first request")
        for (index, nanoseconds) in durations.enumerated() {
            timer.recordNanoseconds(nanoseconds)
            observer.requestCompleted(
                HTTPRequestEvent(
                    method: .get, routePattern: route, status: .ok, bytesSent: 10, nanoseconds: nanoseconds,
                    requestID: "r\(index)", loopIndex: index % 2))
        }
        observer.flush()
        observer.renderDurations(into: &kept)

        let expected = String(decoding: reference.registry.emitToBuffer(), as: UTF8.self)
            .split(separator: "\n").filter { $0.contains(HTTPMetricsObserver.durationName) }
        let lines = String(decoding: kept, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == LiveryMetrics.durationBuckets.count + 4)
        #expect(lines == expected)
    }

    @Test func openConnectionsFollowTheConnections() async throws {
        let harness = try Harness()
        let port = harness.port
        let (during, after) = try await blocking {
            let clients = try (0..<3).map { _ in try TestClient(port: port) }
            for client in clients { _ = try client.get("/hello/x") }
            let during = try harness.scrape().count("livery_http_open_connections")
            for client in clients { client.close() }
            // The server notices the closes on its own loops: poll until only the scrape's connection remains.
            var after = during
            for _ in 0..<200 {
                after = try harness.scrape().count("livery_http_open_connections")
                if after == 1 { break }
                usleep(10_000)
            }
            return (during, after)
        }
        await harness.server.stop()
        #expect(during == 4, "three clients and the scrape")
        #expect(after == 1)
    }

    @Test func adminChangesAppearUnderTheirAction() async throws {
        let harness = try Harness()
        let counter = AdminChangeCounter(factory: harness.metrics.factory)
        counter.increment(action: "release")
        counter.increment(action: "release")
        counter.increment(action: "killswitch")
        let port = harness.port
        let scraped = try await blocking { try PrometheusText(TestClient(port: port).get("/metrics").text) }
        await harness.server.stop()
        #expect(try scraped.count(AdminChangeCounter.name, ["action": "release"]) == 2)
        #expect(try scraped.count(AdminChangeCounter.name, ["action": "killswitch"]) == 1)
        #expect(try scraped.value(AdminChangeCounter.name, ["action": "rollback"]) == 0, "declared at zero")
    }

    @Test func packageCacheCountsMissesBuildsAndHits() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-cache")
        let root = scratch.path
        let source = DirectorySkinSource(path: LiveryHarness.repository.path + "/skins/christmas-2026")
        let skin = try #require(SkinValidator().validate(source).skin)
        let packager = try SkinPackager(skin: skin, source: source)
        let test = TestMetrics()
        let cache = try PackageCache(directory: root, logger: LiveryHarness.quiet, metricsFactory: test)
        let variant = PackageVariant.standard
        let sign = packager.sign(for: variant)
        async let first = cache.record(sign: sign, variant: variant, packager: packager)
        async let joined = cache.record(sign: sign, variant: variant, packager: packager)
        let (built, shared) = try await (first, joined)
        #expect(built.sha256 == shared.sha256)
        _ = try await cache.record(sign: sign, variant: variant, packager: packager)

        #expect(
            test.counterTotal(label: PackageCacheMetrics.missesName) == 2, "the build and the request that joined it")
        #expect(test.counterTotal(label: PackageCacheMetrics.hitsName) == 1)
        #expect(test.counterTotal(label: PackageCacheMetrics.buildsName) == 1)
        #expect(test.counterTotal(label: PackageCacheMetrics.buildBytesName) == Int64(built.size))
        #expect(test.counterTotal(label: PackageCacheMetrics.buildFailuresName) == 0)
        let timer = try test.expectTimer(PackageCacheMetrics.buildDurationName)
        #expect(timer.values.count == 1 && timer.values[0] > 0)

        // A new process (a new cache) finds the file on disk: a miss, but no build.
        let restarted = TestMetrics()
        let again = try PackageCache(directory: root, logger: LiveryHarness.quiet, metricsFactory: restarted)
        _ = try await again.record(sign: sign, variant: variant, packager: packager)
        #expect(restarted.counterTotal(label: PackageCacheMetrics.missesName) == 1)
        #expect(restarted.counterTotal(label: PackageCacheMetrics.buildsName) == 0)
    }

    @Test func processStartTimeIsTheGivenInstant() throws {
        let metrics = LiveryMetrics(startTime: Date(timeIntervalSince1970: 1_800_000_000.5))
        let text = try PrometheusText(String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self))
        #expect(try text.value(LiveryMetrics.processStartTimeName) == 1_800_000_000.5)
        #expect(text.types[LiveryMetrics.processStartTimeName] == "gauge")
    }

    /// Every family the process exports has one HELP line and its TYPE from `MetricDescriptions`' table, which
    /// agrees with the type the registry renders; label values that appear later change none of it.
    @Test func everyFamilyGetsItsHelpAndTypeFromTheOneTable() async throws {
        let harness = try Harness()
        let counter = AdminChangeCounter(factory: harness.metrics.factory)
        counter.increment(action: "release")
        ClientMetrics(factory: harness.metrics.factory).answerCounter("new-skin").increment()
        let port = harness.port
        let scraped = try await blocking { () throws -> String in
            let client = try TestClient(port: port)
            _ = try client.get("/hello/a")
            _ = try client.get("/nowhere")
            return try client.get("/metrics").text
        }
        await harness.server.stop()
        let raw = try PrometheusText(String(decoding: harness.metrics.series(), as: UTF8.self))
        let parsed = try PrometheusText(scraped)
        #expect(parsed.types == raw.types, "the table's types are the rendered ones")
        let lines = scraped.split(separator: "\n")
        for (family, type) in parsed.types {
            let description = try #require(MetricDescriptions.table[family], "\(family) is missing from the table")
            #expect(description.type == type, "\(family)")
            let helps = lines.filter { $0.hasPrefix("# HELP \(family) ") }
            #expect(helps == ["# HELP \(family) \(description.help)"], "\(family): \(helps)")
            let help = try #require(lines.firstIndex { $0.hasPrefix("# HELP \(family) ") })
            #expect(lines[help + 1] == "# TYPE \(family) \(type)", "HELP right before TYPE")
        }
        #expect(parsed.types[ClientMetrics.answersName] == "counter")
    }

    @Test func annotationEscapesAndKeepsEveryOtherLine() {
        let input = Array("# TYPE unknown_total counter\nunknown_total 1\n# HELP x old\n# a comment\n".utf8)
        let output = String(decoding: MetricDescriptions.annotate(input), as: UTF8.self)
        #expect(
            output
                == "# HELP unknown_total Livery series unknown_total.\n# TYPE unknown_total counter\nunknown_total 1\n# a comment\n"
        )
    }

    // MARK: - The test parser rejects what Prometheus would

    @Test(arguments: [
        "no_type_line 1\n",
        "# TYPE a counter\na{x=\"1\"} one\n",
        "# TYPE a counter\na{x=1} 1\n",
        "# TYPE a counter\na{x=\"\\q\"} 1\n",
        "# TYPE a counter\na{1x=\"v\"} 1\n",
        "# TYPE a counter\n# TYPE a counter\na 1\n",
        "# TYPE a counter\na 1\na 2\n",
        "# TYPE 9a counter\n9a 1\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 1\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 3\nh_sum 1\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\nh_sum 1\n"
    ])
    func testParserRejectsInvalidExpositions(_ text: String) {
        #expect(throws: TestClientError.self) { try PrometheusText(text) }
    }

    @Test func testParserReadsAValidExposition() throws {
        let text = try PrometheusText(
            "# HELP a Some help.\n# TYPE a counter\na{x=\"q\\\"uote\\\\\\n\",y=\"\"} 1.5e3\n# a comment\n"
                + "# TYPE h histogram\nh_bucket{le=\"0.5\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 2\nh_sum 0.75 1700000000000\n"
        )
        #expect(try text.value("a", ["x": "q\"uote\\\n"]) == 1500)
        #expect(try text.value("h_count") == 2)
    }
}
