import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `GET /metrics` of the real binary: valid Prometheus text, and counters that move with the traffic.
@Suite(.serialized) struct MetricsEndpointTests {
    static func scrape(port: Int) throws -> PrometheusText {
        let response = try TestClient(port: port).get("/metrics")
        guard response.status == 200 else { throw E2EError(description: "/metrics answered \(response.status)") }
        guard response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8" else {
            throw E2EError(description: "/metrics content type \(response.header("Content-Type") ?? "none")")
        }
        return try PrometheusText(response.text)
    }

    @Test func countersMoveAsRequestsAreMade() async throws {
        let scratch = try AppFlowTests.liveSkins("christmas-2026")
        let skins = scratch.path
        try await blocking {
            let started = Date().timeIntervalSince1970
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"],
                environment: ["LIVERY_SKINS_DIR": skins])
            try livery.waitUntilReady()
            let before = try Self.scrape(port: livery.port)

            // Every family is declared and present from the start.
            for (family, type) in [
                ("livery_http_requests_total", "counter"), ("livery_http_request_duration_seconds", "histogram"),
                ("livery_http_response_bytes_total", "counter"), ("livery_http_open_connections", "gauge"),
                ("livery_package_builds_total", "counter"), ("livery_package_build_duration_seconds", "histogram"),
                ("livery_package_build_bytes_total", "counter"), ("livery_package_cache_hits_total", "counter"),
                ("livery_package_cache_misses_total", "counter"), ("livery_admin_changes_total", "counter"),
                ("livery_skin_up_to_date_total", "counter"), ("process_start_time_seconds", "gauge")
            ] {
                #expect(before.types[family] == type, "\(family)")
            }
            let startTime = try #require(try before.value("process_start_time_seconds"))
            #expect(startTime >= started - 1 && startTime <= Date().timeIntervalSince1970)
            // The catalog load packed the skin's six variants (some variants may share one archive).
            #expect(try before.count("livery_package_builds_total") >= 1)
            #expect(try before.count("livery_package_build_bytes_total") > 0)
            #expect(try before.count("livery_admin_changes_total", ["action": "release"]) == 0)

            // Traffic: three polls that get the skin, one for an app with none, one download, one 404.
            let client = try TestClient(port: livery.port)
            var packageURL = ""
            var packageSize = 0
            var sign = ""
            for device in ["a", "b", "c"] {
                let answer = try client.get("/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=\(device)")
                #expect(answer.status == 200)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
                packageURL = json["packageUrl"] as? String ?? ""
                packageSize = json["size"] as? Int ?? 0
                sign = json["skinSign"] as? String ?? ""
            }
            #expect(!packageURL.isEmpty)
            #expect(try client.get("/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&sign=\(sign)").status == 200)
            #expect(try client.get("/api/v1/skin?app=elsewhere&platform=ios&appVersion=1.0").status == 200)
            let download = try client.get(packageURL)
            #expect(download.status == 200 && download.body.count == packageSize)
            #expect(try client.get("/no/such/path").status == 404)

            let after = try Self.scrape(port: livery.port)
            func delta(_ name: String, _ labels: [String: String] = [:]) throws -> Double {
                try after.count(name, labels) - before.count(name, labels)
            }
            let poll = ["method": "GET", "route": "/api/v1/skin", "status": "200"]
            #expect(try delta("livery_http_requests_total", poll) == 5)
            #expect(try delta("livery_http_requests_total", ["route": "/api/v1/packages/:file", "status": "200"]) == 1)
            #expect(try delta("livery_http_requests_total", ["route": "unmatched", "status": "404"]) == 1)
            #expect(try delta("livery_http_requests_total", ["route": "/metrics", "status": "200"]) == 1)
            #expect(try delta("livery_http_request_duration_seconds_count", ["route": "/api/v1/skin"]) == 5)
            #expect(try delta("livery_http_request_duration_seconds_sum", ["route": "/api/v1/skin"]) > 0)
            #expect(
                try delta("livery_http_response_bytes_total", ["route": "/api/v1/packages/:file"]) > Double(packageSize)
            )
            #expect(try delta("livery_skin_answers_total", ["skin": "christmas-2026"]) == 4)
            #expect(try delta("livery_skin_answers_total", ["skin": ""]) == 1)
            #expect(try delta("livery_skin_up_to_date_total") == 1)
            #expect(try delta("livery_package_cache_hits_total") == 1)
            // This scrape's connection and the client's are open.
            #expect(try after.count("livery_http_open_connections") >= 2)
            #expect(try after.count("livery_http_connections_total") >= 3)
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    /// Prometheus's own linter accepts `/metrics` (a HELP and a TYPE line for every family, names and units as it
    /// wants them), also once traffic has made new label values appear.
    @Test func promtoolChecksTheExpositionAfterNewLabelValuesAppear() async throws {
        let promtool = "/usr/bin/promtool"
        try #require(FileManager.default.isExecutableFile(atPath: promtool), "install Debian's prometheus (promtool)")
        let scratch = try AppFlowTests.liveSkins("christmas-2026")
        let skins = scratch.path
        let livery = try await blocking {
            try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"],
                environment: ["LIVERY_SKINS_DIR": skins])
        }
        let expositions = try await blocking { () throws -> [String] in
            var expositions: [String] = []
            try livery.waitUntilReady()
            expositions.append(try TestClient(port: livery.port).get("/metrics").text)
            let client = try TestClient(port: livery.port)
            #expect(try client.get("/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0").status == 200)
            #expect(try client.get("/api/v1/skin?app=elsewhere&platform=ios&appVersion=1.0").status == 200)
            #expect(try client.get("/no/such/path").status == 404)
            #expect(try client.request("POST", "/healthz").status == 405)
            expositions.append(try TestClient(port: livery.port).get("/metrics").text)
            return expositions
        }
        #expect(try await livery.stop(signal: SIGTERM) == 0)
        #expect(expositions.last?.contains(#"route="unmatched",status="405""#) == true)
        for exposition in expositions {
            _ = try scratch.write("metrics.txt", Array(exposition.utf8))
            let checked = try await ExternalProcess.run(
                "/bin/sh", ["-c", "\(promtool) check metrics < \(scratch.path("metrics.txt"))"])
            #expect(checked.status == 0, "\(checked.transcript)")
            #expect(checked.standardOutput.isEmpty && checked.standardError.isEmpty, "\(checked.transcript)")
        }
    }

    @Test func separateMetricsPortKeepsMetricsOffTheMainPort() async throws {
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--metrics-port", "0", "--log-level", "warning"])
            #expect(livery.metricsPort > 0 && livery.metricsPort != livery.port)
            #expect(try TestClient(port: livery.port).get("/metrics").status == 404)
            #expect(try TestClient(port: livery.port).get("/healthz").status == 200)
            let metrics = try Self.scrape(port: livery.metricsPort)
            // The main port's requests are counted; the scrapes on the metrics port are not.
            #expect(try metrics.count("livery_http_requests_total", ["route": "/healthz", "status": "200"]) == 1)
            #expect(try metrics.count("livery_http_requests_total", ["route": "unmatched", "status": "404"]) == 1)
            #expect(try metrics.value("livery_http_requests_total", ["route": "/metrics"]) == nil)
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }
}
