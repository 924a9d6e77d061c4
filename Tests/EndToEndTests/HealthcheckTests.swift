import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery healthcheck`, the image's HEALTHCHECK: exit 0 for a 2xx, 1 for anything else, 2 for an unusable URL.
@Suite(.serialized) struct HealthcheckTests {
    /// A TCP socket bound to a free loopback port; `listening` decides whether connections are accepted into the
    /// backlog (and then never answered) or refused.
    final class Socket {
        let fd: Int32
        let port: Int

        init(listening: Bool) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound, !listening || listen(fd, 4) == 0 else {
                throw E2EError(description: "bind failed: errno \(errno)")
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    @Test func exitsZeroForAHealthyServerFoundThroughTheEnvironment() async throws {
        try await blocking {
            let livery = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"])
            // As in the image: no --url, the server's own LIVERY_PORT.
            let implicit = try LiveryProcess.run(["healthcheck"], environment: ["LIVERY_PORT": "\(livery.port)"])
            #expect(implicit.status == 0)
            #expect(implicit.output == "healthy: 200 from http://127.0.0.1:\(livery.port)/healthz\n")
            try livery.waitUntilReady()
            let explicit = try LiveryProcess.run(["healthcheck", "--url", "http://localhost:\(livery.port)/readyz"])
            #expect(explicit.status == 0, "\(explicit.output)")
            let missing = try LiveryProcess.run(["healthcheck", "--url", "http://127.0.0.1:\(livery.port)/nope"])
            #expect(missing.status == 1)
            #expect(missing.output.hasPrefix("unhealthy: 404 "))
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func exitsOneWhenNothingListens() async throws {
        try await blocking {
            let closed = try Socket(listening: false)
            let result = try LiveryProcess.run(["healthcheck", "--url", "http://127.0.0.1:\(closed.port)/healthz"])
            #expect(result.status == 1)
            #expect(result.output.contains("connection refused"), "\(result.output)")
        }
    }

    @Test func exitsOneWhenTheServerNeverAnswers() async throws {
        try await blocking {
            let silent = try Socket(listening: true)
            let result = try LiveryProcess.run(
                ["healthcheck", "--url", "http://127.0.0.1:\(silent.port)/healthz", "--timeout", "0.3"])
            #expect(result.status == 1)
            #expect(result.output.contains("no answer within 0.3 s"), "\(result.output)")
        }
    }

    @Test(arguments: [
        "https://127.0.0.1/healthz", "ftp://127.0.0.1/", "http://:8080/healthz", "http://[::1/", "http://127.0.0.1:0/",
        "http://127.0.0.1:99999/", "127.0.0.1:8080"
    ])
    func exitsTwoForAnUnusableURL(url: String) async throws {
        try await blocking {
            let result = try LiveryProcess.run(["healthcheck", "--url", url])
            #expect(result.status == 2)
            #expect(result.output.contains("is not an http://host:port/path URL"))
        }
    }
}
