import TestSupport
import Testing

@testable import LiveryHTTP

/// The parser on its own, fed from bytes: whole, in odd-sized pieces, and drip-fed one byte at a time.
@Suite struct HTTPRequestParserTests {
    static let pieceSizes = [Int.max, 1, 2, 3, 7, 64]

    @Test(arguments: pieceSizes)
    func parsesSimpleGetWhateverTheReadBoundaries(pieceSize: Int) throws {
        let outcome = parse(
            wire("GET /api/v1/skins?platform=ios HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n"),
            pieceSize: pieceSize)
        #expect(outcome.error == nil)
        let message = try #require(outcome.messages.first)
        #expect(outcome.messages.count == 1)
        #expect(message.method == .get)
        #expect(message.target == "/api/v1/skins?platform=ios")
        #expect(message.path == "/api/v1/skins")
        #expect(message.version == .http1_1)
        #expect(message.headers["host"] == "example.com")
        #expect(message.headers["ACCEPT"] == "*/*")
        #expect(message.keepAlive)
        #expect(message.body.isEmpty)
        #expect(outcome.leftover == 0)
    }

    @Test(arguments: pieceSizes)
    func keepsRepeatedHeadersInOrderAndTrimsOptionalWhitespace(pieceSize: Int) throws {
        let outcome = parse(
            wire("GET / HTTP/1.1\r\nHost: h\r\nX-Tag:  one \t\r\nx-tag:two\r\nX-Empty:\r\n\r\n"), pieceSize: pieceSize)
        let message = try #require(outcome.messages.first)
        #expect(message.headers.values("X-TAG") == ["one", "two"])
        #expect(message.headers["x-empty"] == "")
        #expect(message.headers.count == 4)
    }

    /// The request id the server echoes is the first `X-Request-Id` field, in any case, exactly as a lookup of the
    /// headers finds it; the parser notes it as it reads the field, so the connection does not search again.
    @Test func theRequestIDIsTheFirstXRequestIdFieldInAnyCase() throws {
        let cases: [(String, String?)] = [
            ("x-request-id: one\r\nX-Request-Id: two\r\n", "one"),
            ("X-REQUEST-ID:  spaced \r\n", "spaced"),
            ("X-Request-Ids: no\r\nX-Request: no\r\n", nil)
        ]
        for (fields, expected) in cases {
            let outcome = parse(wire("GET / HTTP/1.1\r\nHost: h\r\n\(fields)\r\n"))
            let message = try #require(outcome.messages.first)
            #expect(message.requestID == expected, "\(fields)")
            #expect(message.requestID == message.headers["x-request-id"], "\(fields)")
            #expect(message.headers["host"] == "h")
        }
    }

    @Test(arguments: pieceSizes)
    func readsContentLengthBody(pieceSize: Int) throws {
        let outcome = parse(
            wire("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world"), pieceSize: pieceSize)
        let message = try #require(outcome.messages.first)
        #expect(message.body == wire("hello world"))
        #expect(outcome.leftover == 0)
    }

    @Test(arguments: pieceSizes)
    func readsChunkedBodyWithExtensionsAndTrailers(pieceSize: Int) throws {
        let request = wire(
            "POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n"
                + "1 ; quoted=\"x y\"\r\n \r\n"
                + "00005\r\nworld\r\n"
                + "0\r\nChecksum: abc\r\nX-Count: 3\r\n\r\n")
        let outcome = parse(request, pieceSize: pieceSize)
        #expect(outcome.error == nil)
        let message = try #require(outcome.messages.first)
        #expect(message.body == wire("hello world"))
        #expect(message.trailers["checksum"] == "abc")
        #expect(message.trailers["x-count"] == "3")
        #expect(outcome.leftover == 0)
    }

