import Dispatch
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import LiveryHTTP

/// Head checks: requests refused once their head is parsed, before any of the body is read.
@Suite struct HeadCheckTests {
    /// Refuses every request without `X-Key: open` with a 401.
    static let requireKey = HTTPHeadCheck { request in
        request.headers["x-key"] == "open" ? nil : .error(.unauthorized, code: "unauthorized", message: "No key.")
    }

    /// `/guarded/*` behind a middleware carrying `requireKey`; `calls` counts handler runs.
    static func guardedRoutes(calls: CallCounter) -> @Sendable (Router) -> Void {
        { router in
            TestServer.standardRoutes(router)
            let guarded = router.group("/guarded", middleware: [HTTPMiddleware(headCheck: requireKey)])
            guarded.on(
                .post, "/upload", bodyLimit: 64 << 20,
                .sync { request in
                    calls.increment()
                    return HTTPResponse(body: .bytes(Array("got \(request.body.count)".utf8)))
                })
            guarded.on(
                .post, "/small", bodyLimit: 16,
                .sync { request in
                    calls.increment()
                    return HTTPResponse(body: .bytes(request.body))
                })
            guarded.on(
                .get, "/page",
                .sync { _ in
                    calls.increment()
                    return HTTPResponse(body: .bytes(Array("page".utf8)))
                })
        }
    }

