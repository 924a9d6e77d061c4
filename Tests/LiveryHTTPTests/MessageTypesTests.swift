import Testing

@testable import LiveryHTTP

/// Headers, query parameters, percent-decoding, targets and the small value types around requests.
@Suite struct MessageTypesTests {
    @Test func headersAreCaseInsensitiveOrderedAndRepeatable() {
        var headers: HTTPHeaders = ["Accept": "a", "X-Tag": "1"]
        headers.add(name: "x-tag", value: "2")
        #expect(headers["ACCEPT"] == "a")
        #expect(headers.values("X-TAG") == ["1", "2"])
        #expect(headers.contains("x-TaG"))
        headers.replaceOrAdd(name: "X-Tag", value: "3")
        #expect(headers.values("x-tag") == ["3"])
        headers.remove("accept")
        #expect(headers["accept"] == nil)
        #expect(headers.count == 1)
    }

    @Test func headerDescriptionRedactsSecrets() {
        let headers: HTTPHeaders = ["Authorization": "Bearer s3cret", "Cookie": "session=abc", "Accept": "*/*"]
        #expect(!headers.description.contains("s3cret"))
        #expect(!headers.description.contains("session=abc"))
        #expect(headers.description.contains("Accept: */*"))
    }

    @Test func queryParametersAreOrderedAndDecoded() {
        let query = QueryParameters(parsing: "platform=ios&tag=a+b&tag=%E2%9C%93&flag&=empty&&bad=%zz&x=%4")
        #expect(query["platform"] == "ios")
        #expect(query.values("tag") == ["a b", "✓"])
        #expect(query["flag"] == "")
        #expect(query[""] == "empty")
        #expect(query["bad"] == "%zz")
        #expect(query["x"] == "%4")
        #expect(query["missing"] == nil)
        #expect(query.items.map(\.name) == ["platform", "tag", "tag", "flag", "", "bad", "x"])
        #expect(QueryParameters(parsing: "").isEmpty)
    }

    @Test func firstValuesFindEachNamedParameterInOnePass() {
        let query = QueryParameters(parsing: "b=2&a=1&%61=shadowed&c&a=again&d%20x=%E2%9C%93&e=%zz")
        let names = QueryParameterNames(["a", "b", "c", "missing", "d x", "e"])
        #expect(Array(query.firstValues(of: names)) == ["1", "2", "", nil, "✓", "%zz"])
        #expect(Array(QueryParameters(parsing: "").firstValues(of: names)) == [nil, nil, nil, nil, nil, nil])
        #expect(query["a"] == "1" && query.values("a") == ["1", "shadowed", "again"])
    }

    @Test func firstValuesReadAsBytesAreDecodedOnlyWhenEscaped() {
        let values = QueryParameters(parsing: "plain=ios&escaped=a+b%21&empty=&bare").firstValues(
            of: QueryParameterNames(["plain", "escaped", "empty", "bare", "absent"]))
        #expect(values.withBytes(0) { Array($0) } == Array("ios".utf8))
        #expect(values.withBytes(1) { Array($0) } == Array("a b!".utf8))
        #expect(values.withBytes(2) { $0.count } == 0)
        #expect(values.withBytes(3) { $0.count } == 0)
        #expect(values.withBytes(4) { _ in true } == nil)
        #expect(values.count == 5)
    }

    @Test func queriesAreEqualWhenTheyDecodeToTheSamePairs() {
        #expect(QueryParameters(parsing: "a=1&b=x+y") == QueryParameters(parsing: "%61=%31&b=x%20y"))
        #expect(QueryParameters(parsing: "a=1&b=2") != QueryParameters(parsing: "b=2&a=1"))
        #expect(QueryParameters(parsing: "&&") == QueryParameters())
        #expect(QueryParameters(parsing: "&&").isEmpty)
    }

