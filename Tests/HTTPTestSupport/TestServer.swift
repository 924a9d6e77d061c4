import Foundation
import LiveryHTTP
import Logging
import TestSupport

/// The one way tests start an in-process HTTP server: a real `HTTPServer` on 127.0.0.1 with a port the kernel
/// chose, two event loops, and the routes and configuration the test gives. Used by LiveryHTTP's protocol tests
/// (with `standardRoutes`) and by the application's socket-level tests (with its own routes); tests that need no
/// socket use `TestEndpoint` in memory instead. Its asynchronous handlers run on `ThreadPerJobExecutor.shared`, not
/// on the cooperative pool the whole test run shares, so a busy run delays no answer (CI runs timed admin requests
/// out after 30 s while the pool was held).
public struct TestServer: Sendable {
    public let server: HTTPServer
    public let port: Int

    public static let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Starts a server with `routes` (default: `TestServer.standardRoutes`) and configuration tweaks.
    public static func start(
        logger: Logger = quietLogger,
        configure: (inout HTTPServer.Configuration) -> Void = { _ in },
        routes: (Router) -> Void = TestServer.standardRoutes
    ) throws -> TestServer {
        let router = Router()
        routes(router)
        return try start(logger: logger, configure: configure, routing: router.freeze())
    }

    /// Starts a server answering with `routing` (for routes already frozen, as `TestEndpoint`'s).
    public static func start(
        logger: Logger = quietLogger, configure: (inout HTTPServer.Configuration) -> Void = { _ in },
        routing: some HTTPRouting
    ) throws -> TestServer {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.eventLoopCount = 2
        configuration.handlerExecutor = ThreadPerJobExecutor.shared
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, routing: routing, logger: logger)
        let address = try server.start()
        return TestServer(server: server, port: address.port)
    }

    public func client(timeout: Double = 5) throws -> TestClient { try TestClient(port: port, timeout: timeout) }

    public func stop() async { await server.shutdown(drainTimeout: .zero) }

    /// Routes most protocol tests use.
    public static func standardRoutes(_ router: Router) {
        router.on(
            .get, "/hello",
            .sync { _ in HTTPResponse(headers: ["Content-Type": "text/plain"], body: .bytes(Array("hello".utf8))) })
        router.on(
            .post, "/echo", bodyLimit: 1 << 20,
            .sync { request in
                var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
                headers.add(
                    name: "X-Trailers", value: request.trailers.map { "\($0.name)=\($0.value)" }.joined(separator: ","))
                return HTTPResponse(headers: headers, body: .bytes(request.body))
            })
        router.on(.post, "/small", bodyLimit: 16, .sync { request in HTTPResponse(body: .bytes(request.body)) })
        router.on(
            .get, "/seq/:n",
            .sync { request in HTTPResponse(body: .bytes(Array("seq \(request.pathParameters["n"] ?? "")".utf8))) })
        router.on(
            .get, "/async/:n",
            .async { request async in
                // Later requests finish sooner, so order is only right if the server keeps it.
                let n = Int(request.pathParameters["n"] ?? "") ?? 0
                try? await Task.sleep(for: .milliseconds(max(0, 30 - 3 * n)))
                return HTTPResponse(body: .bytes(Array("async \(n)".utf8)))
            })
        router.on(
            .get, "/either/:n",
            // Even numbers are answered on the event loop; odd ones need the slow path.
            .syncOrAsync(
                immediate: { request in
                    let n = Int(request.pathParameters["n"] ?? "") ?? 0
                    return n % 2 == 0 ? HTTPResponse(body: .bytes(Array("now \(n)".utf8))) : nil
                },
                otherwise: { request in
                    let n = Int(request.pathParameters["n"] ?? "") ?? 0
                    try? await Task.sleep(for: .milliseconds(10))
                    return HTTPResponse(body: .bytes(Array("later \(n)".utf8)))
                }))
        router.on(
            .get, "/query",
            .sync { request in
                HTTPResponse(
                    body: .bytes(Array(request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&").utf8)))
            })
        router.on(.get, "/request-id", .sync { request in HTTPResponse(body: .bytes(Array(request.requestID.utf8))) })
        router.on(.get, "/empty", .sync { _ in HTTPResponse(status: .noContent) })
    }
}

/// Runs `body` with a started test server and shuts the server down afterwards, even on failure.
@discardableResult
public func withTestServer<T: Sendable>(
    logger: Logger = TestServer.quietLogger,
    configure: (inout HTTPServer.Configuration) -> Void = { _ in },
    routes: (Router) -> Void = TestServer.standardRoutes,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try TestServer.start(logger: logger, configure: configure, routes: routes)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
