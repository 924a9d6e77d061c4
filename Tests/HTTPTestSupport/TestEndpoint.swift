import Foundation
import LiveryHTTP
import Logging
import TestSupport

/// How a test reaches an application's routes.
public enum TestTransport: Sendable {
    /// In memory, through `HTTPRouting.respond(to:)`: no socket, no event loop; for tests of the application's
    /// rules (validation, auth, preconditions, what is stored and answered).
    case memory
    /// Through a real `TestServer` on 127.0.0.1, one connection per request; for tests where the socket is what
    /// is tested (framing, limits, keep-alive, what the server does before a body is read).
    case socket
}

/// An application's routes as a test reaches them, in memory or over a socket, with the same request helper and
/// the same `TestResponse` either way, so a suite changes transport without changing what it asserts.
///
/// In memory, a response is completed as the server would write it, so tests read it alike: `Content-Length`
/// (the body's length, also for HEAD) and `X-Request-Id` are added, the body is dropped for HEAD and for statuses
/// that have none, and a file body is read from disk. What the server does around a connection (`Connection:
/// close`, `100 Continue`, header validation, timeouts) exists only over a socket.
public final class TestEndpoint: Sendable {
    /// The frozen routes (the ones the server answers with over a socket).
    public let routing: FrozenRouter
    /// The server, with `.socket`; nil in memory.
    public let server: TestServer?
    private let defaultBodyLimit: Int

    /// Builds the routes with `routes`; with `.socket`, starts a `TestServer` answering with them.
    ///
    /// - Parameters:
    ///   - configure: server configuration changes; in memory only `defaultBodyLimit` applies.
    public init(
        _ transport: TestTransport, logger: Logger = TestServer.quietLogger,
        configure: (inout HTTPServer.Configuration) -> Void = { _ in }, routes: (Router) -> Void
    ) throws {
        let router = Router()
        routes(router)
        routing = router.freeze()
        var configuration = HTTPServer.Configuration()
        configure(&configuration)
        defaultBodyLimit = configuration.defaultBodyLimit
        switch transport {
        case .memory:
            server = nil
        case .socket:
            let routing = routing
            server = try TestServer.start(logger: logger, configure: configure, routing: routing)
        }
    }

    /// The server's port; only with `.socket` (a test that opens its own connections must ask for a socket).
    public var port: Int {
        guard let server else { preconditionFailure("an in-memory TestEndpoint has no port: use .socket") }
        return server.port
    }

    /// Stops the server, if any.
    public func stop() async { await server?.stop() }

    /// Sends one request (over a new connection with `.socket`) and returns the response.
    ///
    /// The request carries the header fields `TestClient.request` sends (`Host: test`, `Content-Length` unless a
    /// GET or HEAD has no body), then `headers` in order. The default `timeout` bounds a hang, not a speed: work a
    /// handler awaits (a catalog rebuild after an admin release) runs on the cooperative pool, which the rest of the
    /// run can hold for minutes (a CI dry run timed a release out at 30 s).
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: Double = 300
    ) async throws -> TestResponse {
        if let server {
            let port = server.port
            return try await blocking {
                try TestClient(port: port, timeout: timeout).request(method, target, headers: headers, body: body)
            }
        }
        let fields = TestClient.fields(method, headers: headers, body: body)
        let requestID = HTTPHeaders(fields)["X-Request-Id"] ?? UUID().uuidString
        let request = HTTPRequest(
            method: HTTPMethod(method), target: target, headers: HTTPHeaders(fields), body: body,
            requestID: requestID, remoteAddress: "127.0.0.1:0")
        let response = await routing.respond(to: request, defaultBodyLimit: defaultBodyLimit)
        return try Self.received(response, method: method, requestID: requestID)
    }

    /// `response` as a client would receive it.
    static func received(_ response: HTTPResponse, method: String, requestID: String) throws -> TestResponse {
        var headers = response.headers.filter { field in
            !["content-length", "transfer-encoding", "connection", "date", "x-request-id"].contains(
                field.name.lowercased())
        }.map { (name: $0.name, value: $0.value) }
        headers.append((name: "Content-Length", value: "\(response.body.length)"))
        headers.append((name: "X-Request-Id", value: requestID))
        var received = TestResponse(
            status: response.status.code, reason: response.status.reason, headers: headers, body: [])
        guard method != "HEAD", !response.status.forbidsBody else { return received }
        switch response.body {
        case .empty:
            break
        case .bytes(let bytes):
            received.body = bytes
        case .file(let path, let offset, let length), .immutableFile(let path, let offset, let length):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw TestClientError("no file body at \(path)")
            }
            defer { try? handle.close() }
            try handle.seek(toOffset: offset)
            let bytes = Array(try handle.read(upToCount: Int(length)) ?? Data())
            guard bytes.count == Int(length) else { throw TestClientError("file body at \(path) ended early") }
            received.body = bytes
        }
        return received
    }
}
