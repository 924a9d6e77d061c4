import LiveryHTTP
import LiveryJSON
import SkinModel
import SkinServing

/// Errors the client and admin APIs return, mapped to HTTP in this one place (this file and
/// `APIError+Admin.swift`, which maps store, archive, upload and validation errors).
///
/// The body is always `{"error": {"code": "...", "message": "...", "details": {...}}}` (`details` only when
/// non-empty). For 4xx answers the details name the offending input in `field` (a parameter, a body key such
/// as `rollout`, a header such as `If-Match`, or `body`) and say why in `reason`; some carry more structure, such
/// as the whole validation report on 422. Clients never see file paths, errno values or internal error text
/// (those go to the log). Handlers may throw it (`.sync { request throws(APIError) in … }`); the HTTP layer sends its
/// `response`.
public struct APIError: HTTPResponseError, Sendable {
    public let status: HTTPStatus
    /// A stable snake_case identifier clients may match on.
    public let code: String
    /// One sentence for people.
    public let message: String
    /// Structured details, in insertion order.
    public let details: JSONObject
    /// Extra response headers, such as `WWW-Authenticate` on 401 or the current `ETag` on 412.
    public let headers: HTTPHeaders

    /// An error whose details are all strings.
    public init(_ status: HTTPStatus, code: String, message: String, details: [(String, String)] = []) {
        var object = JSONObject()
        for (key, value) in details { object[key] = .string(value) }
        self.init(status, code: code, message: message, details: object)
    }

    /// An error with structured details and extra headers.
    public init(
        _ status: HTTPStatus, code: String, message: String, details: JSONObject, headers: HTTPHeaders = HTTPHeaders()
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    /// 400 naming the query parameter, why, and (when one arrived) the value received.
    static func invalidParameter(_ error: InvalidParameter) -> APIError {
        var details = [("parameter", error.parameter), ("field", error.parameter), ("reason", error.reason)]
        if let value = error.value { details.append(("value", value)) }
        return APIError(.badRequest, code: "invalid_parameter", message: error.message, details: details)
    }

    static let packageNotFound = APIError(.notFound, code: "package_not_found", message: "no package with that sign")
    static let previewNotFound = APIError(
        .notFound, code: "preview_not_found", message: "no preview image with that name")
    static let internalError = APIError(.internalServerError, code: "internal_error", message: "internal error")

    /// The HTTP response for this error: the HTTP layer's one error encoding (`HTTPResponse.error`), with these
    /// details and headers.
    public var response: HTTPResponse {
        HTTPResponse.error(
            status, code: code, message: message,
            encodedDetails: details.isEmpty ? nil : JSONValue.object(details).serialized(.compact), headers: headers)
    }
}
