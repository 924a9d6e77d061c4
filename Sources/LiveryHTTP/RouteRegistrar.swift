/// Something routes can be registered on: a `Router` or one of its `RouteGroup`s.
///
/// Handlers are synchronous (`(HTTPRequest) -> HTTPResponse`, run on the connection's event-loop thread: the hot path) or
/// asynchronous (`(HTTPRequest) async -> HTTPResponse`, for slow work). Swift picks the overload from the
/// closure: a closure that uses `await` is asynchronous.
public protocol RouteRegistrar {
    /// Registers `handler` for `method` and `pattern` (see `Router` for the pattern syntax).
    ///
    /// - Parameters:
    ///   - bodyLimit: the largest request body accepted, in bytes; nil uses the server's `defaultBodyLimit`
    ///     (1 MiB unless configured).
    ///   - headCheck: run once the head is parsed, before any of the body is read (see `HTTPHeadCheck`); a
    ///     group's middleware head checks run before it. nil for none.
    /// - Precondition: the pattern is valid and not already registered for this method (a programming error,
    ///   caught at startup).
    func on(_ method: HTTPMethod, _ pattern: String, bodyLimit: Int?, headCheck: HTTPHeadCheck?, handler: HTTPHandler)
}

extension RouteRegistrar {
    /// Registers `handler` for `method` and `pattern`, with no head check of its own.
    public func on(_ method: HTTPMethod, _ pattern: String, bodyLimit: Int?, handler: HTTPHandler) {
        on(method, pattern, bodyLimit: bodyLimit, headCheck: nil, handler: handler)
    }

    /// Registers a synchronous handler for `method` on `pattern`.
    public func on(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int? = nil,
        _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) {
        on(method, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }

    /// Registers an asynchronous handler for `method` on `pattern`.
    public func on(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int? = nil,
        _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        on(method, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }

    /// `GET`; also answers `HEAD` unless a `HEAD` route is registered for the same pattern.
    public func get(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        on(.get, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }
    /// Registers an asynchronous handler for `GET` on `pattern`.
    public func get(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        on(.get, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }
    /// Registers a `GET` handler that answers on the event loop when `immediate` can, and otherwise (it returns
    /// nil) runs `otherwise` asynchronously; see `HTTPHandler.syncOrAsync`.
    public func get(
        _ pattern: String, bodyLimit: Int? = nil, immediate: @escaping @Sendable (HTTPRequest) -> HTTPResponse?,
        otherwise: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        on(.get, pattern, bodyLimit: bodyLimit, handler: .syncOrAsync(immediate: immediate, otherwise: otherwise))
    }
    /// Registers a synchronous handler for `HEAD` on `pattern`.
    public func head(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        on(.head, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }
    /// Registers an asynchronous handler for `HEAD` on `pattern`.
    public func head(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        on(.head, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }
    /// Registers a synchronous handler for `POST` on `pattern`.
    public func post(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        on(.post, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }
    /// Registers an asynchronous handler for `POST` on `pattern`.
    public func post(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        on(.post, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }
    /// Registers a synchronous handler for `PUT` on `pattern`.
    public func put(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        on(.put, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }
    /// Registers an asynchronous handler for `PUT` on `pattern`.
    public func put(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        on(.put, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }
    /// Registers a synchronous handler for `DELETE` on `pattern`.
    public func delete(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        on(.delete, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }
    /// Registers an asynchronous handler for `DELETE` on `pattern`.
    public func delete(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        on(.delete, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }
    /// Registers a synchronous handler for `PATCH` on `pattern`.
    public func patch(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        on(.patch, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }
    /// Registers an asynchronous handler for `PATCH` on `pattern`.
    public func patch(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        on(.patch, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }
    /// Registers a synchronous handler for `OPTIONS` on `pattern`.
    public func options(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        on(.options, pattern, bodyLimit: bodyLimit, handler: .sync(handler))
    }
    /// Registers an asynchronous handler for `OPTIONS` on `pattern`.
    public func options(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        on(.options, pattern, bodyLimit: bodyLimit, handler: .async(handler))
    }
}
