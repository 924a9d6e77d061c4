import Foundation
import HTTPTestSupport
import LiveryCrypto
import LiveryHTTP
import LiveryJSON
import LiveryProtocol
import LiveryServer
import Logging
import MetricsTestKit
import SkinModel
import SkinServing
import Synchronization
import TestSupport
import Testing

/// The guard's webhook against a receiver on 127.0.0.1: one signed call per trip, retried after a 5xx.
@Suite struct GuardNotifierTests {
    /// What the receiver got.
    final class Received: Sendable {
        let calls = Mutex<[HTTPRequest]>([])
        /// The statuses to answer with, in order; 200 once they run out.
        let answers: Mutex<[Int]>

        init(answers: [Int]) { self.answers = Mutex(answers) }

        func respond(_ request: HTTPRequest) -> HTTPResponse {
            calls.withLock { $0.append(request) }
            let status = answers.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            return status == 200 ? .json(.ok, Array(#"{"ok":true}"#.utf8)) : HTTPResponse(status: .internalServerError)
        }
    }

    static let secret = Array("s3cret-for-the-hook".utf8)

    static let trip = GuardTrip(
        skinID: "spring-2027", version: 3, sequence: 42, action: .pause, rolloutBefore: 30,
        at: Date(timeIntervalSince1970: 1_801_000_000),
        figures: VersionFigures(
            skinID: "spring-2027", version: 3, reportingDevices: 500, failedDevices: 150,
            failedByStage: ["unpack": 120, "crash": 30]))

    static func receiver(_ received: Received) throws -> TestServer {
        try TestServer.start(routes: { (router: Router) in
            router.on(.post, "/hooks/livery", HTTPHandler.sync { request in received.respond(request) })
        })
    }

    static func notifier(port: Int, metrics: TestMetrics) throws -> GuardNotifier {
        var configuration = GuardNotifier.Configuration(url: "http://127.0.0.1:\(port)/hooks/livery", secret: secret)
        configuration.firstRetryDelay = .milliseconds(10)
        return try GuardNotifier(configuration: configuration, logger: TestServer.quietLogger, factory: metrics)
    }

    @Test func theReceiverGetsOneCallWithTheTripAndAValidSignature() async throws {
        let received = Received(answers: [])
        let server = try Self.receiver(received)
        defer { Task { await server.stop() } }
        let metrics = TestMetrics()
        let notifier = try Self.notifier(port: server.port, metrics: metrics)
        #expect(await notifier.notify(Self.trip))

        let calls = received.calls.withLock { $0 }
        #expect(calls.count == 1)
        let call = try #require(calls.first)
        #expect(call.headers["content-type"] == "application/json")
        let expected = "sha256=" + Hex.encode(SHA256.authenticationCode(key: Self.secret, message: call.body))
        #expect(call.headers["livery-signature-hmac"] == expected, "HMAC-SHA256 over the exact body")
        let body = try #require(try JSONValue.parse(call.body).objectValue)
        #expect(body["id"] == .number(JSONNumber(42)), "the audit sequence, so receivers drop retries")
        #expect(body["skin"] == .string("spring-2027") && body["version"] == .number(JSONNumber(3)))
        #expect(body["action"] == .string("pause") && body["rolloutBefore"] == .number(JSONNumber(30)))
        let figures = try #require(body["figures"]?.objectValue)
        #expect(
            figures["reportingDevices"] == .number(JSONNumber(500))
                && figures["failedDevices"] == .number(JSONNumber(150)))
        #expect(figures["failedByStage"]?.objectValue?["unpack"] == .number(JSONNumber(120)))
        let text = try #require(body["text"]?.stringValue)
        #expect(text.contains("spring-2027") && text.contains("150 of 500") && text.contains("--resume"))
        #expect(((try? metrics.expectCounter(GuardNotifier.failuresMetric))?.totalValue ?? 0) == 0)
    }

    @Test func aFailedCallIsRetriedUntilTheReceiverTakesIt() async throws {
        let received = Received(answers: [500, 500])
        let server = try Self.receiver(received)
        defer { Task { await server.stop() } }
        let metrics = TestMetrics()
        let notifier = try Self.notifier(port: server.port, metrics: metrics)
        #expect(await notifier.notify(Self.trip))

        let calls = received.calls.withLock { $0 }
        #expect(calls.count == 3, "two 500s, then the call that succeeded")
        #expect(Set(calls.map(\.body)).count == 1, "every try sends the same body, with the same id")
        #expect(try metrics.expectCounter(GuardNotifier.failuresMetric).totalValue == 2)
    }

