import Dispatch
import Synchronization
import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import HTTPTestSupport
    import Glibc
#endif

/// Graceful shutdown: stop accepting, finish in-flight requests, close idle connections, respect the deadline.
///
/// Waits are generous (30 s) for a loaded machine. The test server's handlers run on threads of their own while the
/// test's own steps share the cooperative pool with the whole run, so a handler that must still run at some step
/// waits for a gate the test opens, never for a delay.
@Suite struct ShutdownTests {
    /// A route whose async handler reports that it started, then takes `delay`, or (given `gate`) waits until the
    /// gate opens, for at most two minutes.
    static func slowRoutes(started: DispatchSemaphore, delay: Duration, gate: Gate? = nil) -> (Router) -> Void {
        { router in
            router.on(
                .get, "/slow",
                .async { _ async in
                    started.signal()
                    if let gate {
                        let deadline = ContinuousClock.now + .seconds(120)
                        while !gate.isOpen && ContinuousClock.now < deadline {
                            try? await Task.sleep(for: .milliseconds(5))
                        }
                    } else {
                        try? await Task.sleep(for: delay)
                    }
                    return HTTPResponse(body: .bytes(Array("done".utf8)))
                })
            router.on(.get, "/hello", .sync { _ in HTTPResponse(body: .bytes(Array("hello".utf8))) })
        }
    }

    /// Opened once by the test; read by a handler.
    final class Gate: Sendable {
        private let opened = Atomic<Bool>(false)
        var isOpen: Bool { opened.load(ordering: .acquiring) }
        func open() { opened.store(true, ordering: .releasing) }
    }

    @Test func finishesInFlightRequestsAndClosesIdleConnections() async throws {
        let started = DispatchSemaphore(value: 0)
        // The request stays in flight until shutdown has begun, however long the test takes to get there.
        let gate = Gate()
        let server = try TestServer.start(routes: Self.slowRoutes(started: started, delay: .zero, gate: gate))
        let (busy, idle) = try await blocking {
            let idle = try server.client()
            #expect(try idle.get("/hello").status == 200)
            let busy = try server.client(timeout: 120)
            try busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(started.wait(timeout: .now() + 120) == .success)
            return (busy, idle)
        }
        // A deadline far enough that the handler, once the gate opens, gets a pool thread before it.
        server.server.beginShutdown(drainTimeout: .seconds(60))
        gate.open()
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
        // The handler runs until the test has seen the connection closed, however long the test takes to get there.
        let gate = Gate()
        defer { gate.open() }
        let server = try TestServer.start(routes: Self.slowRoutes(started: started, delay: .zero, gate: gate))
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
        let gate = Gate()
        defer { gate.open() }
        let server = try TestServer.start(routes: Self.slowRoutes(started: started, delay: .zero, gate: gate))
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
