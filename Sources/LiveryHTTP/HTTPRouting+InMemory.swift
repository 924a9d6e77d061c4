extension HTTPRouting {
    /// Answers `request` in memory, with no socket, as the server answers the same request once it has read it
    /// whole: for router-level tests of an application's routes (its rules, not the wire) and for internal dispatch.
    ///
    /// In the server's order:
    /// 1. the route is chosen by method and raw path (`route(method:rawPath:)`, so 404 and 405 are the server's),
    ///    and its path parameters are set on the request;
    /// 2. the route's head check (its group's middleware included) runs on a copy without body or trailers; a
    ///    response from it is the answer, and the handler does not run;
    /// 3. a body longer than the route's body limit (nil: `defaultBodyLimit`) is answered with the server's 413
    ///    `content_too_large`, and the handler does not run;
    /// 4. the handler runs, whatever its kind: a `.sync` one on the calling task, an `.async` one awaited, a
    ///    `.syncOrAsync` one quick path first; middleware wrapped around it runs as it does in the server. A view
    ///    path (`HTTPHandler.answeringViews(_:)`) is not taken: a request value is at hand, and the view path
    ///    answers as the handler does.
    ///
    /// What only the writing of a response adds is left out: `Content-Length`, `Date`, `Server`, `Connection`,
    /// `X-Request-Id`, the head-only form of a HEAD answer, and the 500 that replaces a response with an invalid
    /// header. The request's `requestID` and `remoteAddress` are passed on as given.
    ///
    /// - Parameters:
    ///   - request: the whole request; its `pathParameters` are replaced by the route's.
    ///   - defaultBodyLimit: the limit for routes registered without one, as `HTTPServer.Configuration`'s
    ///     `defaultBodyLimit` (1 MiB by default).
    /// - Returns: the handler's (or head check's, or the router's) response.
    public func respond(
        to request: HTTPRequest, defaultBodyLimit: Int = HTTPServer.Configuration().defaultBodyLimit
    ) async -> HTTPResponse {
        let route = route(method: request.method, rawPath: request.rawPath)
        var request = request
        request.pathParameters = route.pathParameters
        if let headCheck = route.headCheck {
            var head = request
            head.body = []
            head.trailers = [:]
            if let early = headCheck(head) { return early }
        }
        let limit = route.bodyLimit ?? defaultBodyLimit
        if request.body.count > limit { return HTTPParseError.contentTooLarge(limit: limit).response }
        switch route.handler.kind {
        case .sync(let handler):
            return handler(request)
        case .async(let handler):
            return await handler(request)
        case .syncOrAsync(let immediate, let otherwise):
            if let response = immediate(request) { return response }
            return await otherwise(request)
        }
    }
}
