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
    /// The value of the first `X-Request-Id` field (`headers["x-request-id"]`, noted while parsing), unchecked.
    var requestID: String?

    /// UTF-8 offsets of the raw path and raw query within `target` (kept as offsets: the head is moved on every
    /// request, and four small integers are cheaper to move than two `Substring`s).
    var pathBounds: (start: Int32, end: Int32)
    var queryBounds: (start: Int32, end: Int32)

    /// The raw path of the target without the query: what the router matches and the server logs (never
    /// decoded, so no control characters; never the query, which may carry secrets).
    var rawPath: Substring { pathBounds == Self.impliedRoot ? "/" : slice(pathBounds) }

    /// `pathBounds` of an absolute-form target without a path: its path is "/" (RFC 9112 §3.2.2).
    static let impliedRoot: (start: Int32, end: Int32) = (0, -1)
    /// The raw query (after `?`), not decoded.
    var rawQuery: Substring { slice(queryBounds) }
    /// Whether the target has a query with at least one byte (`rawQuery` is not empty).
    var hasQuery: Bool { queryBounds.end > queryBounds.start }

    private func slice(_ bounds: (start: Int32, end: Int32)) -> Substring {
        let utf8 = target.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: Int(bounds.start))
        let end = utf8.index(utf8.startIndex, offsetBy: Int(bounds.end))
        return Substring(utf8[start..<end])
    }

    /// The offsets of `part`, a slice of `target`.
    static func bounds(of part: Substring, in target: String) -> (start: Int32, end: Int32) {
        let utf8 = target.utf8
        return (
            Int32(utf8.distance(from: utf8.startIndex, to: part.startIndex)),
            Int32(utf8.distance(from: utf8.startIndex, to: part.endIndex))
        )
    }
}
