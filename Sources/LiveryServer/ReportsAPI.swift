import LiveryHTTP
import LiveryJSON
import Logging
import SkinServing

/// `POST /api/v1/reports`: what phones say happened to the skins they were given (issue 26), taken into the
/// store's report ledger through `ReportIntake`.
///
/// Answers, in the order they are decided:
/// - 429 `rate_limited` with `Retry-After` when the sending address is past its rate (before the body is parsed);
/// - 415 for a `Content-Type` other than `application/json`; 413 (by the HTTP layer) past 16 KiB;
/// - 400 `invalid_json`, 422 `invalid_report` naming the member (`reports[3].stage`);
/// - 429 `rate_limited` when the device is past its rate;
/// - 503 `not_ready` before the first catalog, 503 `store_unavailable` with `Retry-After` when the ledger cannot
///   take the batch (nothing acknowledged: the phone keeps its reports and sends them later);
/// - 202 `{"accepted": N, "ignored": M}` once the reports are durable.
///
/// The handler is asynchronous: it runs off the event loops, which keep serving polls meanwhile.
final class ReportsAPI: Sendable {
    let intake: ReportIntake
    private let isReady: @Sendable () -> Bool
    private let logger: Logger
    /// Told each batch's receipt that counted reports for the first time (`counted`), after they are durable and
    /// answered for.
    private let recorded: @Sendable (ReportIntake.Receipt) -> Void

    init(
        intake: ReportIntake, logger: Logger, isReady: @escaping @Sendable () -> Bool,
        recorded: @escaping @Sendable (ReportIntake.Receipt) -> Void = { _ in }
    ) {
        self.intake = intake
        self.logger = logger
        self.isReady = isReady
        self.recorded = recorded
    }

    /// The path.
    static let path = "/api/v1/reports"

    func register(on router: Router) {
        router.on(
            .post, Self.path, bodyLimit: ReportBatch.maximumBytes,
            .async { [self] request in
                do throws(APIError) {
                    return try await receive(request)
                } catch {
                    return error.response
                }
            })
    }

    func receive(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        if let wait = intake.admitAddress(request.remoteAddress) { throw Self.rateLimited("address", wait) }
        if let type = request.headers["Content-Type"], AdminAPI.mediaType(type) != "application/json" {
            throw APIError.invalidField(
                "Content-Type", "send the body as application/json", code: "unsupported_media_type",
                status: .unsupportedMediaType)
        }
        let batch: ReportBatch
        do throws(ReportBatchError) {
            batch = try ReportBatch.parse(request.body)
        } catch {
            switch error.kind {
            case .syntax: throw APIError.invalidField(error.field, error.reason, code: "invalid_json")
            case .invalid:
                throw APIError.invalidField(
                    error.field, error.reason, code: "invalid_report", status: .unprocessableContent)
            }
        }
        if let wait = intake.admitDevice(batch.deviceID) { throw Self.rateLimited("deviceId", wait) }
        guard isReady() else { throw APIError.notReady }
        let receipt: ReportIntake.Receipt
        do {
            receipt = try await intake.record(batch)
        } catch {
            logger.warning(
                "reports not recorded", metadata: ["request.id": "\(request.requestID)", "error": "\(error)"])
            throw APIError(
                .serviceUnavailable, code: "store_unavailable",
                message: "The reports could not be stored; send them later.",
                details: Self.fields("body", "the store cannot take reports now"),
                headers: HTTPHeaders([("Retry-After", "30")]))
        }
        if !receipt.counted.isEmpty { recorded(receipt) }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        let body = JSONWriter.object([
            ("accepted", JSONWriter.number(receipt.accepted)), ("ignored", JSONWriter.number(receipt.ignored))
        ])
        return HTTPResponse(status: .accepted, headers: headers, body: .bytes(body))
    }

    /// 429 naming what is past its rate (`address` or `deviceId`), with `Retry-After`.
    static func rateLimited(_ field: String, _ seconds: Int) -> APIError {
        APIError(
            .tooManyRequests, code: "rate_limited",
            message: "Too many reports from this \(field == "address" ? "address" : "device"); retry in \(seconds) s.",
            details: fields(field, "is past its rate of reports"),
            headers: HTTPHeaders([("Retry-After", String(seconds))]))
    }

    private static func fields(_ field: String, _ reason: String) -> JSONObject {
        var object = JSONObject()
        object["field"] = .string(field)
        object["reason"] = .string(reason)
        return object
    }
}
