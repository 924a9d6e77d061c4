import Dispatch
import Foundation
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

    /// Keep-alive connections opened one after another are shared evenly between the loops, whichever loop the
    /// kernel wakes for each: a burst (a load balancer's pool, a benchmark's connections) never lands on one loop
    /// while the others idle. The loop that served a request is the fifth character of its request id.
    @Test(arguments: [(loops: 2, connections: 16), (loops: 3, connections: 9)])
    func keepAliveConnectionsAreSharedEvenlyBetweenLoops(loops: Int, connections: Int) async throws {
        // The sharing rule, not the stuck rule (the held-loop test checks that one): on a busy two-core machine a
        // loop can be kept off its core for more than 10 ms in the middle of a round, and is then rightly passed over.
        let server = try TestServer.start(configure: {
            $0.eventLoopCount = loops
            $0.stuckLoopAfter = 60_000_000_000
        })
        let (first, second) = try await blocking { () throws -> ([String: Int], [String: Int]) in
            let clients = try (0..<connections).map { _ in
                let client = try server.client(timeout: 10)
                _ = try client.get("/hello")
                return client
            }
            defer { for client in clients { client.close() } }
            // Each connection was answered once before the next connected, so each accept saw where the earlier
            // ones live; where each lives is read from two more rounds of requests.
            let first = try Self.servingLoops(clients.map { try $0.get("/hello") })
            let second = try Self.servingLoops(clients.map { try $0.get("/hello") })
            return (first, second)
        }
        #expect(first.count == loops)
        #expect(first.values.allSatisfy { $0 == connections / loops }, "connections per loop: \(first)")
        #expect(second == first, "each connection stays on its loop")
        await server.stop()
    }

    /// How many of `responses` each loop served: the loop is the fifth character of a request id.
    private static func servingLoops(_ responses: [TestResponse]) throws -> [String: Int] {
        var served: [String: Int] = [:]
        for response in responses {
            let id = try #require(response.header("x-request-id"))
            served[String(id.dropFirst(4).prefix(1)), default: 0] += 1
        }
        return served
    }

    /// The rule that shares connections out: the accepting loop keeps a connection unless a loop with fewer
    /// connections is waiting for events or began its round of work recently; a loop stuck in a long round (a
    /// handler holding its thread) is never handed one.
    @Test func aConnectionGoesToTheLoopWithFewestConnectionsThatIsNotStuck() {
        typealias Load = Listener.LoopLoad
        let now: UInt64 = 1_000_000_000_000
        let waiting: UInt64 = 0
        let recent = now - 1_000
        let stuck = now - Listener.stuckAfter
        func serving(_ own: Int, _ loads: [Load]) -> Int {
            Listener.servingIndex(acceptedOn: own, loads: loads, now: now)
        }
        #expect(serving(0, [Load(connections: 3, roundStart: recent), Load(connections: 3, roundStart: waiting)]) == 0)
        #expect(serving(0, [Load(connections: 4, roundStart: recent), Load(connections: 3, roundStart: waiting)]) == 1)
        #expect(serving(0, [Load(connections: 4, roundStart: recent), Load(connections: 3, roundStart: recent)]) == 1)
        #expect(serving(1, [Load(connections: 0, roundStart: stuck), Load(connections: 5, roundStart: recent)]) == 1)
        #expect(
            serving(
                2,
                [
                    Load(connections: 1, roundStart: stuck), Load(connections: 2, roundStart: waiting),
                    Load(connections: 9, roundStart: recent), Load(connections: 2, roundStart: recent)
                ]) == 1)
        // A round that began after the accepting loop read its clock is recent, not billions of years old.
        #expect(serving(0, [Load(connections: 2, roundStart: recent), Load(connections: 1, roundStart: now + 5)]) == 1)
    }

    /// With pinned loops, the loop on the CPU that received a connection serves it, unless that loop is stuck or
    /// far busier than the others (more than twice the least busy one's connections, plus two).
    @Test func withPinnedLoopsTheLoopOnTheReceivingCPUServesUnlessItIsFarBusier() {
        typealias Load = Listener.LoopLoad
        let now: UInt64 = 1_000_000_000_000
        let recent = now - 1_000
        let stuck = now - Listener.stuckAfter
        func serving(_ own: Int, _ preferred: Int?, _ loads: [Load]) -> Int {
            Listener.servingIndex(acceptedOn: own, preferring: preferred, loads: loads, now: now)
        }
        let even = [Load(connections: 4, roundStart: recent), Load(connections: 4, roundStart: recent)]
        #expect(serving(0, 1, even) == 1)
        #expect(serving(1, 0, even) == 0)
        #expect(serving(0, 1, [Load(connections: 3, roundStart: recent), Load(connections: 8, roundStart: 0)]) == 1)
        #expect(serving(0, 1, [Load(connections: 3, roundStart: recent), Load(connections: 9, roundStart: 0)]) == 0)
        #expect(serving(0, 1, [Load(connections: 3, roundStart: recent), Load(connections: 0, roundStart: stuck)]) == 0)
        #expect(serving(1, nil, [Load(connections: 3, roundStart: recent), Load(connections: 5, roundStart: 0)]) == 0)
    }

    /// `pinsEventLoops`: each loop's thread runs on one CPU only, the same for every request it serves, and
    /// loops take distinct CPUs while there are CPUs enough.
    @Test func pinnedLoopsEachRunOnACPUOfTheirOwn() async throws {
        let cpus = EventLoop.allowedCPUs()
        try #require(!cpus.isEmpty)
        let server = try TestServer.start(
            configure: {
                $0.eventLoopCount = 2; $0.pinsEventLoops = true
            },
            routes: { router in
                router.on(
                    .get, "/cpu", .sync { _ in HTTPResponse(body: .bytes(Array("\(EventLoop.currentCPU())".utf8))) })
            })
        let seen = try await blocking { () throws -> [String: Set<String>] in
            let clients = try (0..<8).map { _ in try server.client(timeout: 10) }
            defer { for client in clients { client.close() } }
            var seen: [String: Set<String>] = [:]
            for _ in 0..<5 {
                for client in clients {
                    let response = try client.get("/cpu")
                    let id = try #require(response.header("x-request-id"))
                    seen[String(id.dropFirst(4).prefix(1)), default: []].insert(response.text)
                }
            }
            return seen
        }
        #expect(seen.values.allSatisfy { $0.count == 1 }, "CPUs each loop ran on: \(seen)")
        if cpus.count >= 2 && seen.count == 2 {
            #expect(Set(seen.values.flatMap { $0 }).count == 2, "two loops share a CPU: \(seen)")
        }
        await server.stop()
    }

    /// Each loop's thread carries its name for the kernel (`top -H`, `perf`): `livery-loop-<index>`.
    @Test func loopThreadsAreNamedForTheKernel() async throws {
        let server = try TestServer.start(routes: { router in
            router.on(
                .get, "/name",
                .sync { _ in
                    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                    return HTTPResponse(body: .bytes(Array(name.utf8)))
                })
        })
        let names = try await blocking { () throws -> [(id: String, name: String)] in
            let clients = try (0..<4).map { _ in try server.client(timeout: 10) }
            defer { for client in clients { client.close() } }
            return try clients.map { client in
                let response = try client.get("/name")
                return (try #require(response.header("x-request-id")), response.text)
            }
        }
        for (id, name) in names {
            let index = try #require(Int(String(id.dropFirst(4).prefix(1)), radix: 32))
            #expect(name == EventLoop.threadName(index) + "\n")
        }
        await server.stop()
    }
}
