/// The mutable builder of routes; `freeze()` turns it into an immutable, `Sendable` `FrozenRouter`.
///
/// Patterns are `/`-separated segments, each a literal or a `:name` parameter: `/api/v1/packages/:sign`.
/// Matching is on percent-decoded segments (so `%2F` inside a segment never splits it); a literal segment wins
/// over a parameter at the same position. Unknown paths get a 404 JSON error; a known path with a method it has
/// no route for gets a 405 with `Allow`. A `GET` route also answers `HEAD` (the server sends only the head).
///
/// Build it once at startup, from one thread, then freeze it; it is deliberately not `Sendable`.
public final class Router: RouteRegistrar {
    struct Registration {
        let method: HTTPMethod
        let pattern: RoutePattern
        let bodyLimit: Int?
        let headCheck: HTTPHeadCheck?
        let handler: HTTPHandler
    }

    private(set) var registrations: [Registration] = []

    /// An empty router.
    public init() {}

    public func register(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int?, headCheck: HTTPHeadCheck?, handler: HTTPHandler
    ) {
        guard let parsed = RoutePattern(pattern) else {
            preconditionFailure("invalid route pattern \(pattern)")
        }
        precondition(bodyLimit.map { $0 >= 0 } ?? true, "negative body limit for \(pattern)")
        precondition(
            !registrations.contains { $0.method == method && $0.pattern.segments == parsed.segments },
            "route \(method) \(pattern) registered twice")
        registrations.append(
            Registration(method: method, pattern: parsed, bodyLimit: bodyLimit, headCheck: headCheck, handler: handler))
    }

    /// A group whose routes share `prefix` and run through `middleware` (first listed runs first), head checks
    /// included.
    public func group(_ prefix: String, middleware: [HTTPMiddleware] = []) -> RouteGroup {
        RouteGroup(router: self, prefix: prefix, middleware: middleware)
    }

    /// The immutable routing for the routes registered so far. Later registrations do not affect it.
    public func freeze() -> FrozenRouter {
        FrozenRouter(registrations: registrations)
    }
}

/// Routes sharing a path prefix and middleware; registrations go to the underlying `Router`.
///
/// Each route registered through the group gets the middleware's head checks, in middleware order, before its own
/// head check.
public struct RouteGroup: RouteRegistrar {
    let router: Router
    let prefix: String
    let middleware: [HTTPMiddleware]

    public func register(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int?, headCheck: HTTPHeadCheck?, handler: HTTPHandler
    ) {
        let wrapped = middleware.reversed().reduce(handler) { handler, middleware in middleware.apply(to: handler) }
        let checks = middleware.compactMap(\.headCheck) + (headCheck.map { [$0] } ?? [])
        router.register(
            method, RoutePattern.join(prefix, pattern), bodyLimit: bodyLimit, headCheck: HTTPHeadCheck.chain(checks),
            handler: wrapped)
    }

    /// A nested group: prefixes concatenate, this group's middleware runs before the nested group's.
    public func group(_ prefix: String, middleware: [HTTPMiddleware] = []) -> RouteGroup {
        RouteGroup(
            router: router, prefix: RoutePattern.join(self.prefix, prefix), middleware: self.middleware + middleware)
    }
}
