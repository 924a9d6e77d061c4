import Testing

@testable import LiveryHTTP

/// The router and its frozen responder, called directly without sockets.
@Suite struct RouterTests {
    static func text(_ value: String) -> HTTPResponse { HTTPResponse(body: .bytes(Array(value.utf8))) }

    /// Resolves and runs a request the way the server does.
    static func respond(
        _ responder: some HTTPRouting, _ method: HTTPMethod, _ target: String
    ) async -> (HTTPRoute, HTTPResponse) {
        let request = HTTPRequest(method: method, target: target)
        return (responder.route(method: method, rawPath: request.rawPath), await responder.respond(to: request))
    }

    static func bodyText(_ response: HTTPResponse) -> String {
        if case .bytes(let bytes) = response.body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    @Test func matchesLiteralAndParameterSegments() async {
        let router = Router()
        router.on(
            .get, "/api/v1/packages/:sign",
            .sync { request in Self.text("package \(request.pathParameters["sign"] ?? "?")") })
        router.on(
            .get, "/api/v1/packages/:sign/files/:name",
            .sync { request in
                Self.text("\(request.pathParameters["sign"] ?? "?")/\(request.pathParameters["name"] ?? "?")")
            })
        let responder = router.freeze()
        let (route, response) = await Self.respond(responder, .get, "/api/v1/packages/xmas-2026")
        #expect(route.pattern == "/api/v1/packages/:sign")
        #expect(route.pathParameters == ["sign": "xmas-2026"])
        #expect(Self.bodyText(response) == "package xmas-2026")
        let (_, nested) = await Self.respond(responder, .get, "/api/v1/packages/a/files/b.png?x=1")
        #expect(Self.bodyText(nested) == "a/b.png")
    }

    @Test func decodesParametersPerSegmentSoEncodedSlashesStayInside() async {
        let router = Router()
        router.on(.get, "/files/:name", .sync { request in Self.text(request.pathParameters["name"] ?? "?") })
        let (route, response) = await Self.respond(router.freeze(), .get, "/files/a%2Fb%20c")
        #expect(route.pattern == "/files/:name")
        #expect(Self.bodyText(response) == "a/b c")
    }

    @Test func prefersLiteralOverParameterAndBacktracks() async {
        let router = Router()
        router.on(.get, "/a/b", .sync { _ in Self.text("literal") })
        router.on(.get, "/a/:x", .sync { _ in Self.text("parameter") })
        router.on(.get, "/a/b/c", .sync { _ in Self.text("deep literal") })
        router.on(.get, "/a/:x/d", .sync { _ in Self.text("deep parameter") })
        router.on(.post, "/a/:x", .sync { _ in Self.text("post parameter") })
        let responder = router.freeze()
        #expect(Self.bodyText(await Self.respond(responder, .get, "/a/b").1) == "literal")
        #expect(Self.bodyText(await Self.respond(responder, .get, "/a/z").1) == "parameter")
        #expect(Self.bodyText(await Self.respond(responder, .get, "/a/b/c").1) == "deep literal")
        #expect(Self.bodyText(await Self.respond(responder, .get, "/a/b/d").1) == "deep parameter")
        #expect(Self.bodyText(await Self.respond(responder, .post, "/a/b").1) == "post parameter")
        // A literal path spelled with escapes is the same path.
        #expect(Self.bodyText(await Self.respond(responder, .get, "/a/%62").1) == "literal")
        #expect(Self.bodyText(await Self.respond(responder, .head, "/a/b/c").1) == "deep literal")
    }

    /// Paths that end in a parameter after literal segments (the package and admin routes) are found without the
    /// tree walk, and exactly as the walk finds them: a literal sibling still wins, a method the pattern lacks
    /// backtracks to another pattern, an encoded segment is decoded, an empty one never matches.
    @Test func aPathEndingInAParameterIsRoutedAsTheTreeWalkRoutesIt() {
        let router = Router()
        router.on(.get, "/skins/:id", .sync { _ in Self.text("skin") })
        router.on(.get, "/skins/export", .sync { _ in Self.text("export") })
        router.on(.post, "/skins/:name", .sync { _ in Self.text("post") })
        router.on(.delete, "/:area/:item", .sync { _ in Self.text("generic") })
        router.on(.get, "/:id", .sync { _ in Self.text("root") })
        let routing = router.freeze()
        let cases: [(HTTPMethod, String, String?, PathParameters)] = [
            (.get, "/skins/xmas", "/skins/:id", ["id": "xmas"]),
            (.head, "/skins/xmas", "/skins/:id", ["id": "xmas"]),
            (.post, "/skins/xmas", "/skins/:name", ["name": "xmas"]),
            (.get, "/skins/export", "/skins/export", [:]),
            (.delete, "/skins/xmas", "/:area/:item", ["area": "skins", "item": "xmas"]),
            (.get, "/skins/a%20b", "/skins/:id", ["id": "a b"]),
            (.get, "/skins/%65xport", "/skins/export", [:]),
            (.get, "/%73kins/xmas", "/skins/:id", ["id": "xmas"]),
            (.get, "/skins/", nil, [:]),
            (.get, "/skins//xmas", nil, [:]),
            (.get, "/xmas", "/:id", ["id": "xmas"]),
            (.put, "/skins/xmas", nil, [:])
        ]
        for (method, path, pattern, parameters) in cases {
            let route = routing.route(method: method, rawPath: Substring(path))
            #expect(route.pattern == pattern, "\(method) \(path)")
            #expect(route.pathParameters == parameters, "\(method) \(path)")
        }
    }

    /// Each event loop routes with its own replica of the frozen router: the same answers, from targets, pattern
    /// strings and handler closures of its own, so two loops never retain one object for a request.
    @Test func theLastSlashIsFoundWhereverItFallsInTheWordsReadFromTheEnd() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...40 {
            // Slashes often and rarely, among any other bytes (a "/" is 0x2F).
            for oneIn in [2, 12] {
                for _ in 0..<50 {
                    let bytes = (0..<count).map { _ in
                        Int.random(in: 0..<oneIn, using: &generator) == 0
                            ? UInt8(ascii: "/") : UInt8.random(in: 0...255, using: &generator)
                    }
                    let expected = (bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
                    let found = bytes.withUnsafeBufferPointer {
                        FrozenRouter.lastSlashEnd($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: count)
                    }
                    #expect(found == expected, "\(bytes)")
                }
            }
        }
    }

    @Test func aTrailingParameterOfAnyLengthIsTheWholeLastSegmentReadInPlace() async {
        let router = Router()
        router.on(.get, "/api/v1/packages/:file", .sync { request in Self.text(request.pathParameters["file"] ?? "?") })
        let responder = router.freeze()
        for length in 0...40 {
            let name = String((0..<length).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
            let (route, response) = await Self.respond(responder, .get, "/api/v1/packages/" + name + "?x=/y")
            if length == 0 {
                #expect(route.pattern == nil, "an empty last segment is no value")
                continue
            }
            #expect(route.pattern == "/api/v1/packages/:file")
            #expect(Self.bodyText(response) == name)
            #expect(route.pathParameters.withUTF8("file") { String(decoding: $0, as: UTF8.self) } == name)
            #expect(route.pathParameters.withUTF8("sign") { _ in true } == nil)
            let (nested, _) = await Self.respond(responder, .get, "/api/v1/packages/" + name + "/more")
            #expect(nested.pattern == nil, "a slash after the name is another path")
        }
    }

    @Test func aReplicaRoutesAndAnswersAsTheOriginalWithObjectsOfItsOwn() async {
        let router = Router()
        router.on(.get, "/skins/:id", .sync { request in Self.text("skin \(request.pathParameters["id"] ?? "")") })
        router.on(.get, "/skins/export", .async { _ in Self.text("export") })
        router.on(
            .post, "/skins/:name/versions",
            .syncOrAsync(
                immediate: { request in request.pathParameters["name"] == "a b" ? Self.text("quick") : nil },
                otherwise: { _ in Self.text("slow") }))
        let original = router.freeze()
        let replica = original.replica()
        for (method, target, body) in [
            (HTTPMethod.get, "/skins/xmas", "skin xmas"), (.get, "/skins/export", "export"),
            (.post, "/skins/a%20b/versions", "quick"), (.post, "/skins/c/versions", "slow")
        ] {
            let (_, response) = await Self.respond(replica, method, target)
            #expect(Self.bodyText(response) == body, "\(method) \(target)")
        }
        for (method, path) in [
            (HTTPMethod.get, "/skins/xmas"), (.head, "/skins/xmas"), (.get, "/skins/export"),
            (.post, "/skins/a%20b/versions"), (.put, "/skins/xmas"), (.get, "/nowhere")
        ] {
            let expected = original.route(method: method, rawPath: Substring(path))
            let replicated = replica.route(method: method, rawPath: Substring(path))
            #expect(replicated.pattern == expected.pattern, "\(method) \(path)")
            #expect(replicated.pathParameters == expected.pathParameters, "\(method) \(path)")
            #expect(replicated.bodyLimit == expected.bodyLimit, "\(method) \(path)")
            if expected.pattern != nil {
                #expect(replicated.target !== expected.target, "\(method) \(path): a target of its own")
                #expect(
                    replicated.pattern?.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
                        != expected.pattern?.utf8.withContiguousStorageIfAvailable { $0.baseAddress },
                    "\(method) \(path): a pattern string of its own")
            }
        }
    }

    @Test func unknownPathIsNotFoundJSON() async {
        let router = Router()
        router.on(.get, "/known", .sync { _ in Self.text("ok") })
        let responder = router.freeze()
        for target in ["/unknown", "/known/extra", "/", "/known/", "//known", "*"] {
            let (route, response) = await Self.respond(responder, .get, target)
            #expect(route.pattern == nil)
            #expect(response.status == .notFound, "\(target)")
            #expect(
                Self.bodyText(response)
                    == #"{"error":{"code":"not_found","message":"No resource at this path.","details":{"field":"path","reason":"no resource at this path"}}}"#
            )
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.headers["cache-control"] == "no-store")
        }
    }

    @Test func parametersNeverMatchEmptySegments() async {
        let router = Router()
        router.on(.get, "/items/:id", .sync { _ in Self.text("item") })
        #expect(await Self.respond(router.freeze(), .get, "/items/").1.status == .notFound)
    }

    @Test func wrongMethodIsMethodNotAllowedWithAllow() async {
        let router = Router()
        router.on(.get, "/thing", .sync { _ in Self.text("get") })
        router.on(.put, "/thing", .sync { _ in Self.text("put") })
        let (route, response) = await Self.respond(router.freeze(), .delete, "/thing")
        #expect(route.pattern == nil)
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, PUT, HEAD")
        #expect(Self.bodyText(response).contains(#""code":"method_not_allowed""#))
    }

    @Test func headIsServedByGetUnlessRegistered() async {
        let router = Router()
        router.on(.get, "/g", .sync { _ in Self.text("from get") })
        router.on(.get, "/h", .sync { _ in Self.text("from get") })
        router.on(.head, "/h", .sync { _ in Self.text("from head") })
        let responder = router.freeze()
        #expect(Self.bodyText(await Self.respond(responder, .head, "/g").1) == "from get")
        #expect(Self.bodyText(await Self.respond(responder, .head, "/h").1) == "from head")
        #expect(await Self.respond(responder, .head, "/missing").1.status == .notFound)
    }

    @Test func routesCarryTheirBodyLimit() {
        let router = Router()
        router.on(.post, "/upload", bodyLimit: 64 << 20, .sync { _ in Self.text("ok") })
        router.on(.post, "/default", .sync { _ in Self.text("ok") })
        let responder = router.freeze()
        #expect(responder.route(method: .post, rawPath: "/upload").bodyLimit == 64 << 20)
        #expect(responder.route(method: .post, rawPath: "/default").bodyLimit == nil)
        #expect(responder.route(method: .post, rawPath: "/nowhere").bodyLimit == nil)
    }

    @Test func asyncHandlersAreKeptAsync() async {
        let router = Router()
        router.on(
            .get, "/slow",
            .async { _ async in
                await Task.yield()
                return Self.text("slow")
            })
        let responder = router.freeze()
        guard case .async = responder.route(method: .get, rawPath: "/slow").handler.kind else {
            Issue.record("expected an async handler")
            return
        }
        #expect(Self.bodyText(await Self.respond(responder, .get, "/slow").1) == "slow")
    }

    @Test func groupsPrefixPathsAndRunMiddlewareOutermostFirst() async {
        let router = Router()
        let tag = { (label: String) in
            HTTPMiddleware.mapResponse { _, response in
                var response = response
                response.headers.add(name: "X-Trace", value: label)
                return response
            }
        }
        let admin = router.group("/admin", middleware: [tag("outer")])
        let users = admin.group("/users", middleware: [tag("inner")])
        users.on(.get, "/:id", .sync { request in Self.text("user \(request.pathParameters["id"] ?? "?")") })
        admin.on(.get, "/", .sync { _ in Self.text("admin root") })
        let responder = router.freeze()
        let (route, response) = await Self.respond(responder, .get, "/admin/users/7")
        #expect(route.pattern == "/admin/users/:id")
        #expect(Self.bodyText(response) == "user 7")
        // mapResponse runs after the handler, so the innermost middleware adds its header first.
        #expect(response.headers.values("X-Trace") == ["inner", "outer"])
        #expect(Self.bodyText(await Self.respond(responder, .get, "/admin").1) == "admin root")
    }

    @Test func filterMiddlewareCanAnswerInsteadOfTheHandler() async {
        let router = Router()
        let requireToken = HTTPMiddleware.filter { request in
            request.headers["authorization"] == "Bearer secret"
                ? nil : .error(.unauthorized, code: "unauthorized", message: "Missing or wrong token.")
        }
        let admin = router.group("/admin", middleware: [requireToken])
        admin.on(.get, "/stats", .sync { _ in Self.text("stats") })
        admin.on(.post, "/rebuild", .async { _ async in Self.text("rebuilt") })
        let responder = router.freeze()

        #expect(await Self.respond(responder, .get, "/admin/stats").1.status == .unauthorized)
        #expect(await Self.respond(responder, .post, "/admin/rebuild").1.status == .unauthorized)

        let route = responder.route(method: .get, rawPath: "/admin/stats")
        guard case .sync(let handler) = route.handler.kind else {
            Issue.record("a filter must keep a synchronous handler synchronous")
            return
        }
        let authorized = HTTPRequest(method: .get, target: "/admin/stats", headers: ["Authorization": "Bearer secret"])
        #expect(Self.bodyText(handler(authorized)) == "stats")
    }

    @Test func middlewareWrapsBothPathsOfASyncOrAsyncHandler() async {
        let router = Router()
        let requireToken = HTTPMiddleware.filter { request in
            request.headers["authorization"] == "Bearer secret"
                ? nil : .error(.unauthorized, code: "unauthorized", message: "Missing or wrong token.")
        }
        let tag = HTTPMiddleware.mapResponse { _, response in
            var response = response
            response.headers.add(name: "X-Trace", value: "tagged")
            return response
        }
        let group = router.group("/files", middleware: [requireToken, tag])
        group.on(
            .get, "/:name",
            .syncOrAsync(
                immediate: { request in request.pathParameters["name"] == "ready" ? Self.text("now") : nil },
                otherwise: { _ in Self.text("later") }))
        let responder = router.freeze()
        let route = responder.route(method: .get, rawPath: "/files/ready")
        guard case .syncOrAsync(let immediate, _) = route.handler.kind else {
            Issue.record("middleware must keep a sync-or-async handler's fast path")
            return
        }
        var ready = HTTPRequest(method: .get, target: "/files/ready", headers: ["Authorization": "Bearer secret"])
        ready.pathParameters = ["name": "ready"]
        let fast = immediate(ready)
        #expect(fast.map(Self.bodyText) == "now" && fast?.headers["X-Trace"] == "tagged")

        var pending = HTTPRequest(method: .get, target: "/files/pending", headers: ["Authorization": "Bearer secret"])
        pending.pathParameters = ["name": "pending"]
        #expect(immediate(pending) == nil)
        #expect(await Self.respond(responder, .get, "/files/ready").1.status == .unauthorized)
    }

    @Test func routePatternsAreValidated() {
        #expect(RoutePattern("/a/:x/b") != nil)
        #expect(RoutePattern("/") != nil)
        #expect(RoutePattern("a/b") == nil)
        #expect(RoutePattern("/a/:") == nil)
        #expect(RoutePattern("/:x/:x") == nil)
        #expect(RoutePattern("/a%20b") == nil)
        #expect(RoutePattern.join("/api/", "/v1") == "/api/v1")
        #expect(RoutePattern.join("/api", "/") == "/api")
        #expect(RoutePattern.join("", "/") == "/")
    }

    @Test func freezingSnapshotsTheRoutes() {
        let router = Router()
        router.on(.get, "/before", .sync { _ in Self.text("ok") })
        let frozen = router.freeze()
        router.on(.get, "/after", .sync { _ in Self.text("ok") })
        #expect(frozen.route(method: .get, rawPath: "/before").pattern == "/before")
        #expect(frozen.route(method: .get, rawPath: "/after").pattern == nil)
    }
}
