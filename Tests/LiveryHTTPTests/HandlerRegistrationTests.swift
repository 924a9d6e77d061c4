import Testing

@testable import LiveryHTTP

/// Issue 13 point 5: one registration call for every kind of handler, and typed errors a handler throws answered
/// by the one mapping their type declares.
@Suite struct HandlerRegistrationTests {
    struct Refusal: HTTPResponseError {
        let why: String
        var response: HTTPResponse { .error(.conflict, code: "refused", message: why, details: [("field", "id")]) }
    }

    static func check(_ id: String?) throws(Refusal) -> String {
        guard let id, id != "taken" else { throw Refusal(why: "the id is taken") }
        return id
    }

    static func routes() -> FrozenRouter {
        let router = Router()
        router.on(
            .get, "/sync/:id",
            .sync { request throws(Refusal) in
                RouterTests.text("sync " + (try check(request.pathParameters["id"])))
            })
        router.on(
            .put, "/async/:id", bodyLimit: 10,
            .async { request throws(Refusal) in
                await Task.yield()
                return RouterTests.text("async " + (try check(request.pathParameters["id"])))
            })
        router.on(
            .get, "/either/:id",
            .syncOrAsync(
                immediate: { request throws(Refusal) in
                    let id = try check(request.pathParameters["id"])
                    return id == "slow" ? nil : RouterTests.text("now " + id)
                },
                otherwise: { request throws(Refusal) in
                    await Task.yield()
                    return RouterTests.text("later " + (try check(request.pathParameters["id"])))
                }))
        return router.freeze()
    }

    @Test("a route is registered by one call whatever its handler does, and keeps how it runs")
    func oneCallForEveryKind() async {
        let routes = Self.routes()
        guard case .sync = routes.route(method: .get, rawPath: "/sync/a").handler.kind,
            case .async = routes.route(method: .put, rawPath: "/async/a").handler.kind,
            case .syncOrAsync = routes.route(method: .get, rawPath: "/either/a").handler.kind
        else {
            Issue.record("every handler keeps its kind: sync on the event loop, async as a task, or both")
            return
        }
        #expect(routes.route(method: .put, rawPath: "/async/a").bodyLimit == 10)
        #expect(RouterTests.bodyText(await RouterTests.respond(routes, .get, "/sync/a").1) == "sync a")
        #expect(RouterTests.bodyText(await RouterTests.respond(routes, .put, "/async/a").1) == "async a")
        #expect(RouterTests.bodyText(await RouterTests.respond(routes, .get, "/either/a").1) == "now a")
        #expect(RouterTests.bodyText(await RouterTests.respond(routes, .get, "/either/slow").1) == "later slow")
    }

    @Test("a typed error thrown by any kind of handler is answered with the response its type maps it to")
    func thrownErrorsBecomeTheirResponse() async {
        let routes = Self.routes()
        let expected = #"{"error":{"code":"refused","message":"the id is taken","details":{"field":"id"}}}"#
        for (method, path) in [(HTTPMethod.get, "/sync/taken"), (.put, "/async/taken"), (.get, "/either/taken")] {
            let response = await RouterTests.respond(routes, method, path).1
            #expect(response.status == .conflict, "\(path)")
            #expect(response.headers["Cache-Control"] == "no-store", "\(path)")
            #expect(RouterTests.bodyText(response) == expected, "\(path)")
        }
    }

    @Test("middleware sees every kind of handler the same way and a thrown error still passes through it")
    func middlewareAroundThrowingHandlers() async {
        let router = Router()
        let tag = HTTPMiddleware.mapResponse { _, response in
            var response = response
            response.headers.add(name: "X-Trace", value: "tagged")
            return response
        }
        let group = router.group("/g", middleware: [tag])
        group.on(
            .get, "/:id",
            .sync { request throws(Refusal) in RouterTests.text(try Self.check(request.pathParameters["id"])) })
        let routes = router.freeze()
        guard case .sync = routes.route(method: .get, rawPath: "/g/a").handler.kind else {
            Issue.record("middleware must keep a sync handler on the event loop")
            return
        }
        let refused = await RouterTests.respond(routes, .get, "/g/taken").1
        #expect(refused.status == .conflict && refused.headers["X-Trace"] == "tagged")
    }
}