    @Test func refusesAnAnnouncedFiftyMegabyteBodyBeforeAnyOfItIsSent() async throws {
        let calls = CallCounter()
        let observer = SignalingObserver()
        try await withTestServer(configure: { $0.observer = observer }, routes: Self.guardedRoutes(calls: calls)) {
            server in
            try await blocking {
                let client = try server.client()
                // Only the head: a server waiting for the body would time the read out instead of answering.
                try client.send("POST /guarded/upload HTTP/1.1\r\nHost: t\r\nContent-Length: 50000000\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 401)
                #expect(response.closesConnection)
                #expect(response.text.contains(#""code":"unauthorized""#))
                // The server shut its side down without waiting for a byte of the body: nothing is buffered.
                #expect(try client.closesWithoutData())
                client.close()
                #expect(observer.waitForClose(), "the server closes the connection")
            }
        }
        #expect(calls.value == 0)
    }

    @Test func refusesAChunkedBodyBeforeAnyChunkIsSent() async throws {
        let calls = CallCounter()
        try await withTestServer(routes: Self.guardedRoutes(calls: calls)) { server in
            try await blocking {
                let client = try server.client()
                try client.send("POST /guarded/upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 401)
                #expect(response.closesConnection)
                #expect(try client.closesWithoutData())
            }
        }
        #expect(calls.value == 0)
    }

    @Test func refusedRequestExpectingContinueGetsTheFinalStatusAndNoContinue() async throws {
        let calls = CallCounter()
        try await withTestServer(routes: Self.guardedRoutes(calls: calls)) { server in
            try await blocking {
                let client = try server.client()
                try client.send(
                    "POST /guarded/upload HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 50000000\r\n\r\n"
                )
                // readResponse returns interim responses too, so a 100 would show up here first.
                let response = try client.readResponse()
                #expect(response.status == 401)
                #expect(response.closesConnection)
                #expect(try client.closesWithoutData())
            }
        }
        #expect(calls.value == 0)
    }

    @Test func acceptedRequestGetsContinueAndItsBodyIsRead() async throws {
        let calls = CallCounter()
        try await withTestServer(routes: Self.guardedRoutes(calls: calls)) { server in
            try await blocking {
                let client = try server.client()
                try client.send(
                    "POST /guarded/upload HTTP/1.1\r\nHost: t\r\nX-Key: open\r\nExpect: 100-continue\r\n"
                        + "Content-Length: 5\r\n\r\n")
                #expect(try client.readResponse().status == 100)
                try client.send("hello")
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "got 5")
                #expect(!response.closesConnection)
                #expect(try client.get("/hello").status == 200)
            }
        }
        #expect(calls.value == 1)
    }

    @Test func aBodyAlreadySentAfterARefusedHeadIsNeverParsedAsARequest() async throws {
        let calls = CallCounter()
        try await withTestServer(routes: Self.guardedRoutes(calls: calls)) { server in
            try await blocking {
                let client = try server.client()
                let smuggled = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
                try client.send(
                    "POST /guarded/upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n"
                        + smuggled)
                let response = try client.readResponse()
                #expect(response.status == 401)
                #expect(response.closesConnection)
                #expect(try client.closesWithoutData(), "the body must not be answered as a request")
            }
        }
        #expect(calls.value == 0)
    }

    @Test func refusedRequestWithoutContentKeepsTheConnection() async throws {
        let calls = CallCounter()
        try await withTestServer(routes: Self.guardedRoutes(calls: calls)) { server in
            try await blocking {
                let client = try server.client()
                let refused = try client.get("/guarded/page")
                #expect(refused.status == 401)
                #expect(!refused.closesConnection)
                try client.send("GET /guarded/page HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
                #expect(try client.readResponse().status == 401)
                let accepted = try client.get("/guarded/page", headers: "X-Key: open\r\n")
                #expect(accepted.status == 200)
                #expect(accepted.text == "page")
            }
        }
        #expect(calls.value == 1)
    }

    @Test func headCheckAnswersBeforeTheBodyLimit() async throws {
        let calls = CallCounter()
        try await withTestServer(routes: Self.guardedRoutes(calls: calls)) { server in
            try await blocking {
                let refused = try server.client()
                try refused.send("POST /guarded/small HTTP/1.1\r\nHost: t\r\nContent-Length: 17\r\n\r\n")
                #expect(try refused.readResponse().status == 401)
                let accepted = try server.client()
                try accepted.send(
                    "POST /guarded/small HTTP/1.1\r\nHost: t\r\nX-Key: open\r\nContent-Length: 17\r\n\r\n")
                #expect(try accepted.readResponse().status == 413)
            }
        }
        #expect(calls.value == 0)
    }

    @Test func headChecksSeeTheRequestWithoutItsBody() async throws {
        let seen = RecordedLines()
        try await withTestServer(routes: { router in
            router.on(
                .post, "/items/:id", bodyLimit: nil,
                headCheck: HTTPHeadCheck { request in
                    seen.append(
                        "\(request.method.rawValue) \(request.path) id=\(request.pathParameters["id"] ?? "-") "
                            + "q=\(request.query.first { $0.name == "q" }?.value ?? "-") body=\(request.body.count) "
                            + "rid=\(request.requestID)")
                    return nil
                },
                .sync { request in HTTPResponse(body: .bytes(request.body)) })
        }) { server in
            try await blocking {
                let client = try server.client()
                try client.send(
                    "POST /items/a%20b?q=1 HTTP/1.1\r\nHost: t\r\nX-Request-Id: trace-1\r\nContent-Length: 3\r\n\r\nabc"
                )
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "abc")
            }
        }
        #expect(seen.all == ["POST /items/a b id=a b q=1 body=0 rid=trace-1"])
    }

    @Test func groupHeadChecksRunInMiddlewareOrderBeforeTheRoutesOwn() {
        let router = Router()
        let log = RecordedLines()
        func check(_ label: String, refuses: Bool) -> HTTPHeadCheck {
            HTTPHeadCheck { _ in
                log.append(label)
                return refuses ? .error(.forbidden, code: label, message: label) : nil
            }
        }
        let outer = router.group("/a", middleware: [HTTPMiddleware(headCheck: check("outer", refuses: false))])
        let inner = outer.group("/b", middleware: [HTTPMiddleware(headCheck: check("inner", refuses: false))])
        inner.on(
            .get, "/open", bodyLimit: nil, headCheck: check("route", refuses: false), .sync { _ in HTTPResponse() })
        inner.on(.get, "/shut", bodyLimit: nil, headCheck: check("shut", refuses: true), .sync { _ in HTTPResponse() })
        router.on(.get, "/plain", .sync { _ in HTTPResponse() })
        let responder = router.freeze()

        let open = responder.route(method: .get, rawPath: "/a/b/open")
        #expect(open.headCheck?(HTTPRequest(method: .get, target: "/a/b/open")) == nil)
        #expect(log.all == ["outer", "inner", "route"])

        log.removeAll()
        let shut = responder.route(method: .get, rawPath: "/a/b/shut")
        #expect(shut.headCheck?(HTTPRequest(method: .get, target: "/a/b/shut"))?.status == .forbidden)
        #expect(log.all == ["outer", "inner", "shut"])

        #expect(responder.route(method: .get, rawPath: "/plain").headCheck == nil)
        #expect(responder.route(method: .get, rawPath: "/nowhere").headCheck == nil)
    }
}

/// Counts handler runs across threads.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Lines recorded across threads, in order.
final class RecordedLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func removeAll() { lines.withLock { $0 = [] } }
    var all: [String] { lines.withLock { $0 } }
}
