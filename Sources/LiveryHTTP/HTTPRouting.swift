/// The server's one question to the application: how to answer a request with this method and path.
///
/// Asked as soon as the head is parsed, before the body is read, so the answer's head check and body limit are
/// applied without reading the body. `FrozenRouter` is the usual implementation.
public protocol HTTPRouting: Sendable {
    /// Chooses the route for a request.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - rawPath: the path of the request-target, not percent-decoded, without the query; already validated
    ///     by the server (visible ASCII only, decodes to UTF-8 without NUL). `*` for `OPTIONS *`.
    func route(method: HTTPMethod, rawPath: Substring) -> HTTPRoute

    /// A routing that answers every request exactly as this one does, built apart from it where it holds objects
    /// a route references. The server asks one for each event loop: the routes of a loop's requests then retain
    /// and release only that loop's objects, so two loops never contend for one reference count. The default is
    /// this routing itself.
    func replica() -> any HTTPRouting
}

extension HTTPRouting {
    public func replica() -> any HTTPRouting { self }
}

/// The answer of an `HTTPRouting`: which handler runs, with which parameters, body limit and head check.
///
/// What a registered route answers with (pattern, body limit, head check, handler) is one shared `Target`, so a
/// route is copied along a request as one reference and its parameter values, not as a pattern and each closure.
public struct HTTPRoute: Sendable {
    /// The parts of a route every match of it shares.
    final class Target: Sendable {
        let pattern: String?
        let bodyLimit: Int?
        let headCheck: HTTPHeadCheck?
        let handler: HTTPHandler

        init(pattern: String?, bodyLimit: Int?, headCheck: HTTPHeadCheck?, handler: HTTPHandler) {
            self.pattern = pattern
            self.bodyLimit = bodyLimit
            self.headCheck = headCheck
            self.handler = handler
        }
    }

    let target: Target
    /// Values of the pattern's `:name` segments, percent-decoded.
    public var pathParameters: PathParameters

    /// The registered pattern, such as `/api/v1/packages/:sign`; nil when no route matched (404 or 405).
    /// Reported to observers, so metrics are labelled by pattern rather than by raw path.
    public var pattern: String? { target.pattern }
    /// The largest body accepted, in bytes; nil means the server's `defaultBodyLimit`. A larger declared
    /// Content-Length is answered with 413 before any of the body is read.
    public var bodyLimit: Int? { target.bodyLimit }
    /// Run as soon as the head is parsed, before the body limit is enforced and before any of the body is read;
    /// a response it returns is sent instead of reading the body (see `HTTPHeadCheck`). nil for none.
    public var headCheck: HTTPHeadCheck? { target.headCheck }
    /// The handler to run once the body has arrived.
    public var handler: HTTPHandler { target.handler }

    public init(
        pattern: String?, pathParameters: PathParameters = [:], bodyLimit: Int? = nil,
        headCheck: HTTPHeadCheck? = nil, handler: HTTPHandler
    ) {
        self.init(
            target: Target(pattern: pattern, bodyLimit: bodyLimit, headCheck: headCheck, handler: handler),
            pathParameters: pathParameters)
    }

    init(target: Target, pathParameters: PathParameters = [:]) {
        self.target = target
        self.pathParameters = pathParameters
    }
}
