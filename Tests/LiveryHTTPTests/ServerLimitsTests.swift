import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Timeouts, the connection cap, slow clients and many idle connections, over real sockets.
@Suite struct ServerLimitsTests {
    @Test func silentConnectionIsClosedAfterTheHeaderTimeout() async throws {
        try await withTestServer(configure: { $0.headerTimeout = .milliseconds(300) }) { server in
            try await blocking {
                let client = try server.client()
                #expect(try client.closesWithoutData())
            }
        }
    }

    @Test func incompleteHeadGetsRequestTimeout() async throws {
        try await withTestServer(configure: { $0.headerTimeout = .milliseconds(300) }) { server in
            try await blocking {
                let client = try server.client()
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n")
                let response = try client.readResponse()
                #expect(response.status == 408)
                #expect(response.closesConnection)
                #expect(response.text.contains(#""code":"request_timeout""#))
                #expect(try client.closesWithoutData())
            }
        }
    }

    @Test func stalledBodyGetsRequestTimeout() async throws {
        try await withTestServer(configure: { $0.idleTimeout = .milliseconds(300) }) { server in
            try await blocking {
                let client = try server.client()
                try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
                let response = try client.readResponse()
                #expect(response.status == 408)
                #expect(try client.closesWithoutData())
            }
        }
    }

