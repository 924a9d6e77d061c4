/// What answers a request: a synchronous function run right on the connection's event-loop thread (the hot
/// path: no task, no thread hop), or an asynchronous one for slow work.
///
/// While an asynchronous handler runs, its connection reads nothing more; other connections are unaffected, and
/// responses to pipelined requests still go out in request order.
public enum HTTPHandler: Sendable {
    /// Runs on the connection's event-loop thread, which serves many connections: it must not block (no disk
    /// waits, no locks held for long).
    case sync(@Sendable (HTTPRequest) -> HTTPResponse)
    /// Runs as a `Task`; the response is written when it returns.
    case async(@Sendable (HTTPRequest) async -> HTTPResponse)
    /// Tries `immediate` on the event-loop thread (under the same rules as `.sync`); when it returns nil (the
    /// answer needs slow work, such as building a file that is not there yet), runs `otherwise` as `.async` does.
    /// For routes whose common case is quick but whose rare case may block.
    case syncOrAsync(
        immediate: @Sendable (HTTPRequest) -> HTTPResponse?, otherwise: @Sendable (HTTPRequest) async -> HTTPResponse)
}
