/// A function wrapping handlers: it receives the handler of a route and returns the handler to run instead.
///
/// Attached to route groups (`Router.group(_:middleware:)`), where it applies to every route registered through
/// the group. With several middleware, the first listed runs first (outermost). The helpers `filter` and
/// `mapResponse` keep synchronous handlers synchronous, so they cost nothing on the hot path.
///
/// A middleware may also carry a `headCheck`, run on every route of the group once the request head is parsed and
/// before the body is read (see `HTTPHeadCheck`); the wrapped handler still runs afterwards for requests the check
/// lets through. With several middleware, head checks run in the same order as the middleware, and the first
/// response wins.
public struct HTTPMiddleware: Sendable {
    private let wrap: @Sendable (HTTPHandler) -> HTTPHandler
    /// Runs before any of the body is read, on every route the middleware applies to; nil for none.
    public let headCheck: HTTPHeadCheck?

    /// A middleware from a handler transformation and, optionally, a check run before the body is read.
    public init(headCheck: HTTPHeadCheck? = nil, _ wrap: @escaping @Sendable (HTTPHandler) -> HTTPHandler) {
        self.headCheck = headCheck
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
            case .syncOrAsync(let immediate, let otherwise):
                .syncOrAsync(
                    immediate: { request in check(request) ?? immediate(request) },
                    // `immediate` already ran the check and found nothing to answer early.
                    otherwise: otherwise)
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
            case .syncOrAsync(let immediate, let otherwise):
                .syncOrAsync(
                    immediate: { request in immediate(request).map { transform(request, $0) } },
                    otherwise: { request in transform(request, await otherwise(request)) })
            }
        }
    }
}
