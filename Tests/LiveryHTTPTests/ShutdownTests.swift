import Dispatch
import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import HTTPTestSupport
    import Glibc
#endif

/// Graceful shutdown: stop accepting, finish in-flight requests, close idle connections, respect the deadline.
///
/// Waits are generous (30 s) because async handlers run on the shared cooperative pool, which other suites'
/// synchronous tests may occupy for a while; in a healthy run they return at once.
@Suite struct ShutdownTests {
    /// A route whose async handler reports that it started, then takes `delay`.
    static func slowRoutes(started: DispatchSemaphore, delay: Duration) -> (Router) -> Void {
        { router in
            router.on(
                .get, "/slow",
                .async { _ async in
                    started.signal()
                    try? await Task.sleep(for: delay)
                    return HTTPResponse(body: .bytes(Array("done".utf8)))
                })
            router.on(.get, "/hello", .sync { _ in HTTPResponse(body: .bytes(Array("hello".utf8))) })
        }
    }

    @Test func finishesInFlightRequestsAndClosesIdleConnections() async throws {
        let started = DispatchSemaphore(value: 0)
        let server = try TestServer.start(routes: Self.slowRoutes(started: started, delay: .milliseconds(300)))
        let (busy, idle) = try await blocking {
            let idle = try server.client()
            #expect(try idle.get("/hello").status == 200)
            let busy = try server.client(timeout: 120)
            try busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(started.wait(timeout: .now() + 120) == .success)
            return (busy, idle)
        }
        server.server.beginShutdown(drainTimeout: .seconds(5))
        try await blocking {
            // The idle keep-alive connection is closed at once.
            #expect(try idle.closesWithoutData())
            // The in-flight request completes, told that the connection closes.
            let response = try busy.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "done")
            #expect(response.closesConnection)
            #expect(try busy.closesWithoutData())
            busy.close()
            // No new connections are accepted.
            #expect(throws: TestClientError.self) { try server.client() }
        }
        await server.server.waitUntilStopped()
        #expect(server.server.localAddress == nil)
    }

    @Test func closesRequestsStillRunningAtTheDrainDeadline() async throws {
        let started = DispatchSemaphore(value: 0)
        let server = try TestServer.start(routes: Self.slowRoutes(started: started, delay: .seconds(20)))
        let busy = try await blocking {
            let busy = try server.client(timeout: 120)
            try busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(started.wait(timeout: .now() + 120) == .success)
            return busy
        }
        await server.server.shutdown(drainTimeout: .milliseconds(200))
        try await blocking {
            let closed = try busy.closesWithoutData()
            #expect(closed)
        }
    }

    @Test func aShorterSecondShutdownMovesTheDeadlineEarlier() async throws {
        let started = DispatchSemaphore(value: 0)
        let server = try TestServer.start(routes: Self.slowRoutes(started: started, delay: .seconds(20)))
        let busy = try await blocking {
            let busy = try server.client(timeout: 120)
            try busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(started.wait(timeout: .now() + 120) == .success)
            return busy
        }
        server.server.beginShutdown(drainTimeout: .seconds(60))
        server.server.beginShutdown(drainTimeout: .zero)
        await server.server.waitUntilStopped()
        try await blocking {
            let closed = try busy.closesWithoutData()
            #expect(closed)
        }
    }

    @Test func aClientLeavingDuringAnAsyncHandlerCostsOnlyItsConnection() async throws {
        let started = DispatchSemaphore(value: 0)
        let observer = SignalingObserver()
        let routes = Self.slowRoutes(started: started, delay: .milliseconds(200))
        try await withTestServer(configure: { $0.observer = observer }, routes: routes) { server in
            try await blocking {
                let leaving = try server.client(timeout: 120)
                try leaving.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(started.wait(timeout: .now() + 120) == .success)
                // Reset rather than close politely: the server sees an error while the handler still runs.
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(leaving.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                leaving.close()
                #expect(observer.waitForClose(seconds: 120))
                let text = try server.client(timeout: 120).get("/slow").text
                #expect(text == "done")
            }
        }
    }

    @Test func shutdownOfAServerWithNoConnectionsReturnsAtOnce() async throws {
        let server = try TestServer.start()
        await server.server.shutdown()
        await server.server.shutdown()
        let neverStarted = HTTPServer(router: Router(), logger: TestServer.quietLogger)
        await neverStarted.shutdown()
        await neverStarted.waitUntilStopped()
    }
}
