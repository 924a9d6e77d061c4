/// The server's one question to the application: how to answer a request with this method and path.
///
/// Asked as soon as the head is parsed, before the body is read, so the answer's body limit is enforced without
/// reading an oversized body. `FrozenRouter` is the usual implementation.
public protocol HTTPResponder: Sendable {
    /// Chooses the route for a request.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - rawPath: the path of the request-target, not percent-decoded, without the query; already validated
    ///     by the server (visible ASCII only, decodes to UTF-8 without NUL). `*` for `OPTIONS *`.
    func route(method: HTTPMethod, rawPath: Substring) -> HTTPRoute
}

/// The answer of an `HTTPResponder`: which handler runs, with which parameters and body limit.
public struct HTTPRoute: Sendable {
    /// The registered pattern, such as `/api/v1/packages/:sign`; nil when no route matched (404 or 405).
    /// Reported to observers, so metrics are labelled by pattern rather than by raw path.
    public var pattern: String?
    /// Values of the pattern's `:name` segments, percent-decoded.
    public var pathParameters: [String: String]
    /// The largest body accepted, in bytes; nil means the server's `defaultBodyLimit`. A larger declared
    /// Content-Length is answered with 413 before any of the body is read.
    public var bodyLimit: Int?
    /// The handler to run once the body has arrived.
    public var handler: HTTPHandler

    public init(pattern: String?, pathParameters: [String: String] = [:], bodyLimit: Int? = nil, handler: HTTPHandler) {
        self.pattern = pattern
        self.pathParameters = pathParameters
        self.bodyLimit = bodyLimit
        self.handler = handler
    }
}
