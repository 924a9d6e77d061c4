/// What answers a request, made by one of three constructors whatever the handler does:
/// - ``sync(_:)`` runs right on the connection's event-loop thread (the hot path: no task, no thread hop);
/// - ``async(_:)`` runs as a `Task`, for slow work;
/// - ``syncOrAsync(immediate:otherwise:)`` tries the event loop first and falls back to a task when the quick path
///   returns nil.
///
/// Each may throw a typed error conforming to ``HTTPResponseError``; the error's `response` is sent (the
/// application maps its errors to HTTP in that one conformance). A closure that does not throw needs no
/// annotation; one that throws names its error type: `.sync { request throws(APIError) in … }`.
///
/// While an asynchronous handler runs, its connection reads nothing more; other connections are unaffected, and
/// responses to pipelined requests still go out in request order.
public struct HTTPHandler: Sendable {
    /// How the server runs the handler; only the server and ``intercepted(before:after:)`` look at it.
    @usableFromInline
    enum Kind: Sendable {
        case sync(@Sendable (HTTPRequest) -> HTTPResponse)
        case async(@Sendable (HTTPRequest) async -> HTTPResponse)
        case syncOrAsync(
            immediate: @Sendable (HTTPRequest) -> HTTPResponse?,
            otherwise: @Sendable (HTTPRequest) async -> HTTPResponse)
    }

    @usableFromInline
    let kind: Kind
    /// Tried first, on the event loop, for a request without content on a route the router matches from its bytes
    /// alone (`answeringViews(_:)`); nil for none.
    let view: (@Sendable (borrowing HTTPRequestView) -> HTTPResponse?)?

    @usableFromInline
    init(kind: Kind) {
        self.kind = kind
        self.view = nil
    }

    init(kind: Kind, view: (@Sendable (borrowing HTTPRequestView) -> HTTPResponse?)?) {
        self.kind = kind
        self.view = view
    }

    /// The same handler behind closures of its own: a call runs the registered closure, but the closures the
    /// server copies for each request (retaining their contexts) belong to the replica, so each event loop's
    /// router (`HTTPRouting.replica()`) retains contexts no other loop touches.
    func replica() -> HTTPHandler {
        let replicaKind: Kind =
            switch kind {
            case .sync(let body):
                .sync { request in body(request) }
            case .async(let body):
                .async { request in await body(request) }
            case .syncOrAsync(let immediate, let otherwise):
                .syncOrAsync(
                    immediate: { request in immediate(request) }, otherwise: { request in await otherwise(request) })
            }
        guard let view else { return HTTPHandler(kind: replicaKind) }
        return HTTPHandler(
            kind: replicaKind, view: { @Sendable (request: borrowing HTTPRequestView) in view(request) })
    }

    /// This handler with `quick` tried first, right on the event loop, for each request without content whose
    /// route the router matches from the path's bytes alone (a pattern of literal segments, or literal segments
    /// and then one parameter whose value holds no `%`): `quick` reads the request where it was received
    /// (`HTTPRequestView`), so no `HTTPRequest` is built for it. When it returns nil, or for any other request, this
    /// handler runs as it would have. For a route answered many times a second whose common answer needs only the
    /// parameter and a few header fields (the package download); `quick` must answer as the handler would.
    ///
    /// Middleware sees `HTTPRequest`s: a handler wrapped by it (`intercepted(before:after:)`) has no view path.
    public func answeringViews(
        _ quick: @escaping @Sendable (borrowing HTTPRequestView) -> HTTPResponse?
    ) -> HTTPHandler {
        HTTPHandler(kind: kind, view: quick)
    }

