/// A function wrapping handlers: it receives the handler of a route and returns the handler to run instead.
///
/// Attached to route groups (`Router.group(_:middleware:)`), where it applies to every route registered through
/// the group. With several middleware, the first listed runs first (outermost). The helpers `filter` and
/// `mapResponse` keep synchronous handlers synchronous, so they cost nothing on the hot path.
public struct HTTPMiddleware: Sendable {
    private let wrap: @Sendable (HTTPHandler) -> HTTPHandler

    /// A middleware from a handler transformation.
    public init(_ wrap: @escaping @Sendable (HTTPHandler) -> HTTPHandler) {
        self.wrap = wrap
    }

    /// Wraps `handler`.
    public func apply(to handler: HTTPHandler) -> HTTPHandler { wrap(handler) }

    /// Runs `check` before the handler: a non-nil response is sent instead of calling the handler (for example a
    /// 401 from an authentication check).
    public static func filter(_ check: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) -> HTTPMiddleware {
        HTTPMiddleware { handler in
            switch handler {
            case .sync(let next):
                .sync { request in check(request) ?? next(request) }
            case .async(let next):
                .async { request in
                    if let early = check(request) { return early }
                    return await next(request)
                }
            }
        }
    }

    /// Transforms every response of the wrapped handler (for example to add a header).
    public static func mapResponse(
        _ transform: @escaping @Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse
    ) -> HTTPMiddleware {
        HTTPMiddleware { handler in
            switch handler {
            case .sync(let next):
                .sync { request in transform(request, next(request)) }
            case .async(let next):
                .async { request in transform(request, await next(request)) }
            }
        }
    }
}
