/// A complete request as handlers see it: head, body and trailers read, path and query decoded.
///
/// Built by the server after the whole body has arrived (bodies are at most the route's body limit, so holding
/// them in memory is bounded). `path` is the percent-decoded path of the target; `target` is kept raw for
/// handlers that need the exact bytes (signatures, logging without decoding surprises).
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The raw request-target (RFC 9112 §3.2): `/api/v1/skins?platform=ios`, or an absolute-form URI.
    public var target: String
    /// The percent-decoded path, always starting with `/` (or `*` for `OPTIONS *`). Never contains NUL.
    public var path: String
    /// The target's path as sent, not decoded, without the query, and for an absolute-form target without its
    /// scheme and authority (so without any `user:password@`): what may be logged.
    public var rawPath: Substring { RequestTarget.split(target).path }
    /// The decoded query parameters, in order.
    public var query: QueryParameters
    /// The request's header fields, in order.
    public var headers: HTTPHeaders
    /// Trailer fields of a chunked body (RFC 9112 §7.1.2); empty otherwise.
    public var trailers: HTTPHeaders
    /// The body bytes, de-chunked; empty when the request has no content.
    public var body: [UInt8]
    /// The protocol version of the request.
    public var version: HTTPVersion
    /// Values of the route's `:name` segments, percent-decoded, keyed by name without the colon.
    public var pathParameters: PathParameters
    /// The id of this request: the client's `X-Request-Id` if it was valid, otherwise generated. Echoed in the
    /// response's `X-Request-Id` and logged as `request.id`.
    public var requestID: String
    /// The peer's address, such as `127.0.0.1:53012`.
    public var remoteAddress: String
    /// The index of the event loop serving the request (0 up to the server's loop count), so a handler can keep
    /// state per loop that no other thread touches; nil when no server's loop runs it (a request made in code).
    public internal(set) var eventLoopIndex: Int?
    /// Which turn of that event loop (one wake-up from `epoll_wait`, counting from 1) read the request; 0 when no
    /// server's loop runs it. Requests one loop reads in one turn share it, so a handler may make a check once per
    /// turn and let the others of that turn reuse its answer (state kept per loop, as `eventLoopIndex` allows): the
    /// answer is then as old as the turn, at most the time the loop takes to serve what one wake-up brought.
    public internal(set) var eventLoopTurn: UInt64 = 0

    /// Creates a request directly, for handler and router tests or internal dispatch; `path` and `query` are
    /// derived from `target` (a target whose path does not decode keeps its raw path).
    public init(
        method: HTTPMethod,
        target: String,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        version: HTTPVersion = .http1_1,
        pathParameters: PathParameters = [:],
        requestID: String = "",
        remoteAddress: String = ""
    ) {
        let (rawPath, rawQuery) = RequestTarget.split(target)
        self.init(
            method: method, target: target, path: PercentEncoding.decodePath(rawPath) ?? String(rawPath),
            query: QueryParameters(parsing: rawQuery), headers: headers, trailers: [:], body: body,
            version: version, pathParameters: pathParameters, requestID: requestID, remoteAddress: remoteAddress
        )
    }

    init(
        method: HTTPMethod, target: String, path: String, query: QueryParameters, headers: HTTPHeaders,
        trailers: HTTPHeaders, body: [UInt8], version: HTTPVersion, pathParameters: PathParameters,
        requestID: String, remoteAddress: String, eventLoopIndex: Int? = nil, eventLoopTurn: UInt64 = 0
    ) {
        self.eventLoopIndex = eventLoopIndex
        self.eventLoopTurn = eventLoopTurn
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.headers = headers
        self.trailers = trailers
        self.body = body
        self.version = version
        self.pathParameters = pathParameters
        self.requestID = requestID
        self.remoteAddress = remoteAddress
    }
}

/// Splitting a request-target into its raw path and raw query (RFC 9112 §3.2).
enum RequestTarget {
    /// Returns the raw path and the raw query (without `?`). For absolute-form (`http://host/p?q`) the path is
    /// the part after the authority (`/` if none). A fragment never reaches a server, but a `#` is cut anyway.
    static func split(_ target: String) -> (path: Substring, query: Substring) {
        let utf8 = target.utf8
        var start = utf8.startIndex
        var end = utf8.firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        if utf8.first != UInt8(ascii: "/"), let afterScheme = schemeEnd(utf8[start..<end]) {
            // absolute-form: skip the authority up to the first "/" or "?".
            let authorityEnd = utf8[afterScheme..<end].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
            guard let authorityEnd else { return ("/", "") }
            if utf8[authorityEnd] == UInt8(ascii: "?") {
                return ("/", Substring(utf8[utf8.index(after: authorityEnd)..<end]))
            }
            start = authorityEnd
        }
        if let question = utf8[start..<end].firstIndex(of: UInt8(ascii: "?")) {
            let query = Substring(utf8[utf8.index(after: question)..<end])
            end = question
            return (Substring(utf8[start..<end]), query)
        }
        return (Substring(utf8[start..<end]), "")
    }

    /// The index just past `://` if `text` starts with a scheme followed by `://`.
    private static func schemeEnd(_ text: Substring.UTF8View) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: ":") {
                let rest = text[index...]
                guard rest.starts(with: "://".utf8), index > text.startIndex else { return nil }
                return text.index(index, offsetBy: 3)
            }
            let isSchemeChar =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isSchemeChar else { return nil }
            index = text.index(after: index)
        }
        return nil
    }
}
