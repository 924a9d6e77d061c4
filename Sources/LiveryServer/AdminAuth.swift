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
/// 4. The handler runs with the `Authorization` header removed (so no handler can leak the token) and
///    `X-Livery-Actor` set to the token's name; any `X-Livery-Actor` the client sent is dropped first, so the
///    header always names the authenticated token. Handlers read it with `actor(of:)`.
///
/// Rejections are logged at notice level with the request id and the reason, never with the header's value.
struct AdminAuth: Sendable {
    /// The request header carrying the authenticated token's name to handlers.
    static let actorHeader = "X-Livery-Actor"

    let tokens: TokenStore
    let logger: Logger
    let isReady: @Sendable () -> Bool

    /// The middleware for the admin route group.
    var middleware: HTTPMiddleware {
        HTTPMiddleware { handler in
            switch handler {
            case .sync(let next):
                .sync { request in
                    switch check(request) {
                    case .reject(let response): response
                    case .proceed(let forwarded): next(forwarded)
                    }
                }
            case .async(let next):
                .async { request in
                    switch check(request) {
                    case .reject(let response): response
                    case .proceed(let forwarded): await next(forwarded)
                    }
                }
            }
        }
    }

    /// The authenticated token's name on a request that passed the middleware.
    static func actor(of request: HTTPRequest) -> String {
        request.headers[actorHeader] ?? "unknown"
    }

    enum Decision {
        case reject(HTTPResponse)
        case proceed(HTTPRequest)
    }

    func check(_ request: HTTPRequest) -> Decision {
        let method = request.method.rawValue
        let principal: AdminPrincipal
        switch tokens.authenticate(request.headers["Authorization"]) {
        case .authenticated(let found):
            principal = found
        case .missing:
            return reject(request, .unauthorized(reason: "missing"), why: "no Authorization header")
        case .malformed:
            return reject(request, .unauthorized(reason: "malformed"), why: "Authorization is not Bearer <token>")
        case .unknownToken:
            return reject(request, .unauthorized(reason: "unknown"), why: "unknown token")
        }
        guard principal.role.allows(method: method) else {
            return reject(request, .forbidden(role: principal.role, method: method), why: "role \(principal.role.rawValue) may not \(method)", principal: principal)
        }
        guard isReady() else { return .reject(APIError.notReady.response) }
        var forwarded = request
        forwarded.headers.remove("Authorization")
        forwarded.headers.replaceOrAdd(name: Self.actorHeader, value: principal.name)
        return .proceed(forwarded)
    }

    private func reject(
        _ request: HTTPRequest, _ error: APIError, why: String, principal: AdminPrincipal? = nil
    ) -> Decision {
        var metadata: Logger.Metadata = [
            "request.id": "\(request.requestID)", "remote": "\(request.remoteAddress)", "reason": "\(why)",
            // The raw path (visible ASCII only, checked by the server), so a decoded %0A cannot forge log lines.
            "http.method": "\(request.method.rawValue)", "http.path": "\(request.target.prefix { $0 != "?" })",
        ]
        if let principal { metadata["token.name"] = "\(principal.name)" }
        logger.notice("admin request refused", metadata: metadata)
        return .reject(error.response)
    }
}