    @Test(arguments: pieceSizes)
    func readsChunkedBodyWithoutTrailers(pieceSize: Int) throws {
        let outcome = parse(
            wire("POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
            pieceSize: pieceSize)
        let message = try #require(outcome.messages.first)
        #expect(message.body == wire("abc"))
        #expect(message.trailers.isEmpty)
    }

    @Test(arguments: pieceSizes)
    func separatesPipelinedRequests(pieceSize: Int) {
        var bytes: [UInt8] = []
        for index in 0..<5 {
            bytes += wire("POST /p/\(index) HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n\(index)")
            bytes += wire("GET /g/\(index) HTTP/1.1\r\nHost: h\r\n\r\n")
        }
        let outcome = parse(bytes, pieceSize: pieceSize)
        #expect(outcome.error == nil)
        #expect(outcome.messages.map(\.target) == (0..<5).flatMap { ["/p/\($0)", "/g/\($0)"] })
        #expect(
            outcome.messages.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.body)
                == (0..<5).map { wire("\($0)") })
    }

    @Test func ignoresEmptyLinesBeforeTheRequestLine() throws {
        let outcome = parse(wire("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"), pieceSize: 1)
        #expect(outcome.messages.count == 1)
    }

    @Test func reportsAnIncompleteMessageAsLeftover() {
        let outcome = parse(wire("GET / HTTP/1.1\r\nHost: h\r\n"), pieceSize: 1)
        #expect(outcome.messages.isEmpty)
        #expect(outcome.error == nil)
        #expect(outcome.leftover == wire("GET / HTTP/1.1\r\nHost: h\r\n").count)
    }

    @Test func decodesPathButKeepsTargetRaw() throws {
        let message = try #require(parse(wire("GET /a%20b/%C3%A9?x=%41 HTTP/1.1\r\nHost: h\r\n\r\n")).messages.first)
        #expect(message.path == "/a b/é")
        #expect(message.target == "/a%20b/%C3%A9?x=%41")
    }

    @Test func splitsOriginFormIntoRawPathAndQuery() throws {
        let message = try #require(
            parse(wire("GET /a%2Fb/c?x=1&y=%20#frag HTTP/1.1\r\nHost: h\r\n\r\n")).messages.first)
        #expect(message.rawPath == "/a%2Fb/c")
        #expect(message.rawQuery == "x=1&y=%20")
        #expect(message.path == "/a/b/c")
        let plain = try #require(parse(wire("GET /plain HTTP/1.1\r\nHost: h\r\n\r\n")).messages.first)
        #expect(plain.rawPath == "/plain" && plain.rawQuery == "" && plain.path == "/plain")
        let odd = try #require(parse(wire("GET /p?q=%2A?r#f?g%20 HTTP/1.1\r\nHost: h\r\n\r\n")).messages.first)
        #expect(odd.rawPath == "/p" && odd.rawQuery == "q=%2A?r" && odd.path == "/p")
    }

    @Test func acceptsAbsoluteFormAndAsteriskFormForOptions() throws {
        let absolute = try #require(
            parse(wire("GET http://example.com/x?y=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")).messages.first)
        #expect(absolute.path == "/x")
        #expect(absolute.rawPath == "/x" && absolute.rawQuery == "y=1")
        let noPath = try #require(
            parse(wire("GET http://example.com?y=2 HTTP/1.1\r\nHost: example.com\r\n\r\n")).messages.first)
        #expect(noPath.path == "/" && noPath.rawPath == "/" && noPath.rawQuery == "y=2")
        let asterisk = try #require(parse(wire("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")).messages.first)
        #expect(asterisk.path == "*")
    }

    @Test func recognisesStandardAndExtensionMethods() throws {
        for (token, method) in [
            ("GET", HTTPMethod.get), ("HEAD", .head), ("POST", .post), ("PUT", .put),
            ("DELETE", .delete), ("OPTIONS", .options), ("PATCH", .patch), ("PROPFIND", .other("PROPFIND"))
        ] {
            let message = try #require(parse(wire("\(token) / HTTP/1.1\r\nHost: h\r\n\r\n")).messages.first)
            #expect(message.method == method)
        }
    }

    @Test func http10ClosesByDefaultAndKeepsAliveOnRequest() throws {
        let plain = try #require(parse(wire("GET / HTTP/1.0\r\n\r\n")).messages.first)
        #expect(plain.version == .http1_0)
        #expect(!plain.keepAlive)
        let keepAlive = try #require(parse(wire("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")).messages.first)
        #expect(keepAlive.keepAlive)
    }

    @Test func http11KeepsAliveUnlessConnectionClose() throws {
        let closing = try #require(
            parse(wire("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Close\r\n\r\n")).messages.first)
        #expect(!closing.keepAlive)
    }

    @Test func higherMinorVersionIsAnsweredAsHTTP11() throws {
        let message = try #require(parse(wire("GET / HTTP/1.7\r\nHost: h\r\n\r\n")).messages.first)
        #expect(message.version == .http1_1)
    }

    @Test func expectContinueOnlyCountsForHTTP11() throws {
        let http11 = try #require(
            parse(wire("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx")).messages
                .first)
        #expect(http11.expectsContinue)
        let http10 = try #require(
            parse(wire("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx")).messages.first)
        #expect(!http10.expectsContinue)
    }

    @Test func acceptsHeaderSectionExactlyAtTheLimit() {
        let base = "GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n"
        let padding = String(repeating: "a", count: 16 * 1024 - base.utf8.count)
        let request = "GET / HTTP/1.1\r\nHost: h\r\nX: \(padding)\r\n\r\n"
        #expect(request.utf8.count == 16 * 1024)
        #expect(parse(wire(request)).messages.count == 1)
        #expect(parse(wire(request), pieceSize: 1000).messages.count == 1)
        let tooLarge = "GET / HTTP/1.1\r\nHost: h\r\nX: \(padding)a\r\n\r\n"
        #expect(parse(wire(tooLarge)).error == .headerSectionTooLarge)
        #expect(parse(wire(tooLarge), pieceSize: 1000).error == .headerSectionTooLarge)
    }

    @Test func acceptsExactlyTheMaximumHeaderCount() {
        let hundred = (0..<99).map { "X-\($0): v\r\n" }.joined()
        #expect(parse(wire("GET / HTTP/1.1\r\nHost: h\r\n\(hundred)\r\n")).messages.count == 1)
        #expect(parse(wire("GET / HTTP/1.1\r\nHost: h\r\n\(hundred)X-Last: v\r\n\r\n")).error == .tooManyHeaders)
    }

    @Test func limitsTheHeaderSectionWhileItIsStillArriving() {
        // No end of head in sight: the parser must give up once the limit is passed, not wait for more.
        let endless = wire("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 17 * 1024))
        #expect(parse(endless, pieceSize: 512).error == .headerSectionTooLarge)
    }

    @Test func rejectsChunkedBodyOverTheLimitBeforeReadingIt() {
        let request = wire("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n")
        #expect(parse(request, bodyLimit: 15).error == .contentTooLarge(limit: 15))
        #expect(
            parse(wire("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 16\r\n\r\n"), bodyLimit: 15).error
                == .contentTooLarge(limit: 15))
    }

    @Test func contentLengthExactlyAtTheLimitIsAccepted() {
        let request = wire("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nabcd")
        #expect(parse(request, bodyLimit: 4).messages.first?.body == wire("abcd"))
    }

    /// Each malformed request and the exact error the parser must report, drip-fed and whole.
    static let malformed: [(String, HTTPParseError)] = [
        ("GET / HTTP/1.1\nHost: h\n\n", .invalidLineEnding),
        ("GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n", .invalidLineEnding),
        ("\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidLineEnding),
        ("\rGET / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidLineEnding),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7F}\r\n\r\n", .invalidHeaderValue),
        ("GET /\u{0} HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("G\u{0}T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod),
        ("GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET / http/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET /\r\n\r\n", .invalidRequestLine),
        (" GET / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/0.9\r\nHost: h\r\n\r\n", .unsupportedVersion),
        ("GET foo HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET * HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET ftp://h/x HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a%00b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /%C3%28 HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /caf\u{E9} HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q=\u{7F} HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a#frag\u{1} HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET http://h/\u{1} HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        // The query and the fragment follow the path's rules (RFC 3986 §2.1, §3.4, §3.5).
        ("GET /a?q=%zz HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q=%4 HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q=% HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q=%%41 HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?%G0=1 HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q=<b> HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q=\"x\" HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q={1}|^`\\ HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a?q=[1] HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a#f%zz HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a#f#g HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a<b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET /a|b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET http://h/a?q=%zz HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET http://h?q=<x> HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n", .methodNotImplemented),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A\t: b\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHost: h\r\nX Y: z\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: h\r\n: empty\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: h\r\nX@Y: z\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\n Host: h\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", .invalidHost),
        (
            "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n",
            .duplicateAuthorization
        ),
        (
            "GET / HTTP/1.1\r\nHost: h\r\nauthorization: Bearer a\r\nAUTHORIZATION: Bearer a\r\n\r\n",
            .duplicateAuthorization
        ),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", .duplicateContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", .duplicateContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 1\r\n\r\nx", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\nx", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n", .invalidContentLength),
        (
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            .contentLengthWithTransferEncoding
        ),
        (
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
            .contentLengthWithTransferEncoding
        ),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n", .unsupportedTransferCoding),
        (
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n",
            .unsupportedTransferCoding
        ),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;\u{1}\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", .invalidLineEnding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", .invalidChunkFraming),
        (
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: x\r\n\r\n",
            .invalidHeaderName
        ),
        ("POST / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\nx", .unsupportedExpectation)
    ]

    @Test(arguments: malformed)
    func rejectsMalformedRequestWithTheExactError(text: String, expected: HTTPParseError) {
        #expect(parse(wire(text)).error == expected, "whole: \(text.debugDescription)")
        #expect(parse(wire(text), pieceSize: 1).error == expected, "drip-fed: \(text.debugDescription)")
    }

    @Test func rejectsChunkLineLongerThanItsLimit() {
        let extensions = ";" + String(repeating: "e", count: 5000)
        let request = wire("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\(extensions)")
        #expect(parse(request, pieceSize: 100).error == .invalidChunkSize)
    }

    @Test func errorsCarryStatusAndStableCode() {
        #expect(HTTPParseError.invalidLineEnding.status == .badRequest)
        #expect(HTTPParseError.headerSectionTooLarge.status == .requestHeaderFieldsTooLarge)
        #expect(HTTPParseError.tooManyHeaders.status == .requestHeaderFieldsTooLarge)
        #expect(HTTPParseError.unsupportedTransferCoding.status == .notImplemented)
        #expect(HTTPParseError.contentTooLarge(limit: 1).status == .contentTooLarge)
        #expect(HTTPParseError.unsupportedVersion.status == .httpVersionNotSupported)
        #expect(HTTPParseError.unsupportedExpectation.status == .expectationFailed)
        #expect(HTTPParseError.invalidHost.code == "invalid_host")
    }

    /// Property: how bytes are split across reads never changes what is parsed (fixed seed, bounded).
    @Test func readBoundariesNeverChangeTheOutcome() {
        var random = SplitMix64(seed: 0x5eed_1234)
        let corpus = FuzzCorpus.validRequests
        for _ in 0..<1500 {
            var bytes = corpus[Int(random.next() % UInt64(corpus.count))]
            FuzzCorpus.mutate(&bytes, using: &random)
            let whole = parse(bytes, bodyLimit: 4096)
            let piece = Int(random.next() % 9) + 1
            let split = parse(bytes, pieceSize: piece, bodyLimit: 4096)
            #expect(whole == split, "piece size \(piece): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if whole != split { break }
        }
    }
}