    @Test func idleKeepAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        try await withTestServer(configure: { $0.idleTimeout = .milliseconds(300) }) { server in
            try await blocking {
                let client = try server.client()
                #expect(try client.get("/hello").status == 200)
                #expect(try client.closesWithoutData())
            }
        }
    }

    @Test func laterRequestsGetAFreshHeaderTimeout() async throws {
        // Each request on a keep-alive connection gets its own header deadline, counted from its first byte.
        try await withTestServer(configure: {
            $0.headerTimeout = .milliseconds(400)
            $0.idleTimeout = .seconds(5)
        }) { server in
            try await blocking {
                let client = try server.client()
                for _ in 0..<3 {
                    #expect(try client.get("/hello").status == 200)
                    usleep(250_000)  // idle between requests, longer than half the header timeout
                }
            }
        }
    }

    @Test func connectionsOverTheCapGetServiceUnavailable() async throws {
        let observer = SignalingObserver()
        try await withTestServer(configure: {
            $0.maxConnections = 4
            $0.observer = observer
        }) { server in
            try await blocking {
                var clients = try (0..<4).map { _ in try server.client() }
                for client in clients { #expect(try client.get("/hello").status == 200) }

                let excess = try server.client()
                let refused = try excess.readResponse()
                #expect(refused.status == 503)
                #expect(refused.closesConnection)
                #expect(refused.text.contains(#""code":"server_busy""#))
                #expect(try excess.closesWithoutData())
                excess.close()
                #expect(observer.waitForClose())

                // Free a slot; once its close is reported a new connection is served.
                clients.removeLast()
                #expect(observer.waitForClose())
                #expect(try server.client().get("/hello").status == 200)
                for client in clients { #expect(try client.get("/hello").status == 200) }
            }
        }
    }

    @Test(.hangGuard)
    func everyConnectionOverTheCapGetsTheServiceUnavailableAnswer() async throws {
        try await withTestServer(configure: { $0.maxConnections = 2 }) { server in
            try await blocking {
                let admitted = try (0..<2).map { _ in try server.client() }
                for client in admitted { #expect(try client.get("/hello").status == 200) }

                // Far more than the old allowance of 64, all open at once: each is refused with a 503 it can read.
                let excess = try (0..<300).map { _ in try server.client(timeout: 10) }
                var answers: [Int: Int] = [:]
                var retryAfter = 0
                for client in excess {
                    let status =
                        (try? client.readResponse()).map { response in
                            if response.header("Retry-After") != nil && response.header("Cache-Control") == "no-store" {
                                retryAfter += 1
                            }
                            return response.status
                        } ?? 0
                    answers[status, default: 0] += 1
                }
                #expect(answers == [503: 300], "status → count (0: reset or closed without an answer)")
                #expect(retryAfter == 300, "every refusal says when to retry and is not cached")
                for client in admitted { #expect(try client.get("/hello").status == 200) }
            }
        }
    }

    @Test func slowlorisConnectionsDoNotStopANormalClient() async throws {
        try await withTestServer(configure: { $0.headerTimeout = .seconds(1) }) { server in
            try await blocking {
                let dribblers = try (0..<200).map { _ in try server.client(timeout: 5) }
                let stop = DispatchSemaphore(value: 0)
                let finished = DispatchSemaphore(value: 0)
                let head =
                    Array("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8) + [UInt8](repeating: 0x61, count: 4096)
                DispatchQueue.global().async {
                    // One byte per connection every 20 ms: the head never completes.
                    for index in 0..<head.count {
                        if stop.wait(timeout: .now()) == .success { break }
                        for dribbler in dribblers { dribbler.sendIgnoringErrors([head[index]]) }
                        usleep(20_000)
                    }
                    finished.signal()
                }
                // While 200 connections dribble, a normal client is served on new and kept-alive connections.
                let normal = try server.client()
                for index in 0..<20 {
                    #expect(try normal.get("/seq/\(index)").text == "seq \(index)")
                    #expect(try server.client().get("/hello").status == 200)
                    usleep(10_000)
                }
                // Every dribbler is cut off with 408 once its header timeout passes.
                var timedOut = 0
                for dribbler in dribblers {
                    if let response = try? dribbler.readResponse(), response.status == 408 { timedOut += 1 }
                }
                stop.signal()
                finished.wait()
                #expect(timedOut == dribblers.count)
                #expect(try server.client().get("/hello").status == 200)
            }
        }
    }

    @Test func holdsTwoThousandIdleKeepAliveConnections() async throws {
        try raiseDescriptorLimit(to: 8192)
        let observer = RecordingObserver()
        try await withTestServer(configure: { $0.observer = observer }) { server in
            try await blocking {
                let count = 2000
                var clients: [TestClient] = []
                clients.reserveCapacity(count)
                for _ in 0..<count {
                    let client = try server.client()
                    try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                    clients.append(client)
                }
                for client in clients { #expect(try client.readResponse().status == 200) }
                #expect(observer.opened.load(ordering: .relaxed) == count)
                // All of them at once are still open and usable, and a newcomer is served too.
                #expect(try server.client().get("/hello").text == "hello")
                var served = 0
                for client in clients {
                    try client.send("GET /seq/1 HTTP/1.1\r\nHost: t\r\n\r\n")
                }
                for client in clients where try client.readResponse().text == "seq 1" { served += 1 }
                #expect(served == count)
                #expect(observer.closed.load(ordering: .relaxed) == 1)
            }
        }
    }

    private func raiseDescriptorLimit(to wanted: rlim_t) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_cur >= 4500, "need about 4,100 descriptors (2,000 clients, 2,000 server sides)")
    }
}

/// Random and mutated requests with a fixed seed and a fixed number of iterations: the server never dies, never
/// hangs a connection after the client is done, and keeps serving.
@Suite struct ServerFuzzTests {
    @Test func survivesMutatedRequests() async throws {
        try await withTestServer(configure: { $0.headerTimeout = .seconds(2) }) { server in
            try await blocking {
                var random = SplitMix64(seed: 0xF0CACC1A)
                for iteration in 0..<400 {
                    var bytes: [UInt8]
                    if iteration % 10 == 9 {
                        bytes = (0..<Int(random.next() % 512)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    } else {
                        let seeds = FuzzCorpus.validRequests
                        bytes = seeds[Int(random.next() % UInt64(seeds.count))]
                        FuzzCorpus.mutate(&bytes, using: &random)
                    }
                    let client = try server.client()
                    client.sendIgnoringErrors(bytes)
                    shutdown(client.fd, Int32(SHUT_WR))
                    // After our FIN the server must answer what it can and close, well within the timeout.
                    let output = try client.readUntilClosed()
                    if !output.isEmpty {
                        #expect(output.starts(with: Array("HTTP/1.1 ".utf8)), "iteration \(iteration)")
                    }
                    if iteration % 50 == 49 {
                        #expect(try server.client().get("/hello").status == 200, "after iteration \(iteration)")
                    }
                }
                #expect(try server.client().get("/hello").text == "hello")
            }
        }
    }
}
