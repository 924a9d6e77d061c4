import Foundation
import LiveryHTTP
import Logging
import MetricsTestKit
import Testing

@testable import LiveryServer

@Suite struct ClientMetricsTests {
    typealias F = Fixtures

    static func api(metrics: TestMetrics) throws -> ClientAPI {
        let cache = try PackageCache(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("livery-metrics-\(UUID().uuidString)").path,
            logger: ClientAPIHarness.quiet)
        let api = ClientAPI(cache: cache, logger: ClientAPIHarness.quiet, clock: { F.t0 }, metricsFactory: metrics)
        api.publish(CatalogState(catalog: F.catalog(F.skin("xmas")), origins: [:]))
        return api
    }

    @Test func countsAnswersBySkinAndClientsAlreadyUpToDate() throws {
        let metrics = TestMetrics()
        let api = try Self.api(metrics: metrics)
        let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.0"
        let first = api.skin(HTTPRequest(method: .get, target: poll))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(first.bodyBytes)) as? [String: Any])
        let sign = try #require(body["skinSign"] as? String)
        _ = api.skin(HTTPRequest(method: .get, target: poll + "&sign=\(sign)"))
        _ = api.skin(HTTPRequest(method: .get, target: poll + "&sign=old"))
        _ = api.skin(HTTPRequest(method: .get, target: "/api/v1/skin?app=other&platform=ios&appVersion=7.0"))
        #expect(metrics.counterTotal(label: "livery_skin_answers_total", dimensions: [("skin", "xmas")]) == 3)
        #expect(metrics.counterTotal(label: "livery_skin_answers_total", dimensions: [("skin", "")]) == 1)
        #expect(metrics.counterTotal(label: "livery_skin_up_to_date_total") == 1)
    }

    @Test func repeatedAnswersAreIdentical() throws {
        let api = try Self.api(metrics: TestMetrics())
        let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.0"
        let a = api.skin(HTTPRequest(method: .get, target: poll))
        let b = api.skin(HTTPRequest(method: .get, target: poll + "&deviceId=other"))
        #expect(a.bodyBytes == b.bodyBytes && !a.bodyBytes.isEmpty)
        #expect(a.headers["ETag"] == b.headers["ETag"])
    }
}

extension HTTPResponse {
    var bodyBytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }
}