    /// Runs on the connection's event-loop thread, which serves many connections: it must not block (no disk
    /// waits, no locks held for long). A handler that cannot fail is run as it is, with no wrapper: the poll's
    /// hot path costs what it did before handlers could throw.
    public static func sync(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> HTTPHandler {
        HTTPHandler(kind: .sync(body))
    }

    /// Runs on the connection's event-loop thread, which serves many connections: it must not block (no disk
    /// waits, no locks held for long).
    @inlinable
    public static func sync<Failure: HTTPResponseError>(
        _ body: @escaping @Sendable (HTTPRequest) throws(Failure) -> HTTPResponse
    ) -> HTTPHandler {
        HTTPHandler(
            kind: .sync { request in
                do throws(Failure) { return try body(request) } catch { return error.response }
            })
    }

    /// Runs as a `Task`; the response is written when it returns.
    @inlinable
    public static func async<Failure: HTTPResponseError>(
        _ body: @escaping @Sendable (HTTPRequest) async throws(Failure) -> HTTPResponse
    ) -> HTTPHandler {
        HTTPHandler(
            kind: .async { request in
                do throws(Failure) { return try await body(request) } catch { return error.response }
            })
    }

    /// Tries `immediate` on the event-loop thread (under the same rules as ``sync(_:)``); when it returns nil (the
    /// answer needs slow work, such as building a file that is not there yet), runs `otherwise` as ``async(_:)``
    /// does. For routes whose common case is quick but whose rare case may block. Handlers that cannot fail are
    /// run as they are, with no wrapper, as for ``sync(_:)`` (the package download is such a route).
    public static func syncOrAsync(
        immediate: @escaping @Sendable (HTTPRequest) -> HTTPResponse?,
        otherwise: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) -> HTTPHandler {
        HTTPHandler(kind: .syncOrAsync(immediate: immediate, otherwise: otherwise))
    }

    /// ``syncOrAsync(immediate:otherwise:)`` for handlers that may throw: each error becomes its response.
    @inlinable
    public static func syncOrAsync<Quick: HTTPResponseError, Slow: HTTPResponseError>(
        immediate: @escaping @Sendable (HTTPRequest) throws(Quick) -> HTTPResponse?,
        otherwise: @escaping @Sendable (HTTPRequest) async throws(Slow) -> HTTPResponse
    ) -> HTTPHandler {
        HTTPHandler(
            kind: .syncOrAsync(
                immediate: { request in
                    do throws(Quick) { return try immediate(request) } catch { return error.response }
                },
                otherwise: { request in
                    do throws(Slow) { return try await otherwise(request) } catch { return error.response }
                }))
    }

    /// This handler behind `before` (which may answer early or forward a changed request) and `after` (which
    /// transforms every response the handler gives). The one place that knows the three kinds, so middleware
    /// never switches on them; a synchronous handler stays synchronous.
    ///
    /// For ``syncOrAsync(immediate:otherwise:)``, `before` runs again ahead of `otherwise` (it receives the
    /// original request, so it forwards its own copy).
    public func intercepted(
        before: @escaping @Sendable (HTTPRequest) -> HTTPMiddleware.Decision,
        after: @escaping @Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse
    ) -> HTTPHandler {
        switch kind {
        case .sync(let next):
            return HTTPHandler(
                kind: .sync { request in
                    switch before(request) {
                    case .respond(let response): response
                    case .forward(let forwarded): after(forwarded, next(forwarded))
                    }
                })
        case .async(let next):
            return HTTPHandler(
                kind: .async { request in
                    switch before(request) {
                    case .respond(let response): response
                    case .forward(let forwarded): after(forwarded, await next(forwarded))
                    }
                })
        case .syncOrAsync(let immediate, let otherwise):
            return HTTPHandler(
                kind: .syncOrAsync(
                    immediate: { request in
                        switch before(request) {
                        case .respond(let response): response
                        case .forward(let forwarded): immediate(forwarded).map { after(forwarded, $0) }
                        }
                    },
                    otherwise: { request in
                        switch before(request) {
                        case .respond(let response): response
                        case .forward(let forwarded): after(forwarded, await otherwise(forwarded))
                        }
                    }))
        }
    }
}

/// An error a handler may throw: it carries the HTTP answer it stands for. An application maps its errors to
/// HTTP in one place by conforming its error type (Livery's `APIError`); the server sends `response`.
public protocol HTTPResponseError: Error {
    /// The answer sent for this error.
    var response: HTTPResponse { get }
}

/// Handlers that cannot fail.
extension Never: HTTPResponseError {
    public var response: HTTPResponse { switch self {} }
}
