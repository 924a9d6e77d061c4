import HTTPTestSupport
import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// View paths (`HTTPHandler.answeringViews(_:)`): a request without content on a route the router matches from its
/// bytes is answered from where it was received, and every other request goes to the handler as before.
@Suite struct RequestViewTests {
    /// Answers `view <name> <X-Tag> <method>` from a view and `request <name> <X-Tag> <method>` from a request; a
    /// view of the name `decline` answers nil (the handler answers instead).
    static let describing = HTTPHandler.sync { request in
        text("request", request.pathParameters["name"] ?? "", request.headers["x-tag"], request.method)
    }.answeringViews { view in
        let name = view.withParameterUTF8 { String(decoding: $0, as: UTF8.self) }
        guard name != "decline" else { return nil }
        #expect(view.eventLoopTurn > 0)
        return text("view", name, view.header("x-tag"), view.method)
    }

    static func text(_ source: String, _ name: String, _ tag: String?, _ method: HTTPMethod) -> HTTPResponse {
        HTTPResponse(body: .bytes(Array("\(source) \(name) \(tag ?? "-") \(method)".utf8)))
    }

    static func routes(_ router: Router) {
        TestServer.standardRoutes(router)
        router.on(.get, "/files/:name", describing)
        router.on(.get, "/plain", describing)
        router.on(.post, "/files/:name", describing)
        router.on(.get, "/checked/:name", headCheck: HTTPHeadCheck { _ in nil }, describing)
        let group = router.group("/wrapped", middleware: [HTTPMiddleware(before: { .forward($0) })])
        group.on(.get, "/:name", describing)
    }

    @Test func aRequestWithoutContentIsAnsweredFromItsViewWithItsParameterAndHeaderFields() async throws {
        try await withTestServer(routes: Self.routes) { server in
            try await blocking {
                let client = try server.client()
                #expect(
                    try client.get("/files/a.zip", headers: "X-Other: 1\r\nx-TAG: first\r\nX-Tag: second\r\n").text
                        == "view a.zip first GET")
                #expect(try client.get("/files/b").text == "view b - GET")
                // Only a field of that very name: not one it begins, nor one that begins it.
                #expect(
                    try client.get("/files/c", headers: "X-Tagged: no\r\nX-Ta: no\r\nX-TAG:yes\r\n").text
                        == "view c yes GET")
                // A parameterless pattern spelled exactly has its view path too (no parameter bytes).
                #expect(try client.get("/plain", headers: "X-Tag: t\r\n").text == "view  t GET")
                // HEAD on a GET route: the view sees HEAD, and the server leaves the body out.
                try client.send("HEAD /files/c HTTP/1.1\r\nHost: t\r\n\r\n")
                let head = try client.readResponse(forHead: true)
                #expect(head.status == 200)
                #expect(head.header("content-length") == "\("view c - HEAD".utf8.count)")
                #expect(head.body.isEmpty)
                // The same connection goes on serving after the HEAD.
                #expect(try client.get("/files/d").text == "view d - GET")
            }
        }
    }

    @Test func everyOtherRequestGoesToTheHandlerAsBefore() async throws {
        try await withTestServer(routes: Self.routes) { server in
            try await blocking {
                let client = try server.client()
                // The view declines: the handler answers the same request.
                #expect(try client.get("/files/decline", headers: "X-Tag: t\r\n").text == "request decline t GET")
                // A parameter with `%` to decode, a query, content, a head check, middleware: the handler answers.
                #expect(try client.get("/files/a%20b").text == "request a b - GET")
                #expect(try client.get("/files/q?x=1").text == "view q - GET")
                try client.send("GET /files/body HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
                #expect(try client.readResponse().text == "request body - GET")
                try client.send("POST /files/post HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
                #expect(try client.readResponse().text == "request post - POST")
                #expect(try client.get("/checked/c").text == "request c - GET")
                #expect(try client.get("/wrapped/w").text == "request w - GET")
                // An absolute-form target is decoded by the parser, so the handler answers it.
                try client.send("GET http://t/files/abs HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().text == "request abs - GET")
            }
        }
    }

    @Test func aHeadArrivingInPiecesOrPipelinedIsReadFromItsOwnBytes() async throws {
        try await withTestServer(routes: Self.routes) { server in
            try await blocking {
                let client = try server.client()
                // Split across reads: the head is parsed from the connection's own buffer, which it copies.
                try client.send("GET /files/split HTTP/1.1\r\nHo")
                usleep(50_000)
                try client.send("st: t\r\nX-Tag: late\r\n\r\n")
                #expect(try client.readResponse().text == "view split late GET")
                // Three in one send: each view reads its own head.
                try client.send(
                    "GET /files/one HTTP/1.1\r\nHost: t\r\nX-Tag: 1\r\n\r\n"
                        + "GET /files/decline HTTP/1.1\r\nHost: t\r\nX-Tag: 2\r\n\r\n"
                        + "GET /files/three HTTP/1.1\r\nHost: t\r\nX-Tag: 3\r\n\r\n")
                #expect(try client.readResponse().text == "view one 1 GET")
                #expect(try client.readResponse().text == "request decline 2 GET")
                #expect(try client.readResponse().text == "view three 3 GET")
            }
        }
    }

    @Test func aViewAnswerCarriesTheClientsRequestIDOrANewOne() async throws {
        try await withTestServer(routes: Self.routes) { server in
            try await blocking {
                let client = try server.client()
                let sent = try client.get("/files/id", headers: "X-Request-Id: client-id-7\r\n")
                #expect(sent.text == "view id - GET")
                #expect(sent.header("x-request-id") == "client-id-7")
                let generated = try client.get("/files/id")
                #expect(!(generated.header("x-request-id") ?? "").isEmpty)
                #expect(generated.header("x-request-id") != "client-id-7")
            }
        }
    }

    @Test func aHeadersFieldIsFoundByItsWholeNameOnly() {
        let head = Array("GET / HTTP/1.1\r\nHost: h\r\nXx:ab: v\r\nX-Tag-Extra: no\r\nx-tag: \t yes \r\n\r\n".utf8)
        var parser = HTTPRequestParser()
        let parsed = head.withUnsafeBytes { bytes -> ParsedRequestHead? in
            guard (try? parser.next(bytes))?.event == .head else { return nil }
            return parser.takeHead()
        }
        guard let parsed else {
            Issue.record("the head did not parse")
            return
        }
        head.withUnsafeBytes { bytes in
            func value(_ name: String) -> String? {
                Array(name.utf8).withUnsafeBytes { wanted in
                    parsed.firstValue(named: wanted, in: bytes).map { String(decoding: $0, as: UTF8.self) }
                }
            }
            #expect(value("X-TAG") == "yes")
            #expect(value("xx") == "ab: v")
            #expect(value("Xx:ab") == nil)
            #expect(value("X-Tag-Extra") == "no")
            #expect(value("X-Tag-Extr") == nil)
            #expect(value("host") == "h")
            #expect(value("Missing") == nil)
        }
    }
}
