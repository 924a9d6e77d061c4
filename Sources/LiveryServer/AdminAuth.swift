import LiveryHTTP
import Logging

/// Authentication and authorization of the admin API, as middleware on the `/admin/v1` route group.
///
/// For each request, in this order:
/// 1. `Authorization: Bearer <token>` is checked against the tokens file (`TokenStore`). Missing → 401 with
///    `WWW-Authenticate: Bearer realm="livery"`; malformed or unknown → 401 with
///    `WWW-Authenticate: Bearer realm="livery", error="invalid_token"`.
/// 2. The token's role must allow the method: a `viewer` token may only `GET`/`HEAD` (otherwise 403).
/// 3. Until the catalog is loaded, 503 `not_ready`.
/// 4. The handler runs with the `Authorization` header removed (so no handler can leak the token),
///    `X-Livery-Actor` set to the token's name and `X-Livery-Role` to its role; any such header the client sent is
///    replaced, so they always describe the authenticated token. Handlers read them with `actor(of:)` and
///    `role(of:)`.
///
/// Steps 1 and 2 run twice. First as the middleware's head check, as soon as the request head is parsed: a refused
/// request is answered before any of its body is read (no 100 Continue, and the connection closes if a body was
/// announced), so a client without a valid token cannot make the server buffer an upload. Then again, with steps
/// 3 and 4, once the body has arrived, so a token revoked meanwhile is still refused and the handler sees only the
/// forwarded request.
///
/// Rejections are logged at notice level with the request id and the reason, never with the header's value; a
/// request refused at the head is logged once.
struct AdminAuth: Sendable {
    /// The request header carrying the authenticated token's name to handlers.
    static let actorHeader = "X-Livery-Actor"
    /// The request header carrying the authenticated token's role to handlers.
    static let roleHeader = "X-Livery-Role"

    let tokens: TokenStore
    let logger: Logger
    let isReady: @Sendable () -> Bool

    /// The middleware for the admin route group: the token and role checks as its head check, then the full
    /// `check` around the handler.
    var middleware: HTTPMiddleware {
        HTTPMiddleware(
            headCheck: HTTPHeadCheck { request in checkHead(request) },
            before: { request in
                switch check(request) {
                case .reject(let response): .respond(response)
                case .proceed(let forwarded): .forward(forwarded)
                }
            })
    }

    /// The authenticated token's name on a request that passed the middleware.
    static func actor(of request: HTTPRequest) -> String {
        request.headers[actorHeader] ?? "unknown"
    }

    /// The authenticated token's role on a request that passed the middleware.
    static func role(of request: HTTPRequest) -> AdminRole? {
        request.headers[roleHeader].flatMap(AdminRole.init(rawValue:))
    }

    enum Decision {
        case reject(HTTPResponse)
        case proceed(HTTPRequest)
    }

    /// Steps 1 to 4 on a complete request: the rejection, or the request to hand to the handler.
    func check(_ request: HTTPRequest) -> Decision {
        let principal: AdminPrincipal
        switch authorize(request) {
        case .success(let found): principal = found
        case .failure(let refusal): return .reject(refusal.response)
        }
        guard isReady() else { return .reject(APIError.notReady.response) }
        var forwarded = request
        forwarded.headers.remove("Authorization")
        forwarded.headers.replaceOrAdd(name: Self.actorHeader, value: principal.name)
        forwarded.headers.replaceOrAdd(name: Self.roleHeader, value: principal.role.rawValue)
        return .proceed(forwarded)
    }

    /// Steps 1 and 2 on a request whose body has not been read: the 401 or 403, or nil to read the body.
    func checkHead(_ request: HTTPRequest) -> HTTPResponse? {
        switch authorize(request) {
        case .success: nil
        case .failure(let refusal): refusal.response
        }
    }

    /// A logged 401 or 403.
    struct Refusal: Error {
        let response: HTTPResponse
    }

    /// Steps 1 and 2: the token's principal if it may use the request's method; a refusal is logged.
    private func authorize(_ request: HTTPRequest) -> Result<AdminPrincipal, Refusal> {
        let method = request.method.rawValue
        let principal: AdminPrincipal
        switch tokens.authenticate(request.headers["Authorization"]) {
        case .authenticated(let found):
            principal = found
        case .missing:
            return .failure(refuse(request, .unauthorized(reason: "missing"), why: "no Authorization header"))
        case .malformed:
            return .failure(
                refuse(request, .unauthorized(reason: "malformed"), why: "Authorization is not Bearer <token>"))
        case .unknownToken:
            return .failure(refuse(request, .unauthorized(reason: "unknown"), why: "unknown token"))
        }
        guard principal.role.allows(method: method) else {
            return .failure(
                refuse(
                    request, .forbidden(role: principal.role, method: method),
                    why: "role \(principal.role.rawValue) may not \(method)", principal: principal))
        }
        return .success(principal)
    }

    private func refuse(
        _ request: HTTPRequest, _ error: APIError, why: String, principal: AdminPrincipal? = nil
    ) -> Refusal {
        var metadata: Logger.Metadata = [
            "request.id": "\(request.requestID)", "remote": "\(request.remoteAddress)", "reason": "\(why)",
            // The raw path (visible ASCII only, checked by the server), so a decoded %0A cannot forge log lines;
            // never the query, nor the authority of an absolute-form target, which may carry user:password@.
            "http.method": "\(request.method.rawValue)", "http.path": "\(request.rawPath)"
        ]
        if let principal { metadata["token.name"] = "\(principal.name)" }
        logger.notice("admin request refused", metadata: metadata)
        return Refusal(response: error.response)
    }
}
