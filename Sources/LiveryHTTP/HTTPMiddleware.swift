/// What a route group puts around each of its routes: a check that may answer early or forward a changed request
/// (`before`), a transformation of every response (`after`), and optionally a `headCheck`.
///
/// Attached to route groups (`Router.group(_:middleware:)`), where it applies to every route registered through
/// the group. With several middleware, the first listed runs first (outermost). Middleware never sees how a
/// handler runs: `HTTPHandler.intercepted(before:after:)` keeps synchronous handlers synchronous, so middleware
/// costs nothing on the hot path.
///
/// The `headCheck` runs on every route of the group once the request head is parsed and before the body is read
/// (see `HTTPHeadCheck`); the wrapped handler still runs afterwards for requests the check lets through. With
/// several middleware, head checks run in the same order as the middleware, and the first response wins.
public struct HTTPMiddleware: Sendable {
    /// What `before` decides for a request.
    public enum Decision: Sendable {
        /// Send this response instead of calling the handler (for example a 401 from an authentication check).
        case respond(HTTPResponse)
        /// Call the handler with this request (the one received, or a copy carrying more, such as the actor).
        case forward(HTTPRequest)
    }

    private let before: (@Sendable (HTTPRequest) -> Decision)?
    private let after: (@Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse)?
    /// Runs before any of the body is read, on every route the middleware applies to; nil for none.
    public let headCheck: HTTPHeadCheck?

    /// A middleware from its parts; each is optional.
    public init(
        headCheck: HTTPHeadCheck? = nil, before: (@Sendable (HTTPRequest) -> Decision)? = nil,
        after: (@Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse)? = nil
    ) {
        self.headCheck = headCheck
        self.before = before
        self.after = after
    }

    /// Wraps `handler`.
    public func apply(to handler: HTTPHandler) -> HTTPHandler {
        guard before != nil || after != nil else { return handler }
        return handler.intercepted(before: before ?? { .forward($0) }, after: after ?? { $1 })
    }

    /// Runs `check` before the handler: a non-nil response is sent instead of calling the handler (for example a
    /// 401 from an authentication check).
    public static func filter(_ check: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) -> HTTPMiddleware {
        HTTPMiddleware(before: { request in check(request).map(Decision.respond) ?? .forward(request) })
    }

    /// Transforms every response of the wrapped handler (for example to add a header).
    public static func mapResponse(
        _ transform: @escaping @Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse
    ) -> HTTPMiddleware {
        HTTPMiddleware(after: transform)
    }
}