    @Test func aReceiverThatKeepsFailingGetsFiveTriesInAll() async throws {
        let received = Received(answers: Array(repeating: 500, count: 10))
        let server = try Self.receiver(received)
        defer { Task { await server.stop() } }
        let metrics = TestMetrics()
        let notifier = try Self.notifier(port: server.port, metrics: metrics)
        #expect(await notifier.notify(Self.trip) == false)
        #expect(received.calls.withLock { $0.count } == 5)
        #expect(try metrics.expectCounter(GuardNotifier.failuresMetric).totalValue == 5)
    }

    /// An `https://` receiver whose certificate a private CA signed: reached with `--notify-ca-file`, refused (no
    /// call reaches it) with the system's CAs.
    @Test func anHTTPSReceiverOfAPrivateCAIsReachedOnlyWithItsCAFile() async throws {
        let certificates = try await TestCertificates.make()
        let received = Received(answers: [])
        let pair = certificates.pair("server")
        let server = try TestServer.start(
            configure: {
                $0.tls = HTTPServer.TLSConfiguration(certificatePath: pair.certificate, privateKeyPath: pair.key)
            },
            routes: { (router: Router) in
                router.on(.post, "/hooks/livery", HTTPHandler.sync { request in received.respond(request) })
            })
        defer { Task { await server.stop() } }
        func notifier(caFile: String?, metrics: TestMetrics) throws -> GuardNotifier {
            var configuration = GuardNotifier.Configuration(url: "https://127.0.0.1:\(server.port)/hooks/livery")
            configuration.caFile = caFile
            configuration.attempts = 2
            configuration.firstRetryDelay = .milliseconds(10)
            return try GuardNotifier(configuration: configuration, logger: TestServer.quietLogger, factory: metrics)
        }

        let systemMetrics = TestMetrics()
        let untrusted = try notifier(caFile: nil, metrics: systemMetrics)
        #expect(await untrusted.notify(Self.trip) == false)
        #expect(received.calls.withLock { $0.isEmpty }, "an unverified receiver is sent nothing")
        #expect(try systemMetrics.expectCounter(GuardNotifier.failuresMetric).totalValue == 2)

        let trusted = try notifier(caFile: certificates.caFile, metrics: TestMetrics())
        #expect(await trusted.notify(Self.trip))
        #expect(received.calls.withLock { $0.count } == 1)
    }

    @Test func hmacMatchesRFC4231() {
        // RFC 4231, test case 2.
        let code = SHA256.authenticationCode(
            key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}

/// The service's one entry point for the guard (what report ingestion calls): the replica whose trip committed
/// calls the webhook once; a second decision on the same figures trips and calls nothing.
@Suite struct ServiceGuardTripTests {
    @Test func aCommittedTripCallsTheWebhookOnce() async throws {
        let received = GuardNotifierTests.Received(answers: [])
        let receiver = try GuardNotifierTests.receiver(received)
        defer { Task { await receiver.stop() } }
        let notifier = try GuardNotifierTests.notifier(port: receiver.port, metrics: TestMetrics())
        let harness = try await LiveryHarness(samples: ["christmas-2026"]) { $0.notifier = notifier }
        let version = try #require(harness.store.snapshot.skins["christmas-2026"]?.release?.version)
        let figures = VersionFigures(
            skinID: "christmas-2026", version: version, reportingDevices: 500, failedDevices: 150,
            failedByStage: ["crash": 150])

        let trip = try #require(
            try await harness.service.tripGuardIfNeeded(skinID: "christmas-2026", version: version, figures: figures))
        #expect(
            try await harness.service.tripGuardIfNeeded(skinID: "christmas-2026", version: version, figures: figures)
                == nil)
        let calls = received.calls.withLock { $0 }
        #expect(calls.count == 1)
        let call = try #require(calls.first)
        let body = try #require(try JSONValue.parse(call.body).objectValue)
        #expect(body["id"] == .number(JSONNumber(trip.sequence)) && body["skin"] == .string("christmas-2026"))
        #expect(harness.store.snapshot.skins["christmas-2026"]?.release?.plan?.paused != nil)
        await harness.stop()
    }
}
