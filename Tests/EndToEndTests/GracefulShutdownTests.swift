import Foundation
import HTTPTestSupport
import LiveryCrypto
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM as a container runtime sends it: in-flight downloads finish, `/readyz` turns 503, then exit 0.
@Suite(.serialized) struct GracefulShutdownTests {
    /// A live copy of the Christmas sample whose GIF resource is replaced by `bytes` of incompressible data, so each
    /// package is larger than the socket buffers between the server and a reader that stops reading.
    static func largeSkins(bytes: Int) throws -> ScratchDirectory {
        let skins = try AppFlowTests.liveSkins("christmas-2026")
        var generator = SystemRandomNumberGenerator()
        var data = Data("GIF89a".utf8)
        data.reserveCapacity(bytes)
        while data.count < bytes {
            withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0) }
        }
        try data.write(to: URL(fileURLWithPath: skins.path("christmas-2026/xmas/snow.gif")))
        return skins
    }

    /// A raw client with a small receive buffer, so the server's sends block while it does not read.
    final class SlowReader {
        private let client: TestClient
        var fd: Int32 { client.fd }
        private(set) var received: [UInt8] = []

        init(port: Int, target: String) throws {
            client = try TestClient(port: port, timeout: 10, receiveBufferSize: 16 * 1024)
            try client.send("GET \(target) HTTP/1.1\r\nHost: test\r\n\r\n")
        }

        /// Receives at most `limit` more bytes (one `recv`); false at end of stream.
        @discardableResult
        func read(upTo limit: Int = 4096) throws -> Bool {
            var chunk = [UInt8](repeating: 0, count: limit)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received += chunk[0..<count]
                    return true
                }
                if count == 0 { return false }
                if errno != EINTR { throw E2EError(description: "recv failed: errno \(errno)") }
            }
        }

        /// The head and the body, once `read` has seen the whole response (by its Content-Length).
        var response: (head: String, body: ArraySlice<UInt8>)? {
            guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
            guard
                let line = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
                let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
                received.count - end.upperBound >= length
            else { return nil }
            return (head, received[end.upperBound..<(end.upperBound + length)])
        }
    }

    /// Whether a new connection to `port` is refused (the listener is closed).
    static func refusesConnections(port: Int) -> Bool {
        do {
            _ = try TestClient(port: port, timeout: 1)
            return false
        } catch {
            return "\(error)".contains("errno \(ECONNREFUSED)")
        }
    }

    @Test func sigtermDuringAPackageDownloadLetsItCompleteThenExitsZero() async throws {
        let scratch = try Self.largeSkins(bytes: 8 << 20)
        let skins = scratch.path
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--drain-timeout", "30", "--log-level", "warning"],
                environment: ["LIVERY_SKINS_DIR": skins])
            try livery.waitUntilReady()
            let answer = try TestClient(port: livery.port).get("/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            let url = try #require(json["packageUrl"] as? String)
            let size = try #require(json["size"] as? Int)
            let sha256 = try #require(json["sha256"] as? String)
            #expect(size > 8 << 20)

            let reader = try SlowReader(port: livery.port, target: url)
            try reader.read()
            #expect(kill(livery.processIdentifier, SIGTERM) == 0)
            // Draining has begun once the listener is closed; the download is still far from done.
            var refused = false
            for _ in 0..<200 where !refused {
                refused = Self.refusesConnections(port: livery.port)
                if !refused { usleep(25_000) }
            }
            #expect(refused, "the listener closes on SIGTERM")
            #expect(reader.received.count < size / 2)
            #expect(livery.isRunning, "an unfinished download keeps the process draining")

            while reader.response == nil, try reader.read(upTo: 64 * 1024) {}
            let response = try #require(reader.response, "the whole package arrives")
            #expect(response.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.body.count == size)
            #expect(SHA256.hexHash(Array(response.body)) == sha256)
            #expect(try livery.waitForExit(seconds: 20) == 0)
        }
    }

    @Test func readyzAnswers503DuringTheShutdownDelayThenTheProcessExitsZero() async throws {
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--shutdown-delay", "2"])
            try livery.waitUntilReady()
            let signalled = Date()
            #expect(kill(livery.processIdentifier, SIGTERM) == 0)
            var readiness: TestResponse?
            for _ in 0..<100 {
                let response = try TestClient(port: livery.port).get("/readyz")
                if response.status == 503 {
                    readiness = response
                    break
                }
                usleep(20_000)
            }
            let draining = try #require(readiness, "/readyz turns 503 after SIGTERM")
            #expect(draining.text == #"{"status":"draining"}"#)
            // Still alive and still accepting during the delay.
            #expect(try TestClient(port: livery.port).get("/healthz").status == 200)
            #expect(try livery.waitForExit(seconds: 20) == 0)
            #expect(Date().timeIntervalSince(signalled) >= 1.9, "the listener stayed open for the delay")
            #expect(livery.output.contains("draining; /readyz answers 503"))
        }
    }
}
