import LiveryJSON

/// A response as handlers produce it.
///
/// The server owns framing and connection management: it adds `Content-Length`, `Date`, `Server`,
/// `Connection` (when needed) and `X-Request-Id`, and drops any `Content-Length`, `Transfer-Encoding`,
/// `Connection`, `Date` or `X-Request-Id` a handler set. For `HEAD` it sends only the head, with the
/// `Content-Length` the body would have. Header names must be tokens and values must not contain CR, LF or NUL;
/// a response breaking that rule is replaced by a 500 (and logged), never sent.
public struct HTTPResponse: Sendable {
    /// The status; 200 by default.
    public var status: HTTPStatus
    /// Header fields set by the handler.
    public var headers: HTTPHeaders
    /// The content; empty by default.
    public var body: HTTPBody

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: HTTPBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response carrying JSON bytes as `application/json`.
    public static func json(_ status: HTTPStatus, _ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes(bytes))
    }

    /// 503 for a moment of overload (too many connections, no descriptor left): the error answer with
    /// `Retry-After: 1`, so a client retries soon and no cache keeps it.
    public static func overloaded(code: String, message: String) -> HTTPResponse {
        error(.serviceUnavailable, code: code, message: message, headers: HTTPHeaders([("Retry-After", "1")]))
    }

    /// The JSON error answer every Livery error uses, from the HTTP layer's own (404, 405, parse errors) to the
    /// APIs': `{"error":{"code":"...","message":"...","details":{...}}}`, compact, `details` only when non-empty,
    /// with `Content-Type: application/json` and `Cache-Control: no-store` (no cache may keep an error).
    ///
    /// `code` is a stable machine-readable identifier such as `not_found`; `message` is for humans. Neither should
    /// carry file paths or errno values. For a 4xx, `details` names the input at fault in `field` and says why in
    /// `reason`.
    ///
    /// - Parameters:
    ///   - details: string members of `details`, in order.
    ///   - encodedDetails: members already encoded as one JSON object (`{...}`), for callers whose details hold
    ///     more than strings; used instead of `details` when given.
    ///   - headers: extra header fields, such as `Allow` or `Retry-After`.
    public static func error(
        _ status: HTTPStatus, code: String, message: String, details: [(String, String)] = [],
        encodedDetails: [UInt8]? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) -> HTTPResponse {
        var json = JSONWriter(capacity: 64 + message.utf8.count)
        json.raw(#"{"error":{"code":"#.utf8)
        json.string(code)
        json.raw(#","message":"#.utf8)
        json.string(message)
        if let encodedDetails, encodedDetails.count > 2 {
            json.raw(#","details":"#.utf8)
            json.raw(encodedDetails)
        } else if !details.isEmpty {
            json.raw(#","details":"#.utf8)
            json.raw(JSONWriter.object(details.map { ($0.0, JSONWriter.string($0.1)) }))
        }
        json.raw("}}".utf8)
        var fields = headers
        fields.add(name: "Content-Type", value: "application/json")
        fields.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: status, headers: fields, body: .bytes(json.bytes))
    }
}
