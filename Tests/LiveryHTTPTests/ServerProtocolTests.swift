import Foundation
import HTTPTestSupport
import Logging
import Synchronization
import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 behaviour over real sockets on 127.0.0.1.
@Suite struct ServerProtocolTests {
    @Test func answersWithContentLengthDateServerAndRequestID() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                let response = try client.get("/hello")
                #expect(response.status == 200)
                #expect(response.text == "hello")
                #expect(response.header("content-length") == "5")
                #expect(response.header("content-type") == "text/plain")
                #expect(response.header("server") == "Livery")
                let date = try #require(response.header("date"))
                #expect(date.hasSuffix(" GMT") && date.count == 29)
                let id = try #require(response.header("x-request-id"))
                #expect(RequestIDGenerator.isAcceptable(id))
                #expect(response.header("connection") == nil)
            }
        }
    }

    @Test func keepsConnectionsAliveAcrossRequests() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                var ids = Set<String>()
                for index in 0..<20 {
                    let response = try client.get("/seq/\(index)")
                    #expect(response.text == "seq \(index)")
                    ids.insert(response.header("x-request-id") ?? "")
                }
                #expect(ids.count == 20)
            }
        }
    }

    @Test func answersTenPipelinedRequestsInOrder() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                let requests = (0..<10).map { "GET /seq/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined()
                try client.send(requests)
                for index in 0..<10 {
                    #expect(try client.readResponse().text == "seq \(index)")
                }
            }
        }
    }

    @Test func keepsPipelinedOrderAcrossAsyncHandlersAndBodies() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client(timeout: 30)
                var requests = ""
                for index in 0..<10 {
                    requests +=
                        index % 3 == 0
                        ? "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nbody-\(index)"
                        : "GET /async/\(index) HTTP/1.1\r\nHost: t\r\n\r\n"
                }
                try client.send(requests)
                for index in 0..<10 {
                    #expect(try client.readResponse().text == (index % 3 == 0 ? "body-\(index)" : "async \(index)"))
                }
            }
        }
    }

    /// `HTTPServer.Configuration.handlerExecutor`: asynchronous handlers run where the configuration says (a test
    /// server's, on threads of their own), or on the cooperative pool when it names no executor.
    @Test(arguments: [true, false])
    func asynchronousHandlersRunOnTheConfiguredExecutor(configured: Bool) async throws {
        let routes: (Router) -> Void = { router in
            router.on(
                .get, "/where",
                .async { _ in
                    await Task.yield()
                    return HTTPResponse(body: .bytes(Array("\(ThreadPerJobExecutor.isCurrentThreadOne)".utf8)))
                })
        }
        try await withTestServer(
            configure: { if !configured { $0.handlerExecutor = nil } }, routes: routes
        ) { server in
            // On the pool, the answer waits for a thread as long as the rest of the run keeps it busy (past 30 s on
            // two cores): give it minutes.
            let answer = try await blocking { try server.client(timeout: configured ? 30 : 240).get("/where").text }
            #expect(answer == "\(configured)")
        }
    }

    @Test func syncOrAsyncHandlersAnswerInlineOrLaterInPipelinedOrder() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client(timeout: 120)
                try client.send((0..<8).map { "GET /either/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
                for index in 0..<8 {
                    #expect(try client.readResponse().text == (index % 2 == 0 ? "now \(index)" : "later \(index)"))
                }
            }
        }
    }

    @Test func readsChunkedBodiesWithTrailers() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                try client.send(
                    "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "4\r\nWiki\r\n6;ext=1\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Checksum: 42\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.text == "Wikipedia in \r\n\r\nchunks.")
                #expect(response.header("x-trailers") == "X-Checksum=42")
                // The connection stays usable after a chunked request.
                #expect(try client.get("/hello").text == "hello")
            }
        }
    }

    @Test func readsALargeChunkedUploadInManyPieces() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                var expected: [UInt8] = []
                var wireBytes = Array("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                var random = SplitMix64(seed: 7)
                for _ in 0..<200 {
                    let size = Int(random.next() % 4000) + 1
                    let chunk = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    expected += chunk
                    wireBytes += Array(String(size, radix: 16).utf8) + [13, 10] + chunk + [13, 10]
                }
                wireBytes += Array("0\r\n\r\n".utf8)
                try client.send(wireBytes)
                #expect(try client.readResponse().body == expected)
            }
        }
    }

    @Test func answersHeadWithHeadersOnlyAndTheGetLength() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                let head = try client.readResponse(forHead: true)
                #expect(head.status == 200)
                #expect(head.header("content-length") == "5")
                #expect(head.body.isEmpty)
                // Had the server sent a body, it would be read here as the next status line.
                #expect(try client.get("/hello").text == "hello")
            }
        }
    }

    @Test func http10ClosesByDefault() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                try client.send("GET /hello HTTP/1.0\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.text == "hello")
                #expect(response.header("connection") == "close")
                #expect(try client.closesWithoutData())
            }
        }
    }

    @Test func http10KeepsAliveWhenAsked() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                for _ in 0..<3 {
                    try client.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                    let response = try client.readResponse()
                    #expect(response.text == "hello")
                    #expect(response.header("connection") == "keep-alive")
                }
            }
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                try client.send(
                    "GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.closesConnection)
                // The request pipelined after `Connection: close` is not answered.
                #expect(try client.closesWithoutData())
            }
        }
    }

    @Test func sendsContinueBeforeReadingTheBody() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                let interim = try client.readResponse()
                #expect(interim.status == 100)
                try client.send("hello")
                let final = try client.readResponse()
                #expect(final.status == 200)
                #expect(final.text == "hello")
            }
        }
    }

    @Test func refusesAnOversizedBodyInsteadOfContinuing() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                try client.send("POST /small HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 17\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 413)
                #expect(response.closesConnection)
                #expect(response.text.contains(#""code":"content_too_large""#))
                #expect(try client.closesWithoutData())
            }
        }
    }

    @Test func respondsToOversizedBodyWithoutReadingIt() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                // Claims 1 GiB but sends only the head: the answer must not wait for the body.
                try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1073741824\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 413)
                #expect(response.closesConnection)
            }
        }
    }

    @Test func decodesQueryParameters() async throws {
        try await withTestServer { server in
            try await blocking {
                let response = try server.client().get("/query?platform=ios&tag=a+b&tag=%E2%9C%93")
                #expect(response.text == "platform=ios&tag=a b&tag=✓")
            }
        }
    }

    @Test func reusesAValidIncomingRequestIDAndReplacesAnInvalidOne() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                let reused = try client.get("/request-id", headers: "X-Request-Id: trace-abc.123\r\n")
                #expect(reused.header("x-request-id") == "trace-abc.123")
                #expect(reused.text == "trace-abc.123")
                let replaced = try client.get("/request-id", headers: "X-Request-Id: has spaces in it\r\n")
                #expect(replaced.header("x-request-id") != "has spaces in it")
                #expect(replaced.text == replaced.header("x-request-id"))
            }
        }
    }

    @Test func omitsContentLengthForNoContent() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                try client.send("GET /empty HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 204)
                #expect(response.header("content-length") == nil)
                #expect(try client.get("/hello").status == 200)
            }
        }
    }

    @Test func answersNotFoundAndMethodNotAllowedOverTheWire() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                let missing = try client.get("/nope")
                #expect(missing.status == 404)
                #expect(
                    missing.text
                        == #"{"error":{"code":"not_found","message":"No resource at this path.","details":{"field":"path","reason":"no resource at this path"}}}"#
                )
                // No cache may keep an error (Varnish kept an unknown path's 404 for 120 s).
                #expect(missing.header("cache-control") == "no-store")
                try client.send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                let wrongMethod = try client.readResponse()
                #expect(wrongMethod.status == 405)
                #expect(wrongMethod.header("allow") == "GET, HEAD")
                #expect(wrongMethod.header("cache-control") == "no-store")
                #expect(
                    wrongMethod.text.contains(#""details":{"field":"method","reason":"this path allows GET, HEAD"}"#))
                // Neither closes the connection.
                #expect(try client.get("/hello").status == 200)
            }
        }
    }

    @Test func replacesResponsesWithInvalidHeadersByA500() async throws {
        let routes: (Router) -> Void = { router in
            router.on(
                .get, "/bad",
                .sync { _ in HTTPResponse(headers: ["X-Evil": "a\r\nSet-Cookie: x=1"], body: .bytes([1])) })
            router.on(.get, "/hello", .sync { _ in HTTPResponse(body: .bytes(Array("hello".utf8))) })
        }
        try await withTestServer(routes: routes) { server in
            try await blocking {
                let client = try server.client()
                let response = try client.get("/bad")
                #expect(response.status == 500)
                #expect(response.header("set-cookie") == nil)
                #expect(response.header("x-evil") == nil)
                #expect(try client.get("/hello").text == "hello")
            }
        }
    }

    @Test func streamsFileBodiesWithOffsetAndLength() async throws {
        let directory = try ScratchDirectory(prefix: "livery-http")
        var random = SplitMix64(seed: 99)
        let content = (0..<(3 << 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let path = try directory.write("blob.bin", content)
        let routes: (Router) -> Void = { router in
            router.on(
                .get, "/whole",
                .sync { _ in HTTPResponse(body: .file(path: path, offset: 0, length: UInt64(content.count))) })
            router.on(
                .get, "/range",
                .sync { _ in HTTPResponse(status: .partialContent, body: .file(path: path, offset: 1000, length: 5000))
                })
            // Crosses the boundaries of the chunks a file body is sent in, at odd offsets.
            router.on(
                .get, "/wide-range",
                .sync { _ in
                    HTTPResponse(status: .partialContent, body: .file(path: path, offset: 524_287, length: 1_600_003))
                })
            router.on(
                .get, "/missing", .sync { _ in HTTPResponse(body: .file(path: path + ".nope", offset: 0, length: 1)) })
            router.on(
                .get, "/too-long",
                .sync { _ in HTTPResponse(body: .file(path: path, offset: 0, length: UInt64(content.count + 1))) })
            router.on(
                .get, "/directory", .sync { _ in HTTPResponse(body: .file(path: directory.path, offset: 0, length: 1)) }
            )
        }
        try await withTestServer(routes: routes) { server in
            try await blocking {
                let client = try server.client()
                let whole = try client.get("/whole")
                #expect(whole.body.count == content.count)
                #expect(whole.body == content)
                let range = try client.get("/range")
                #expect(range.status == 206)
                #expect(range.body == Array(content[1000..<6000]))
                #expect(try client.get("/wide-range").body == Array(content[524_287..<(524_287 + 1_600_003)]))
                try client.send("HEAD /whole HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse(forHead: true).header("content-length") == "\(content.count)")
                for broken in ["/missing", "/too-long", "/directory"] {
                    let response = try client.get(broken)
                    #expect(response.status == 500, "\(broken)")
                    #expect(!response.text.contains(path), "file paths never reach clients")
                }
                #expect(try client.get("/range").status == 206)
            }
        }
    }

    @Test func handlesAClientThatReadsSlowly() async throws {
        // 8 MiB response to a client that does not read at first: the server must queue, not block or drop.
        let big = [UInt8](repeating: 0x61, count: 8 << 20)
        let routes: (Router) -> Void = { router in
            router.on(.get, "/big", .sync { _ in HTTPResponse(body: .bytes(big)) })
            router.on(.get, "/hello", .sync { _ in HTTPResponse(body: .bytes(Array("hello".utf8))) })
        }
        try await withTestServer(routes: routes) { server in
            try await blocking {
                let slow = try server.client()
                try slow.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                // Meanwhile another client is served.
                #expect(try server.client().get("/hello").text == "hello")
                #expect(try slow.readResponse().body.count == big.count)
                #expect(try slow.readResponse().text == "hello")
            }
        }
    }

    @Test func sendsLargeInMemoryBodiesWholeAndInOrderBetweenPipelinedSmallOnes() async throws {
        // Bodies from 8 KiB on go out after their head without being copied into the loop's buffer: each arrives
        // whole, byte for byte, and in request order, whatever was staged before it or still waits behind it.
        let bodies = [9 << 10, 100 << 10, 3 << 20].map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) } }
        let routes: (Router) -> Void = { router in
            for (index, body) in bodies.enumerated() {
                router.on(.get, "/large/\(index)", .sync { _ in HTTPResponse(body: .bytes(body)) })
            }
            router.on(.get, "/small", .sync { _ in HTTPResponse(body: .bytes(Array("small".utf8))) })
        }
        try await withTestServer(routes: routes) { server in
            try await blocking {
                let client = try server.client()
                let paths = ["/small", "/large/0", "/small", "/large/1", "/large/2", "/small", "/large/0"]
                try client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
                for path in paths {
                    let response = try client.readResponse()
                    if let index = Int(path.dropFirst("/large/".count)), path.hasPrefix("/large/") {
                        #expect(response.body == bodies[index], "\(path)")
                    } else {
                        #expect(response.text == "small")
                    }
                }
            }
        }
    }

    @Test func reportsEveryRequestToTheObserver() async throws {
        let observer = RecordingObserver()
        try await withTestServer(configure: { $0.observer = observer }) { server in
            try await blocking {
                let client = try server.client()
                _ = try client.get("/seq/1")
                _ = try client.get("/nope")
                try client.send("GARBAGE\r\n\r\n")
                _ = try client.readResponse()
                _ = try client.readUntilClosed()
            }
            let events = observer.requests.withLock { $0 }
            #expect(events.count == 3)
            #expect(events.map(\.routePattern) == ["/seq/:n", nil, nil])
            #expect(events.map(\.status.code) == [200, 404, 400])
            #expect(events.map(\.method) == [.get, .get, nil])
            #expect(events.allSatisfy { $0.bytesSent > 0 && !$0.requestID.isEmpty })
            #expect(observer.opened.load(ordering: .relaxed) == 1)
        }
        #expect(observer.closed.load(ordering: .relaxed) == 1)
    }

    @Test func logsOneLinePerRequestWithoutQueryOrSecrets() async throws {
        let handler = LogCapture()
        let logger = Logger(label: "test", factory: { _ in handler })
        try await withTestServer(logger: logger) { server in
            try await blocking {
                let client = try server.client()
                _ = try client.get("/query?token=s3cret-query", headers: "Authorization: Bearer s3cret-header\r\n")
                _ = try client.get("/hello")
            }
        }
        let lines = handler.records.filter { $0.metadata["request.id"] != nil }
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(first.message.hasPrefix("GET /query 200 "))
        #expect(first.level == .info)
        #expect(
            !handler.records.contains { record in
                (record.message + record.metadata.values.joined()).contains("s3cret")
            })
    }

    @Test func servesOnPortZeroAndReportsTheBoundAddress() async throws {
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0), router: Router(), logger: TestServer.quietLogger)
        let address = try server.start()
        #expect(address.host == "127.0.0.1")
        #expect(address.port > 0)
        #expect(server.localAddress == address)
        #expect(address.description == "127.0.0.1:\(address.port)")
        await server.shutdown()
        #expect(server.localAddress == nil)
    }

    @Test func refusesToBindAPortInUse() async throws {
        try await withTestServer { running in
            let second = HTTPServer(
                configuration: .init(host: "127.0.0.1", port: running.port), router: Router(),
                logger: TestServer.quietLogger)
            #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: running.port)) { try second.start() }
        }
    }

    @Test func rejectsInvalidConfigurationAndDoubleStart() async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.maxHeaderCount = 0
        let invalid = HTTPServer(configuration: configuration, router: Router(), logger: TestServer.quietLogger)
        #expect(throws: HTTPServerError.self) { try invalid.start() }
        let unresolvable = HTTPServer(
            configuration: .init(host: "not an address", port: 0), router: Router(), logger: TestServer.quietLogger)
        #expect(throws: HTTPServerError.invalidAddress(host: "not an address", port: 0)) { try unresolvable.start() }
        try await withTestServer { server in
            #expect(throws: HTTPServerError.alreadyStarted) { try server.server.start() }
        }
    }

    /// An IPv6 socket (the v4-mapped form of 127.0.0.1, so nothing listens beyond loopback) in dual-stack mode
    /// takes IPv4 clients; `::` works the same way for every address.
    @Test func listensOnAnIPv6SocketInDualStackMode() async throws {
        try await withTestServer(configure: { $0.host = "::ffff:127.0.0.1" }) { server in
            // v4-mapped addresses print as plain IPv4.
            #expect(server.server.localAddress?.description == "127.0.0.1:\(server.port)")
            try await blocking {
                let text = try server.client().get("/hello").text
                #expect(text == "hello")
            }
        }
    }

    @Test func resolvesAndPrintsIPv4AndIPv6Addresses() throws {
        #expect(try BindAddress.resolve(host: "::", port: 0).family == AF_INET6)
        #expect(try BindAddress.resolve(host: "::1", port: 80).family == AF_INET6)
        #expect(try BindAddress.resolve(host: "0.0.0.0", port: 8080).family == AF_INET)
        #expect(throws: HTTPServerError.invalidAddress(host: "127.0.0.1", port: 70000)) {
            try BindAddress.resolve(host: "127.0.0.1", port: 70000)
        }
        let loopback6 = try BindAddress.resolve(host: "::1", port: 8443)
        #expect(SocketAddress(loopback6.storage)?.description == "[::1]:8443")
        #expect(SocketAddress(loopback6.storage)?.isIPv6 == true)
        let any4 = try BindAddress.resolve(host: "0.0.0.0", port: 80)
        #expect(SocketAddress(any4.storage)?.description == "0.0.0.0:80")
    }

}
