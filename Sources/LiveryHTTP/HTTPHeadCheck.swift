/// A check that runs as soon as a request's head is parsed and its route matched, before any byte of its body is
/// read: the place to refuse a request that must not make the server buffer its body (for example a 401 for a
/// missing credential on an upload route).
///
/// The check receives the request as its handler would, except that `body` and `trailers` are always empty
/// (nothing of the body has been read yet); path parameters, request id and remote address are already set.
/// It runs synchronously on the connection's event-loop thread, like a `.sync` handler, so it must not block.
///
/// Returning nil lets the request go on: the server sends `100 Continue` if the client asked for it, reads the
/// body (enforcing the route's body limit) and runs the handler. Returning a response answers with it at once:
/// - no `100 Continue` is ever sent for that request, so a client waiting on one gets the final status instead
///   (RFC 9110 §10.1.1);
/// - if the request announced content (a chunked body or a non-zero `Content-Length`), the response carries
///   `Connection: close`, and the connection shuts down after writing it, discarding whatever the client still
///   sends (lingering close), so the unread body is never buffered nor parsed as a next request. A request
///   without content keeps its connection alive as usual;
/// - the handler does not run.
///
/// Head checks run before the route's body limit is enforced, so a refused request gets the check's answer
/// rather than a 413.
public struct HTTPHeadCheck: Sendable {
    private let check: @Sendable (HTTPRequest) -> HTTPResponse?

    /// A head check from a function returning the response to answer with, or nil to let the request go on.
    public init(_ check: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) {
        self.check = check
    }

    /// Runs the check on a request whose body has not been read.
    public func callAsFunction(_ request: HTTPRequest) -> HTTPResponse? { check(request) }

    /// One check running `checks` in order and answering with the first response; nil when `checks` is empty.
    static func chain(_ checks: [HTTPHeadCheck]) -> HTTPHeadCheck? {
        switch checks.count {
        case 0: return nil
        case 1: return checks[0]
        default:
            return HTTPHeadCheck { request in
                for check in checks {
                    if let response = check(request) { return response }
                }
                return nil
            }
        }
    }
}
