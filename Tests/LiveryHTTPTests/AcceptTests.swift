import Dispatch
import HTTPTestSupport
import TestSupport
import Testing

@testable import LiveryHTTP

/// Accepting on the event loops themselves: a new connection is taken by a loop that is free, never queued behind
/// a loop that is busy.
@Suite struct AcceptTests {
    @Test func newConnectionsAreServedWhileAnotherLoopIsBusy() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try TestServer.start(routes: { router in
            // Holds its loop's thread until the test lets it go (a stand-in for a long TLS handshake or a big
            // answer being encrypted).
            router.on(
                .get, "/hold",
                .sync { _ in
                    entered.signal()
                    _ = release.wait(timeout: .now() + 30)
                    return HTTPResponse(body: .bytes(Array("released".utf8)))
                })
            router.on(.get, "/hello", .sync { _ in HTTPResponse(body: .bytes(Array("hello".utf8))) })
        })
        try await blocking {
            let held = try server.client(timeout: 30)
            try held.send("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(entered.wait(timeout: .now() + 30) == .success)
            // One of the two loops is held. Handed out in turn, every second connection would wait for it; taken
            // by whichever loop is free, each is answered at once.
            for _ in 0..<6 {
                let client = try server.client(timeout: 5)
                #expect(try client.get("/hello").text == "hello")
                client.close()
            }
            release.signal()
            #expect(try held.readResponse().text == "released")
        }
        await server.stop()
    }
}