    @Test func pathDecodingIsStrict() {
        #expect(PercentEncoding.decodePath("/plain") == "/plain")
        #expect(PercentEncoding.decodePath("/a%2Fb%20%C3%A9") == "/a/b é")
        #expect(PercentEncoding.decodePath("/%zz") == nil)
        #expect(PercentEncoding.decodePath("/%4") == nil)
        #expect(PercentEncoding.decodePath("/%00") == nil)
        #expect(PercentEncoding.decodePath("/%FF") == nil)
    }

    @Test func requestTargetsSplitIntoPathAndQuery() {
        #expect(RequestTarget.split("/a/b?x=1&y") == ("/a/b", "x=1&y"))
        #expect(RequestTarget.split("/a?") == ("/a", ""))
        #expect(RequestTarget.split("/a#frag") == ("/a", ""))
        #expect(RequestTarget.split("http://host:8080/p?q=1") == ("/p", "q=1"))
        #expect(RequestTarget.split("https://host") == ("/", ""))
        #expect(RequestTarget.split("http://host?q") == ("/", "q"))
    }

    @Test func requestInitialiserDerivesPathAndQuery() {
        let request = HTTPRequest(method: .get, target: "/a%20b?k=v")
        #expect(request.path == "/a b")
        #expect(request.query["k"] == "v")
    }

