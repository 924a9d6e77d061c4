/// Receives the server's events, for metrics. Every method has an empty default implementation.
///
/// Called synchronously on the connection's event-loop thread, so implementations must be fast and thread-safe
/// (atomics, a `Mutex`, or handing the event to a queue); they run for every request. An observer is an object, so
/// the server hands it on with one reference count rather than copying a value.
public protocol HTTPServerObserver: AnyObject, Sendable {
    /// A connection was accepted (also called for connections refused with 503 when over `maxConnections`).
    func connectionOpened(_ event: HTTPConnectionEvent)
    /// A connection was closed, for whatever reason; its descriptor is released and it no longer counts
    /// towards `maxConnections`.
    func connectionClosed(_ event: HTTPConnectionEvent)
    /// A response was fully handed to the connection (written or queued for writing).
    func requestCompleted(_ event: HTTPRequestEvent)
}

extension HTTPServerObserver {
    public func connectionOpened(_ event: HTTPConnectionEvent) {}
    public func connectionClosed(_ event: HTTPConnectionEvent) {}
    public func requestCompleted(_ event: HTTPRequestEvent) {}
}

/// A connection opening or closing.
public struct HTTPConnectionEvent: Sendable {
    /// The peer, such as `127.0.0.1:53012`.
    public let remoteAddress: String
    /// Whether the connection was refused with 503 because the server was at `maxConnections`.
    public let refused: Bool
}

/// One answered request.
public struct HTTPRequestEvent: Sendable {
    /// The method; nil when the request was rejected before its head could be parsed (400, 431, 408...).
    public let method: HTTPMethod?
    /// The route's pattern, such as `/api/v1/packages/:sign`; nil for 404, 405 and rejected requests.
    public let routePattern: String?
    /// The status sent.
    public let status: HTTPStatus
    /// Bytes of the response: head plus body (for HEAD, the head only).
    public let bytesSent: Int
    /// From the complete head to the response handed to the connection, in nanoseconds.
    public let nanoseconds: Int64
    /// From the complete head to the response handed to the connection.
    public var duration: Duration { .nanoseconds(nanoseconds) }
    /// The request id echoed in `X-Request-Id`.
    public let requestID: String
    /// The event loop that served the request, `0..<eventLoopCount`: events of one loop come from one thread, one at
    /// a time, so an observer may keep state per loop that no other thread writes.
    public let loopIndex: Int

    public init(
        method: HTTPMethod?, routePattern: String?, status: HTTPStatus, bytesSent: Int, nanoseconds: Int64,
        requestID: String, loopIndex: Int
    ) {
        self.method = method
        self.routePattern = routePattern
        self.status = status
        self.bytesSent = bytesSent
        self.nanoseconds = nanoseconds
        self.requestID = requestID
        self.loopIndex = loopIndex
    }
}
