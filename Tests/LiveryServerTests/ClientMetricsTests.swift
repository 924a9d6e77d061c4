import Foundation
import LiveryHTTP
import Logging
import MetricsTestKit
import TestSupport
import Testing

@testable import LiveryServer
@testable import SkinServing

@Suite struct ClientMetricsTests {
    typealias F = Fixtures

    /// A client API whose package cache lives in `scratch`.
    static func api(metrics: TestMetrics, cacheIn scratch: ScratchDirectory) throws -> ClientAPI {
        let cache = try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet)
        let api = ClientAPI(cache: cache, logger: LiveryHarness.quiet, clock: { F.t0 }, metricsFactory: metrics)
        api.publish(F.catalog(F.skin("xmas")))
        return api
    }

    @Test func countsAnswersBySkinAndClientsAlreadyUpToDate() throws {
        let metrics = TestMetrics()
        let scratch = try ScratchDirectory(prefix: "livery-metrics")
        let api = try Self.api(metrics: metrics, cacheIn: scratch)
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

    /// Two releases sharing a package: each poll is counted for the skin its body names.
    @Test func answersSharingAPackageAreCountedForTheSkinTheBodyNames() throws {
        let metrics = TestMetrics()
        let scratch = try ScratchDirectory(prefix: "livery-metrics")
        let cache = try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet)
        let api = ClientAPI(cache: cache, logger: LiveryHarness.quiet, clock: { F.t0 }, metricsFactory: metrics)
        api.publish(F.catalog(F.skin("look-a", content: "same"), F.skin("look-b", app: "other", content: "same")))
        for (app, skin) in [("demo", "look-a"), ("other", "look-b"), ("other", "look-b")] {
            let answer = api.skin(
                HTTPRequest(method: .get, target: "/api/v1/skin?app=\(app)&platform=ios&appVersion=7.0"))
            let body = try #require(try JSONSerialization.jsonObject(with: Data(answer.bodyBytes)) as? [String: Any])
            #expect(body["skinId"] as? String == skin)
        }
        #expect(metrics.counterTotal(label: "livery_skin_answers_total", dimensions: [("skin", "look-a")]) == 1)
        #expect(metrics.counterTotal(label: "livery_skin_answers_total", dimensions: [("skin", "look-b")]) == 2)
    }

    @Test func nothingIsAnsweredBeforeTheFirstCatalogIsPublished() throws {
        let scratch = try ScratchDirectory(prefix: "livery-metrics")
        let cache = try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet)
        let api = ClientAPI(cache: cache, logger: LiveryHarness.quiet, clock: { F.t0 }, metricsFactory: TestMetrics())
        let early = api.skin(HTTPRequest(method: .get, target: "/api/v1/skin?app=demo&platform=ios&appVersion=7.0"))
        #expect(early.status == .serviceUnavailable)
        #expect(early.headers["Retry-After"] == "1" && early.headers["Cache-Control"] == "no-store")
        api.publish(.empty)
        let answered = api.skin(HTTPRequest(method: .get, target: "/api/v1/skin?app=demo&platform=ios&appVersion=7.0"))
        #expect(answered.status == .ok, "an empty published catalog is the rules' \"no skin\"")
        #expect(String(decoding: answered.bodyBytes, as: UTF8.self) == #"{"skinSign":""}"#)
    }

    @Test func repeatedAnswersAreIdentical() throws {
        let scratch = try ScratchDirectory(prefix: "livery-metrics")
        let api = try Self.api(metrics: TestMetrics(), cacheIn: scratch)
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
