import HTTPTestSupport
import LiveryHTTP
import Synchronization
import TestSupport
import Testing

/// `HTTPRouting.respond(to:)`: a request answered in memory as the server answers it once read, so the
/// application's routes are tested without sockets.
@Suite struct InMemoryResponseTests {
    /// Counts handler runs, to tell a refusal before the handler from one by it.
    final class Runs: Sendable {
        let count = Atomic<Int>(0)
        func record() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    static func text(_ body: String) -> HTTPResponse { HTTPResponse(body: .bytes(Array(body.utf8))) }

    static func body(_ response: HTTPResponse) -> String {
        if case .bytes(let bytes) = response.body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    /// Every kind of handler, a group with middleware and a head check, and a route with a small body limit.
    static func routes(_ runs: Runs) -> (Router) -> Void {
        { router in
            router.on(
                .get, "/sync/:id",
                .sync { request in
                    runs.record(); return text("sync " + (request.pathParameters["id"] ?? ""))
                })
            router.on(
                .post, "/async", bodyLimit: 8,
                .async { request in
                    runs.record()
                    await Task.yield()
                    return text("async " + String(decoding: request.body, as: UTF8.self))
                })
            router.on(
                .get, "/either/:id",
                .syncOrAsync(
                    immediate: { request in request.pathParameters["id"] == "slow" ? nil : text("now") },
                    otherwise: { _ in
                        await Task.yield(); return text("later")
                    }))
            router.on(.post, "/default", .sync { request in text("\(request.body.count)") })
            let guarded = HTTPMiddleware(
                headCheck: HTTPHeadCheck { request in
                    request.headers["X-Key"] == "open" ? nil : .error(.unauthorized, code: "no_key", message: "No key.")
                },
                after: { _, response in
                    var response = response
                    response.headers.add(name: "X-Guarded", value: "yes")
                    return response
                })
            router.group("/guarded", middleware: [guarded]).on(
                .put, "/:id", bodyLimit: 4,
                .async { request in
                    runs.record()
                    return text("stored \(request.pathParameters["id"] ?? "") \(request.body.count)")
                })
        }
    }

    static func router(_ runs: Runs) -> FrozenRouter {
        let router = Router()
        routes(runs)(router)
        return router.freeze()
    }

    @Test func everyKindOfHandlerIsAnsweredWithItsPathParameters() async {
        let routing = Self.router(Runs())
        #expect(
            Self.body(await routing.respond(to: HTTPRequest(method: .get, target: "/sync/a%20b?x=1"))) == "sync a b")
        #expect(
            Self.body(await routing.respond(to: HTTPRequest(method: .post, target: "/async", body: Array("hi".utf8))))
                == "async hi")
        #expect(Self.body(await routing.respond(to: HTTPRequest(method: .get, target: "/either/quick"))) == "now")
        #expect(Self.body(await routing.respond(to: HTTPRequest(method: .get, target: "/either/slow"))) == "later")
        #expect(
            Self.body(await routing.respond(to: HTTPRequest(method: .head, target: "/sync/h"))) == "sync h",
            "HEAD is GET's handler")
    }

    @Test func unknownPathsAndMethodsGetTheRoutersAnswers() async {
        let routing = Self.router(Runs())
        let missing = await routing.respond(to: HTTPRequest(method: .get, target: "/nowhere"))
        #expect(missing.status == .notFound && Self.body(missing).contains(#""code":"not_found""#))
        let wrongMethod = await routing.respond(to: HTTPRequest(method: .delete, target: "/sync/a"))
        #expect(wrongMethod.status == .methodNotAllowed && wrongMethod.headers["Allow"] == "GET, HEAD")
    }

    @Test func aHeadCheckAnswersBeforeTheHandlerAndMiddlewareWrapsWhatItLetsThrough() async {
        let runs = Runs()
        let routing = Self.router(runs)
        let refused = await routing.respond(to: HTTPRequest(method: .put, target: "/guarded/x", body: [1, 2]))
        #expect(refused.status == .unauthorized && Self.body(refused).contains("no_key"))
        #expect(runs.value == 0, "the handler never ran")
        let letThrough = await routing.respond(
            to: HTTPRequest(method: .put, target: "/guarded/x", headers: ["X-Key": "open"], body: [1, 2]))
        #expect(Self.body(letThrough) == "stored x 2" && letThrough.headers["X-Guarded"] == "yes")
        #expect(runs.value == 1)
    }

    @Test func aBodyOverTheRouteLimitIs413WithoutRunningTheHandler() async {
        let runs = Runs()
        let routing = Self.router(runs)
        let over = await routing.respond(
            to: HTTPRequest(method: .post, target: "/async", body: Array(repeating: 1, count: 9)))
        #expect(over.status == .contentTooLarge)
        #expect(
            Self.body(over)
                == #"{"error":{"code":"content_too_large","message":"The request body is larger than 8 bytes.","details":{"field":"body","reason":"The request body is larger than 8 bytes."}}}"#
        )
        #expect(runs.value == 0)
        // The head check still comes first, as in the server: a refused request gets its answer, not a 413.
        let refused = await routing.respond(
            to: HTTPRequest(method: .put, target: "/guarded/x", body: Array(repeating: 1, count: 5)))
        #expect(refused.status == .unauthorized)
        let unrouted = await routing.respond(
            to: HTTPRequest(method: .post, target: "/default", body: Array(repeating: 1, count: 5)), defaultBodyLimit: 4
        )
        #expect(unrouted.status == .contentTooLarge, "routes without a limit get the default")
        #expect(Self.body(await routing.respond(to: HTTPRequest(method: .post, target: "/default", body: [1]))) == "1")
    }

    /// The same requests through `TestEndpoint` in memory and over a real server give the same answers, file
    /// bodies and HEAD included.
    @Test func answersInMemoryAreTheServersAnswers() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-in-memory")
        let file = try scratch.write("body.bin", Array("0123456789".utf8))
        let routes: (Router) -> Void = { router in
            Self.routes(Runs())(router)
            router.on(.get, "/file", .sync { _ in HTTPResponse(body: .file(path: file, offset: 2, length: 5)) })
            router.on(
                .get, "/kept", .sync { _ in HTTPResponse(body: .immutableFile(path: file, offset: 0, length: 10)) })
        }
        let memory = try TestEndpoint(.memory, routes: routes)
        let socket = try TestEndpoint(.socket, routes: routes)
        let requests: [(String, String, [(String, String)], [UInt8])] = [
            ("GET", "/sync/a", [], []), ("HEAD", "/sync/a", [], []), ("POST", "/async", [], Array("hi".utf8)),
            ("POST", "/async", [], Array(repeating: 1, count: 9)), ("GET", "/either/slow", [], []),
            ("PUT", "/guarded/x", [], [1]), ("PUT", "/guarded/x", [("X-Key", "open")], [1, 2, 3, 4, 5]),
            ("PUT", "/guarded/x", [("X-Key", "open")], [1]), ("GET", "/nowhere", [], []), ("DELETE", "/sync/a", [], []),
            ("GET", "/file", [], []), ("HEAD", "/file", [], []), ("GET", "/kept", [], [])
        ]
        for (method, target, headers, body) in requests {
            let inMemory = try await memory.request(
                method, target, headers: headers + [("X-Request-Id", "same")], body: body)
            let real = try await socket.request(
                method, target, headers: headers + [("X-Request-Id", "same")], body: body)
            #expect(inMemory.status == real.status, "\(method) \(target)")
            #expect(inMemory.body == real.body, "\(method) \(target)")
            for name in ["Content-Type", "Content-Length", "Cache-Control", "Allow", "X-Guarded", "X-Request-Id"] {
                #expect(inMemory.header(name) == real.header(name), "\(method) \(target) \(name)")
            }
        }
        await socket.stop()
    }
}
