import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import HTTPTestSupport
    import Glibc
#endif

/// What the server must do with a hostile request.
enum HostileOutcome: Sendable, Equatable {
    /// Answer with this status, `Connection: close`, a JSON error body, then close.
    case status(Int)
    /// Close without answering (nothing answerable arrived).
    case closed
}

struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let outcome: HostileOutcome

    init(_ name: String, _ text: String, _ outcome: HostileOutcome) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.outcome = outcome
    }

    init(_ name: String, bytes: [UInt8], _ outcome: HostileOutcome) {
        self.name = name
        self.bytes = bytes
        self.outcome = outcome
    }

    var testDescription: String { name }

    static let host = "Host: t\r\n"

    static let all: [HostileCase] = [
        // Line endings (RFC 9112 §2.2).
        HostileCase("bare LF ends the request line", "GET /hello HTTP/1.1\nHost: t\r\n\r\n", .status(400)),
        HostileCase("bare LF ends a header line", "GET /hello HTTP/1.1\r\nHost: t\nX: y\r\n\r\n", .status(400)),
        HostileCase("bare LF only", "GET /hello HTTP/1.1\nHost: t\n\n", .status(400)),
        HostileCase("bare CR inside a header value", "GET /hello HTTP/1.1\r\n\(host)X: a\rb\r\n\r\n", .status(400)),
        HostileCase("bare CR before the request line", "\rGET /hello HTTP/1.1\r\n\(host)\r\n", .status(400)),
        // NUL and control bytes.
        HostileCase("NUL in a header value", "GET /hello HTTP/1.1\r\n\(host)X: a\u{0}b\r\n\r\n", .status(400)),
        HostileCase("NUL in the target", "GET /hel\u{0}lo HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("NUL in the method", "GE\u{0}T /hello HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("DEL in a header value", "GET /hello HTTP/1.1\r\n\(host)X: \u{7F}\r\n\r\n", .status(400)),
        HostileCase(
            "escape character in a header value", "GET /hello HTTP/1.1\r\n\(host)X: \u{1B}[31m\r\n\r\n", .status(400)),
        HostileCase("percent-encoded NUL in the path", "GET /hello%00.txt HTTP/1.1\r\n\(host)\r\n", .status(400)),
        // Tokens and request line shape.
        HostileCase("invalid token character in the method", "GE(T /hello HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase(
            "invalid token character in a header name", "GET /hello HTTP/1.1\r\n\(host)X{Y}: z\r\n\r\n", .status(400)),
        HostileCase("non-ASCII header name", "GET /hello HTTP/1.1\r\n\(host)Ünicode: z\r\n\r\n", .status(400)),
        HostileCase("empty header name", "GET /hello HTTP/1.1\r\n\(host): z\r\n\r\n", .status(400)),
        HostileCase("header line without colon", "GET /hello HTTP/1.1\r\n\(host)JustAName\r\n\r\n", .status(400)),
        HostileCase("double space in the request line", "GET  /hello HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("trailing space after the version", "GET /hello HTTP/1.1 \r\n\(host)\r\n", .status(400)),
        HostileCase("lower-case protocol name", "GET /hello http/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("HTTP/0.9 simple request", "GET /hello\r\n\r\n", .status(400)),
        HostileCase("HTTP/2.0 version", "GET /hello HTTP/2.0\r\n\(host)\r\n", .status(505)),
        HostileCase("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .status(505)),
        HostileCase("relative target", "GET hello HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("asterisk target with GET", "GET * HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("non-HTTP absolute target", "GET file:///etc/passwd HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("malformed percent-encoding", "GET /%zz HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase("raw UTF-8 in the target", "GET /caf\u{E9} HTTP/1.1\r\n\(host)\r\n", .status(400)),
        HostileCase(
            "CONNECT tunnel", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", .status(501)),
        HostileCase(
            "binary garbage", bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 13, 10, 13, 10],
            .status(400)),
        // Header folding and whitespace (RFC 9112 §5.1, §5.2).
        HostileCase("obs-fold continuation line", "GET /hello HTTP/1.1\r\n\(host)X: a\r\n  b\r\n\r\n", .status(400)),
        HostileCase("whitespace before the first header", "GET /hello HTTP/1.1\r\n Host: t\r\n\r\n", .status(400)),
        HostileCase("space before colon", "GET /hello HTTP/1.1\r\nHost : t\r\n\r\n", .status(400)),
        HostileCase("tab before colon", "GET /hello HTTP/1.1\r\n\(host)Content-Length\t: 0\r\n\r\n", .status(400)),
        // Host (RFC 9112 §3.2).
        HostileCase("missing Host in HTTP/1.1", "GET /hello HTTP/1.1\r\n\r\n", .status(400)),
        HostileCase("two Host fields", "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .status(400)),
        HostileCase("Host with a path", "GET /hello HTTP/1.1\r\nHost: a/b\r\n\r\n", .status(400)),
        HostileCase("Host with userinfo", "GET /hello HTTP/1.1\r\nHost: user@evil\r\n\r\n", .status(400)),
        // Content-Length (RFC 9112 §6.3).
        HostileCase(
            "duplicate identical Content-Length",
            "POST /echo HTTP/1.1\r\n\(host)Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", .status(400)),
        HostileCase(
            "conflicting Content-Length",
            "POST /echo HTTP/1.1\r\n\(host)Content-Length: 3\r\nContent-Length: 30\r\n\r\nabc", .status(400)),
        HostileCase(
            "Content-Length list", "POST /echo HTTP/1.1\r\n\(host)Content-Length: 3, 3\r\n\r\nabc", .status(400)),
        HostileCase(
            "negative Content-Length", "POST /echo HTTP/1.1\r\n\(host)Content-Length: -3\r\n\r\nabc", .status(400)),
        HostileCase(
            "signed Content-Length", "POST /echo HTTP/1.1\r\n\(host)Content-Length: +3\r\n\r\nabc", .status(400)),
        HostileCase(
            "overflowing Content-Length", "POST /echo HTTP/1.1\r\n\(host)Content-Length: 18446744073709551617\r\n\r\n",
            .status(400)),
        HostileCase(
            "hexadecimal Content-Length", "POST /echo HTTP/1.1\r\n\(host)Content-Length: 0x3\r\n\r\nabc", .status(400)),
        HostileCase("empty Content-Length", "POST /echo HTTP/1.1\r\n\(host)Content-Length: \r\n\r\n", .status(400)),
        // Transfer-Encoding and smuggling (RFC 9112 §6.1, §6.3).
        HostileCase(
            "CL.TE smuggling",
            "POST /echo HTTP/1.1\r\n\(host)Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG",
            .status(400)),
        HostileCase(
            "TE.CL smuggling",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n",
            .status(400)),
        HostileCase(
            "TE.TE with an obfuscated second coding",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nTransfer-Encoding: cow\r\n\r\n0\r\n\r\n",
            .status(501)),
        HostileCase(
            "Transfer-Encoding xchunked", "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
            .status(501)),
        HostileCase(
            "Transfer-Encoding gzip", "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: gzip\r\n\r\n", .status(501)),
        HostileCase(
            "Transfer-Encoding gzip, chunked",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", .status(501)),
        HostileCase(
            "chunked applied twice",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", .status(400)),
        HostileCase(
            "empty Transfer-Encoding", "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: \r\n\r\n", .status(400)),
        HostileCase(
            "Transfer-Encoding in HTTP/1.0", "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            .status(400)),
        HostileCase(
            "space before colon in Transfer-Encoding",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", .status(400)),
        HostileCase(
            "Transfer-Encoding folded onto a new line",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n", .status(400)),
        // Chunk framing (RFC 9112 §7.1).
        HostileCase(
            "non-hex chunk size", "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nzz\r\n", .status(400)
        ),
        HostileCase(
            "negative chunk size",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n", .status(400)),
        HostileCase(
            "overflowing chunk size",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", .status(400)),
        HostileCase(
            "chunk size with 0x prefix",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", .status(400)),
        HostileCase(
            "chunk data longer than its size",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n", .status(400)),
        HostileCase(
            "chunk size line ending in bare LF",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", .status(400)),
        HostileCase(
            "control character in a chunk extension",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5;a\u{0}b\r\nhello\r\n0\r\n\r\n",
            .status(400)),
        HostileCase(
            "malformed trailer",
            "POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer\r\n\r\n", .status(400)),
        // Limits.
        HostileCase(
            "header section over 16 KiB",
            "GET /hello HTTP/1.1\r\n\(host)X-Big: \(String(repeating: "a", count: 17 * 1024))\r\n\r\n", .status(431)),
        HostileCase(
            "request line over 16 KiB", "GET /\(String(repeating: "a", count: 17 * 1024)) HTTP/1.1\r\n\(host)\r\n",
            .status(431)),
        HostileCase(
            "101 header fields",
            "GET /hello HTTP/1.1\r\n\(host)" + (0..<100).map { "X-\($0): v\r\n" }.joined() + "\r\n", .status(431)),
        HostileCase(
            "endless header without a line end",
            "GET /hello HTTP/1.1\r\nX: " + String(repeating: "b", count: 40 * 1024), .status(431)),
        HostileCase(
            "Content-Length over the route limit", "POST /small HTTP/1.1\r\n\(host)Content-Length: 17\r\n\r\n",
            .status(413)),
        HostileCase(
            "chunked body over the route limit",
            "POST /small HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n1\r\nx\r\n0\r\n\r\n",
            .status(413)),
        HostileCase(
            "unknown expectation", "POST /echo HTTP/1.1\r\n\(host)Expect: 200-maybe\r\nContent-Length: 1\r\n\r\nx",
            .status(417)),
        // Clean closes: nothing answerable.
        HostileCase("only empty lines, then EOF", "\r\n\r\n\r\n", .closed),
        HostileCase("incomplete head, then EOF", "GET /hello HTTP/1.1\r\nHost: t\r\n", .closed),
        HostileCase(
            "incomplete body, then EOF", "POST /echo HTTP/1.1\r\n\(host)Content-Length: 100\r\n\r\nonly-this", .closed)
    ]

    /// The error `code` the JSON body must carry for each status.
    static func expectedCode(for status: Int) -> String? {
        switch status {
        case 413: "content_too_large"
        case 417: "unsupported_expectation"
        case 505: "unsupported_version"
        default: nil
        }
    }
}

/// Hostile requests over real sockets: each gets its exact status (or a clean close), never a crash, and the
/// server keeps answering normal requests afterwards.
@Suite struct HostileRequestTests {
    @Test func tableHasAtLeastFortyCases() {
        #expect(HostileCase.all.count >= 40)
        #expect(Set(HostileCase.all.map(\.name)).count == HostileCase.all.count)
    }

    @Test(arguments: HostileCase.all)
    func answersHostileRequestAndKeepsServing(_ hostile: HostileCase) async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                client.sendIgnoringErrors(hostile.bytes)
                switch hostile.outcome {
                case .status(let status):
                    let response = try client.readResponse()
                    #expect(response.status == status)
                    #expect(response.closesConnection)
                    #expect(response.header("content-type") == "application/json")
                    #expect(response.text.hasPrefix(#"{"error":{"code":""#))
                    #expect(response.header("cache-control") == "no-store")
                    #expect(response.text.contains(#""details":{"field":""#), "every refusal names the part at fault")
                    if let code = HostileCase.expectedCode(for: status) {
                        #expect(response.text.contains(#""code":"\#(code)""#))
                    }
                    // Nothing else follows: a hidden second request is never answered.
                    #expect(try client.closesWithoutData())
                case .closed:
                    shutdown(client.fd, Int32(SHUT_WR))
                    #expect(try client.closesWithoutData())
                }
                let healthy = try server.client().get("/hello")
                #expect(healthy.status == 200)
            }
        }
    }

    @Test func neverAnswersARequestSmuggledBehindARejectedOne() async throws {
        try await withTestServer { server in
            try await blocking {
                let client = try server.client()
                // Front ends disagreeing on framing would see the GET as a second request; we must not.
                try client.send(
                    "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 42\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "0\r\n\r\nGET /seq/smuggled HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 400)
                #expect(try client.closesWithoutData())
            }
        }
    }
}
