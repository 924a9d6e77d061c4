import LiveryHTTP

/// Errors the client and admin APIs return, mapped to HTTP in this one place.
///
/// The body is always `{"error": {"code": "...", "message": "...", "details": {...}}}`; clients never see file paths,
/// errno values or internal error text (those go to the log).
public struct APIError: Error, Sendable {
    public let status: HTTPStatus
    public let code: String
    public let message: String
    public let details: [(String, String)]

    public init(_ status: HTTPStatus, code: String, message: String, details: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
    }

    static func invalidParameter(_ error: InvalidParameter) -> APIError {
        APIError(
            .badRequest, code: "invalid_parameter", message: error.message,
            details: [("parameter", error.parameter), ("reason", error.reason)])
    }

    static let packageNotFound = APIError(.notFound, code: "package_not_found", message: "no package with that sign")
    static let internalError = APIError(.internalServerError, code: "internal_error", message: "internal error")

    /// The JSON body bytes.
    public var body: [UInt8] {
        var text = #"{"error":{"code":\#(AnswerFragments.quote(code)),"message":\#(AnswerFragments.quote(message))"#
        if !details.isEmpty {
            text += #","details":{"#
            text += details.map { "\(AnswerFragments.quote($0.0)):\(AnswerFragments.quote($0.1))" }.joined(separator: ",")
            text += "}"
        }
        return Array((text + "}}").utf8)
    }

    /// The HTTP response for this error.
    public var response: HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: status, headers: headers, body: .bytes(body))
    }
}
