/// How a request's body is delimited (RFC 9112 §6.3).
enum BodyFraming: Equatable, Sendable {
    /// Neither Content-Length nor Transfer-Encoding: no content (RFC 9112 §6.3 rule 6).
    case none
    /// Content-Length: exactly this many bytes follow.
    case length(Int)
    /// Transfer-Encoding: chunked.
    case chunked
}

/// A parsed and validated request head: request line and header section.
struct HTTPRequestHead: Sendable {
    var method: HTTPMethod
    /// The raw request-target; only visible ASCII (validated).
    var target: String
    /// The percent-decoded path (validated: decodes, valid UTF-8, no NUL).
    var path: String
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: BodyFraming
    /// Whether the connection stays open after this exchange (RFC 9112 §9.3): HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive`.
    var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request (ignored for HTTP/1.0, RFC 9110 §10.1.1).
    var expectsContinue: Bool

    /// The raw path of the target without the query: what the router matches and the server logs (never
    /// decoded, so no control characters; never the query, which may carry secrets).
    var rawPath: Substring
    /// The raw query (after `?`), not decoded.
    var rawQuery: Substring
}
