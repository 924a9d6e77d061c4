/// A request without content, read where the server received it: the method, the route's parameter and the header
/// fields as bytes of the event loop's buffer, with no `HTTPRequest` built (no strings, arrays or header list).
///
/// What a handler's view path (`HTTPHandler.answeringViews(_:)`) is given. The bytes are the server's for the
/// length of that call only, so a view cannot be copied or kept (`~Copyable`, passed `borrowing`): what a handler
/// needs afterwards it copies out (`header(_:)` returns a string). Everything in it has passed the parser's checks.
public struct HTTPRequestView: ~Copyable {
    /// The request method (HEAD on a GET route: the server leaves the body out).
    public let method: HTTPMethod
    /// The protocol version of the request.
    public let version: HTTPVersion
    /// The index of the event loop serving the request (`HTTPRequest.eventLoopIndex`).
    public let eventLoopIndex: Int
    /// Which turn of that loop read the request (`HTTPRequest.eventLoopTurn`; never 0 here).
    public let eventLoopTurn: UInt64
    /// The head's bytes, as `parsed` describes them.
    private let head: UnsafeRawBufferPointer
    private let parsed: ParsedRequestHead
    /// The bytes of the route's one parameter (the last segment, which holds no `%`); empty without one.
    private let parameter: UnsafeRawBufferPointer

    /// `method` is `parsed.method(in: head)`, which the server has read already.
    init(
        head: UnsafeRawBufferPointer, parsed: ParsedRequestHead, method: HTTPMethod, parameter: UnsafeRawBufferPointer,
        eventLoopIndex: Int, eventLoopTurn: UInt64
    ) {
        self.method = method
        self.version = parsed.version
        self.head = head
        self.parsed = parsed
        self.parameter = parameter
        self.eventLoopIndex = eventLoopIndex
        self.eventLoopTurn = eventLoopTurn
    }

    /// Calls `body` with the UTF-8 of the route's `:name` parameter as it is in the path (a view is only made for a
    /// parameter with nothing to decode), or with no bytes when the route has none.
    public func withParameterUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(parameter.assumingMemoryBound(to: UInt8.self))
    }

    /// The first value of the header field `name` (compared without regard to case), or nil.
    public func header(_ name: String) -> String? {
        let value =
            name.utf8.withContiguousStorageIfAvailable {
                parsed.firstValue(named: UnsafeRawBufferPointer($0), in: head)
            }
            ?? Array(name.utf8).withUnsafeBytes { parsed.firstValue(named: $0, in: head) }
        return value.map { String(decoding: $0, as: UTF8.self) }
    }
}