    @Test func errorResponsesHaveOneCompactJSONShapeAndAreNeverStored() {
        let response = HTTPResponse.error(
            .conflict, code: "skin_exists", message: "Skin \"xmas\" exists\n",
            details: [("skin.id", "xmas"), ("a", "\u{1}")])
        #expect(response.status == .conflict)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"error":{"code":"skin_exists","message":"Skin \"xmas\" exists\n","details":{"skin.id":"xmas","a":"\u0001"}}}"#
        )
    }

    @Test func errorResponsesEmbedDetailsEncodedByTheCaller() {
        let response = HTTPResponse.error(
            .unprocessableContent, code: "invalid", message: "m",
            encodedDetails: Array(#"{"field":"body","n":[1]}"#.utf8),
            headers: HTTPHeaders([("Retry-After", "1")]))
        #expect(response.headers["Retry-After"] == "1" && response.headers["Cache-Control"] == "no-store")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"error":{"code":"invalid","message":"m","details":{"field":"body","n":[1]}}}"#)
    }

    @Test func bodyLengthsAreReported() {
        #expect(HTTPBody.empty.length == 0)
        #expect(HTTPBody.bytes([1, 2, 3]).length == 3)
        #expect(HTTPBody.file(path: "/x", offset: 10, length: 20).length == 20)
    }

    @Test func statusConstantsHaveTheirCodes() {
        let expected: [(HTTPStatus, Int)] = [
            (.ok, 200), (.created, 201), (.noContent, 204), (.partialContent, 206), (.notModified, 304),
            (.badRequest, 400), (.unauthorized, 401), (.forbidden, 403), (.notFound, 404), (.methodNotAllowed, 405),
            (.requestTimeout, 408), (.conflict, 409), (.preconditionFailed, 412), (.contentTooLarge, 413),
            (.rangeNotSatisfiable, 416), (.expectationFailed, 417), (.unprocessableContent, 422),
            (.requestHeaderFieldsTooLarge, 431), (.internalServerError, 500), (.notImplemented, 501),
            (.serviceUnavailable, 503), (.httpVersionNotSupported, 505)
        ]
        for (status, code) in expected { #expect(status.code == code) }
        #expect(HTTPStatus.noContent.forbidsBody && HTTPStatus.notModified.forbidsBody && !HTTPStatus.ok.forbidsBody)
    }

    @Test func dateHeaderIsIMFFixdate() {
        #expect(DateHeaderCache.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(DateHeaderCache.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        var cache = DateHeaderCache()
        let line = String(decoding: cache.current(), as: UTF8.self)
        #expect(line.hasPrefix("Date: ") && line.hasSuffix(" GMT\r\n"))
    }

    @Test func requestIDsAreUniqueAndSmall() {
        var first = RequestIDGenerator(seed: 42, loopIndex: 0)
        var second = RequestIDGenerator(seed: 42, loopIndex: 1)
        var seen = Set<String>()
        for _ in 0..<5000 {
            seen.insert(first.next())
            seen.insert(second.next())
        }
        #expect(seen.count == 10_000)
        #expect(seen.allSatisfy { $0.utf8.count <= 15 && RequestIDGenerator.isAcceptable($0) })
    }

    @Test func incomingRequestIDsAreCheckedBeforeReuse() {
        #expect(RequestIDGenerator.isAcceptable("abc-123_x.y:z"))
        #expect(!RequestIDGenerator.isAcceptable(""))
        #expect(!RequestIDGenerator.isAcceptable("has space"))
        #expect(!RequestIDGenerator.isAcceptable("new\nline"))
        #expect(!RequestIDGenerator.isAcceptable(String(repeating: "a", count: 65)))
    }

    @Test func encoderRejectsHeaderValuesWithControlCharacters() {
        let fields = ResponseEncoder.ServerFields(
            date: Array("Date: x\r\n".utf8), serverLine: Array("Server: Livery\r\n".utf8), requestID: "id",
            keepAlive: true, requestIsHTTP10: false)
        for bad in ["a\r\nInjected: yes", "a\nb", "a\u{0}b", "a\rb"] {
            let out = OutputBuffer(capacity: 64)
            #expect(throws: ResponseEncoder.InvalidHeader.self) {
                try ResponseEncoder.encodeHead(
                    status: .ok, headers: ["X-Bad": bad], contentLength: 0, fields: fields, into: out)
            }
            #expect(out.isEmpty)
        }
        let out = OutputBuffer(capacity: 64)
        #expect(throws: ResponseEncoder.InvalidHeader.self) {
            try ResponseEncoder.encodeHead(
                status: .ok, headers: ["Bad Name": "v"], contentLength: 0, fields: fields, into: out)
        }
    }

    @Test func encoderOwnsFramingHeaders() throws {
        let fields = ResponseEncoder.ServerFields(
            date: Array("Date: D\r\n".utf8), serverLine: Array("Server: Livery\r\n".utf8), requestID: "rid",
            keepAlive: false, requestIsHTTP10: false)
        let out = OutputBuffer(capacity: 16)
        try ResponseEncoder.encodeHead(
            status: .created,
            headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "Connection": "keep-alive", "X-Ok": "1"],
            contentLength: 5, fields: fields, into: out)
        #expect(
            String(decoding: out.bytes, as: UTF8.self)
                == "HTTP/1.1 201 Created\r\nX-Ok: 1\r\nContent-Length: 5\r\nDate: D\r\nServer: Livery\r\nX-Request-Id: rid\r\nConnection: close\r\n\r\n"
        )
    }

    @Test func headersEncodedForReuseAreSentAsTheyWouldBeEncodedEachTime() throws {
        let fields = ResponseEncoder.ServerFields(
            date: Array("Date: D\r\n".utf8), serverLine: [], requestID: "rid", keepAlive: true, requestIsHTTP10: false)
        func head(_ headers: HTTPHeaders) throws -> String {
            let out = OutputBuffer(capacity: 16)
            try ResponseEncoder.encodeHead(status: .ok, headers: headers, contentLength: 2, fields: fields, into: out)
            return String(decoding: out.bytes, as: UTF8.self)
        }
        let plain: HTTPHeaders = ["ETag": "\"a\"", "Content-Length": "999", "Cache-Control": "public, max-age=60"]
        let encoded = plain.encodedForReuse()
        #expect(encoded.wire != nil)
        #expect(encoded == plain)
        #expect(try head(encoded) == head(plain))
        #expect(try head(encoded).contains("ETag: \"a\"\r\nCache-Control: public, max-age=60\r\nContent-Length: 2\r\n"))

        var changed = encoded
        changed.replaceOrAdd(name: "ETag", value: "\"b\"")
        #expect(changed.wire == nil)
        #expect(try head(changed).contains("ETag: \"b\""))

        let invalid = HTTPHeaders([("X-Bad", "a\r\nInjected: yes")]).encodedForReuse()
        #expect(invalid.wire == nil)
        #expect(throws: ResponseEncoder.InvalidHeader.self) { try head(invalid) }
    }

    @Test func encoderOmitsContentLengthWhereForbiddenAndSanitisesStatus() throws {
        let fields = ResponseEncoder.ServerFields(
            date: [], serverLine: [], requestID: "r", keepAlive: true, requestIsHTTP10: true)
        let out = OutputBuffer(capacity: 16)
        try ResponseEncoder.encodeHead(status: .noContent, headers: [:], contentLength: 0, fields: fields, into: out)
        #expect(
            String(decoding: out.bytes, as: UTF8.self)
                == "HTTP/1.1 204 No Content\r\nX-Request-Id: r\r\nConnection: keep-alive\r\n\r\n")
        out.removeAll()
        try ResponseEncoder.encodeHead(
            status: HTTPStatus(code: 1000, reason: "Bad\r\nX: y"), headers: [:], contentLength: 0, fields: fields,
            into: out)
        #expect(String(decoding: out.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
        out.removeAll()
        try ResponseEncoder.encodeHead(
            status: HTTPStatus(code: 299, reason: "Odd\u{1}"), headers: [:], contentLength: 0, fields: fields, into: out
        )
        #expect(String(decoding: out.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 299 \r\n"))
    }

    /// The statuses most responses have are written from a prepared line; the same code with another reason, or
    /// a reason that must not be written, takes the general path.
    @Test func commonStatusesAndTheirVariantsWriteTheirOwnLines() throws {
        let fields = ResponseEncoder.ServerFields(
            date: [], serverLine: [], requestID: "r", keepAlive: true, requestIsHTTP10: false)
        let cases: [(HTTPStatus, String)] = [
            (.ok, "HTTP/1.1 200 OK\r\n"), (.partialContent, "HTTP/1.1 206 Partial Content\r\n"),
            (.notModified, "HTTP/1.1 304 Not Modified\r\n"), (.notFound, "HTTP/1.1 404 Not Found\r\n"),
            (HTTPStatus(code: 200, reason: "Fine"), "HTTP/1.1 200 Fine\r\n"),
            (HTTPStatus(code: 404, reason: "Gone\r\nX: y"), "HTTP/1.1 404 \r\n"),
            (.serviceUnavailable, "HTTP/1.1 503 Service Unavailable\r\n")
        ]
        for (status, line) in cases {
            let out = OutputBuffer(capacity: 16)
            try ResponseEncoder.encodeHead(status: status, headers: [:], contentLength: 0, fields: fields, into: out)
            #expect(String(decoding: out.bytes, as: UTF8.self).hasPrefix(line), "\(status)")
        }
    }

    @Test func outputBufferGrowsAndWritesDecimals() {
        let out = OutputBuffer(capacity: 4)
        out.appendDecimal(0)
        out.append(" ")
        out.appendDecimal(UInt64.max)
        out.append(string: String(repeating: "x", count: 1000))
        #expect(
            String(decoding: out.bytes, as: UTF8.self) == "0 18446744073709551615" + String(repeating: "x", count: 1000)
        )
    }

    @Test func characterClassesMatchTheRFCSets() {
        let token = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&'*+-.^_`|~".utf8)
        let host = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-._~%!$&'()*+,;=:[]".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPGrammar.isTokenChar(byte) == token.contains(byte), "token \(byte)")
            #expect(HTTPGrammar.isHostChar(byte) == host.contains(byte), "host \(byte)")
            #expect(HTTPGrammar.isFieldValueChar(byte) == (byte == 9 || (byte >= 32 && byte != 127)), "value \(byte)")
        }
    }

    @Test func durationsConvertToNanoseconds() {
        #expect(Duration.seconds(2).nanoseconds == 2_000_000_000)
        #expect(Duration.milliseconds(1).nanoseconds == 1_000_000)
        #expect(Duration.seconds(-1).nanoseconds == 0)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
    }
}
