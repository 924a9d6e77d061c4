/// Something routes can be registered on: a `Router` or one of its `RouteGroup`s.
///
/// Registering is one call whatever the handler does: `on(.get, "/path", .sync { request in … })`, with
/// `.async { … }` for slow work or `.syncOrAsync(immediate:otherwise:)` (see `HTTPHandler`).
public protocol RouteRegistrar {
    /// Adds the route; what ``on(_:_:bodyLimit:headCheck:_:)`` calls. Implemented by `Router` and `RouteGroup`.
    func register(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int?, headCheck: HTTPHeadCheck?, handler: HTTPHandler)
}

extension RouteRegistrar {
    /// Registers `handler` for `method` and `pattern` (see `Router` for the pattern syntax). A `GET` route also
    /// answers `HEAD` unless a `HEAD` route is registered for the same pattern.
    ///
    /// - Parameters:
    ///   - bodyLimit: the largest request body accepted, in bytes; nil uses the server's `defaultBodyLimit`
    ///     (1 MiB unless configured).
    ///   - headCheck: run once the head is parsed, before any of the body is read (see `HTTPHeadCheck`); a
    ///     group's middleware head checks run before it. nil for none.
    /// - Precondition: the pattern is valid and not already registered for this method (a programming error,
    ///   caught at startup).
    public func on(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int? = nil, headCheck: HTTPHeadCheck? = nil,
        _ handler: HTTPHandler
    ) {
        register(method, pattern, bodyLimit: bodyLimit, headCheck: headCheck, handler: handler)
    }
}
