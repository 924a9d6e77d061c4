import CoreMetrics
import Foundation
import LiveryCrypto
import LiveryHTTPClient
import LiveryJSON
import LiveryProtocol
import Logging
import SkinModel
import SkinServing

/// Calls the guard's webhook (`--notify-url`) when a trip committed on this replica: one `POST` of a JSON body
/// naming the skin, version, action and figures, with `id` = the trip's audit sequence (so receivers drop retries)
/// and a `text` line for chat hooks; signed with `Livery-Signature-HMAC: sha256=<hex>` over the exact body when a
/// secret is configured. Each try waits at most `timeout`; a failed try (no answer, 5xx, 408, 429) is retried after
/// a doubling delay, `attempts` tries in all; other 4xx answers are not retried. Every failed try counts in
/// `livery_notify_failures_total`.
public final class GuardNotifier: Sendable {
    /// Where and how the webhook is called.
    public struct Configuration: Sendable {
        /// `http[s]://HOST[:PORT][/PATH]` (https with the system's CAs, or `caFile`'s).
        public var url: String
        /// A PEM file of the CA certificates an `https://` receiver's chain must lead to, instead of the system's
        /// (a private CA, `--notify-ca-file`). Default nil.
        public var caFile: String?
        /// The HMAC key (`--notify-secret-file`'s bytes, a trailing line break dropped), or nil for no signature.
        public var secret: [UInt8]?
        /// Seconds each try may take (connect, send, each read). Default 5.
        public var timeout: Int = 5
        /// Tries in all. Default 5.
        public var attempts: Int = 5
        /// The wait after the first failed try, doubled after each further one. Default 1 s (1, 2, 4, 8 s).
        public var firstRetryDelay: Duration = .seconds(1)

        public init(url: String, secret: [UInt8]? = nil) {
            self.url = url
            self.secret = secret
        }
    }

    /// The failed tries: `livery_notify_failures_total`.
    public static let failuresMetric = "livery_notify_failures_total"
    /// The signature header.
    public static let signatureHeader = "Livery-Signature-HMAC"

    public let configuration: Configuration
    private let client: HTTPClient
    private let logger: Logger
    private let factory: any MetricsFactory

    /// - Throws: `HTTPClientError.usage` naming `--notify-url` when the URL is not `http[s]://HOST[:PORT][/PATH]`.
    public init(
        configuration: Configuration, logger: Logger, factory: any MetricsFactory = MetricsSystem.factory
    ) throws(HTTPClientError) {
        self.configuration = configuration
        var client = HTTPClient(
            server: try HTTPClient.Server(parsing: configuration.url, option: "--notify-url"),
            caFile: configuration.caFile, timeout: max(1, configuration.timeout))
        client.userAgent = "livery-guard"
        self.client = client
        self.logger = logger
        self.factory = factory
    }

    /// The webhook's body for `trip`: `{"id", "event": "guard.trip", "skin", "version", "action", "rolloutBefore",
    /// "at", "figures": {…}, "text"}`.
    public static func body(for trip: GuardTrip) -> [UInt8] {
        var object = JSONObject()
        object["id"] = .number(JSONNumber(trip.sequence))
        object["event"] = .string("guard.trip")
        object["skin"] = .string(trip.skinID)
        object["version"] = .number(JSONNumber(trip.version))
        object["action"] = .string(trip.action.rawValue)
        object["rolloutBefore"] = .number(JSONNumber(trip.rolloutBefore))
        object["at"] = .string(ISO8601Instant.format(trip.at))
        object["figures"] = .object(GuardPolicy.json(trip.figures))
        object["text"] = .string(text(for: trip))
        return JSONValue.object(object).serialized(.compact)
    }

    /// One line for a chat channel.
    static func text(for trip: GuardTrip) -> String {
        let percent = (GuardPolicy.failureRate(trip.figures) * 1000).rounded() / 10
        let did = trip.action == .rollback ? "rolled back" : "paused"
        return "Livery \(did) skin \(trip.skinID) version \(trip.version): \(trip.figures.failedDevices) of "
            + "\(trip.figures.reportingDevices) reporting devices failed (\(percent) %). "
            + "Resume with: livery release \(trip.skinID) --resume"
    }

    /// `sha256=<hex>` of HMAC-SHA256 over `body` under `secret`.
    public static func signature(of body: [UInt8], secret: [UInt8]) -> String {
        "sha256=" + Hex.encode(SHA256.authenticationCode(key: secret, message: body))
    }

    /// Calls the webhook for `trip`, retrying as the type says.
    ///
    /// - Returns: whether a try got a 2xx.
    @discardableResult
    public func notify(_ trip: GuardTrip) async -> Bool {
        let body = Self.body(for: trip)
        var headers = [("Content-Type", "application/json"), ("Livery-Event", "guard.trip")]
        if let secret = configuration.secret {
            headers.append((Self.signatureHeader, Self.signature(of: body, secret: secret)))
        }
        let target = client.server.prefix.isEmpty ? "/" : ""
        var delay = configuration.firstRetryDelay
        let attempts = max(1, configuration.attempts)
        for attempt in 1...attempts {
            let client = client
            let sentHeaders = headers
            let outcome = await BlockingWorkRunner.onOwnThread(name: "livery.notify") {
                () -> Result<Int, HTTPClientError> in
                Result { () throws(HTTPClientError) in
                    try client.send("POST", target, headers: sentHeaders, body: body).status
                }
            }
            let failure: String
            var retry = true
            switch outcome {
            case .success(let status) where (200..<300).contains(status):
                logger.info(
                    "guard webhook delivered",
                    metadata: [
                        "skin.id": "\(trip.skinID)", "audit.sequence": "\(trip.sequence)", "attempt": "\(attempt)"
                    ])
                return true
            case .success(let status):
                failure = "HTTP \(status)"
                retry = status >= 500 || status == 408 || status == 429
            case .failure(let error):
                failure = error.description
            }
            CoreMetrics.Counter(label: Self.failuresMetric, factory: factory).increment()
            let last = attempt == attempts || !retry
            logger.log(
                level: last ? .error : .warning, "guard webhook failed",
                metadata: [
                    "skin.id": "\(trip.skinID)", "audit.sequence": "\(trip.sequence)", "attempt": "\(attempt)",
                    "error": "\(failure)", "retrying": "\(!last)"
                ])
            if last { return false }
            try? await Task.sleep(for: delay)
            delay *= 2
        }
        return false
    }
}
