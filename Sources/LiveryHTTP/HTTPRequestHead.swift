#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How a request's body is delimited (RFC 9112 §6.3).
enum BodyFraming: Equatable, Sendable {
    /// Neither Content-Length nor Transfer-Encoding: no content (RFC 9112 §6.3 rule 6).
    case none
    /// Content-Length: exactly this many bytes follow.
    case length(Int)
    /// Transfer-Encoding: chunked.
    case chunked
}

/// A validated request head as the parser leaves it: what the server decides on (framing, persistence, version)
/// and where the method, the target, the `X-Request-Id` value and the field lines lie in the head's bytes, with no
/// string or array made. Plain data (no references), so handing it on copies no reference count.
///
/// Invariant: the offsets describe the head it was parsed from (request line, field lines, empty line: `length`
/// bytes) and every line in it has passed the parser's checks, so reading it again (`HTTPRequestHead.init(_:bytes:)`,
/// `forEachField(in:_:)`, `firstValue(named:in:)`, `decodedPath(of:form:pathBounds:)`) needs no check and cannot fail.
struct ParsedRequestHead: Sendable {
    /// How the path of the target reads: as its raw bytes, or decoded from them.
    enum PathForm: UInt8, Sendable {
        /// Origin form with no `%` in the path: the raw path is its own decoded form.
        case raw
        /// Origin form with a `%` to decode in the path.
        case percentEncoded
        /// Absolute form (`http://host/path`): the path after the authority, decoded (`/` if none).
        case absolute
        /// Asterisk form (`OPTIONS *`).
        case asterisk
    }

    /// The method is the head's first `methodLength` bytes.
    var methodLength: Int32
    var version: HTTPVersion
    var framing: BodyFraming
    /// Whether the connection stays open after this exchange (RFC 9112 §9.3).
    var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request.
    var expectsContinue: Bool
    var pathForm: PathForm
    /// Where the value of the first `X-Request-Id` field lies in the head (unchecked); `start` is -1 without one.
    var requestID: (start: Int32, end: Int32)
    /// The head's length in bytes.
    var length: Int32
    /// Where the request-target lies in the head.
    var target: (start: Int32, end: Int32)
    /// UTF-8 offsets of the raw path and raw query within the target (`HTTPRequestHead.pathBounds`).
    var pathBounds: (start: Int32, end: Int32)
    var queryBounds: (start: Int32, end: Int32)
    /// Where the first field line starts in the head (just after the request line's CRLF).
    var fieldsStart: Int32
    /// How many field lines the head has.
    var fieldCount: Int32

    /// Whether the target is in origin form with a path that is its own decoded form: its raw path's bytes are
    /// what a router matches and a handler reads.
    var pathIsRaw: Bool { pathForm == .raw }

    /// The request method, read from `head` (the bytes this head was parsed from).
    func method(in head: UnsafeRawBufferPointer) -> HTTPMethod {
        HTTPMethod(bytes: UnsafeRawBufferPointer(rebasing: head[0..<Int(methodLength)]))
    }

    /// The first `X-Request-Id` value, read from `head`; nil without one.
    func requestID(in head: UnsafeRawBufferPointer) -> String? {
        guard requestID.start >= 0 else { return nil }
        return String(
            decoding: UnsafeRawBufferPointer(rebasing: head[Int(requestID.start)..<Int(requestID.end)]), as: UTF8.self)
    }

    /// The decoded path of `target` (the head's target, as a string) for a path that is not its raw bytes
    /// (`pathForm` other than `.raw`); nil when the path does not decode, which a parsed head's never fails to.
    /// The parser checks a target with it, and a request value's path is made with it: one reading of the rules.
    static func decodedPath(
        of target: String, form: PathForm, pathBounds: (start: Int32, end: Int32)
    ) -> String? {
        let utf8 = target.utf8
        let rawPath = { Substring(utf8[..<utf8.index(utf8.startIndex, offsetBy: Int(pathBounds.end))]) }
        switch form {
        case .raw:
            return String(rawPath())
        case .percentEncoded:
            return PercentEncoding.decodePath(rawPath())
        case .absolute:
            return PercentEncoding.decodePath(RequestTarget.split(target).path)
        case .asterisk:
            return "*"
        }
    }

    /// Calls `body` with each field line's name and value (without the surrounding whitespace), in order, until it
    /// returns false. `head` is the bytes this head was parsed from.
    @inline(__always)
    func forEachField(
        in head: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
    ) {
        var lineStart = Int(fieldsStart)
        while let field = Self.field(in: head, at: lineStart) {
            let name = UnsafeRawBufferPointer(rebasing: head[lineStart..<field.nameEnd])
            guard body(name, UnsafeRawBufferPointer(rebasing: head[field.value])) else { return }
            lineStart = field.next
        }
    }

    /// The value of the first field named `name` (ASCII letters compared without regard to case), or nil. A line
    /// whose name is not `name` is passed over without its value being read.
    func firstValue(named name: UnsafeRawBufferPointer, in head: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        // A name holding a colon names no field (and would otherwise match a line's name and part of its value).
        guard let base = head.baseAddress, !name.contains(HTTPGrammar.colon) else { return nil }
        var lineStart = Int(fieldsStart)
        while lineStart + 2 <= head.count, head[lineStart] != HTTPGrammar.cr {
            // A name is a token, so the line's first colon ends it: `name` is the line's name exactly when a colon
            // follows its bytes.
            let nameEnd = lineStart + name.count
            if nameEnd < head.count, head[nameEnd] == HTTPGrammar.colon,
                HTTPGrammar.bytes(UnsafeRawBufferPointer(rebasing: head[lineStart..<nameEnd]), equalIgnoringCase: name),
                let field = Self.field(in: head, at: lineStart)
            {
                return UnsafeRawBufferPointer(rebasing: head[field.value])
            }
            // Every line of a checked head ends with CRLF.
            guard let lf = memchr(base + lineStart, Int32(HTTPGrammar.lf), head.count - lineStart) else { return nil }
            lineStart = base.distance(to: UnsafeRawPointer(lf)) + 1
        }
        return nil
    }

    /// The field line starting at `lineStart` of a checked head: where its name ends (at the colon), its value
    /// without the surrounding whitespace, and where the next line starts; nil at the empty line that ends the head.
    @inline(__always)
    private static func field(
        in head: UnsafeRawBufferPointer, at lineStart: Int
    ) -> (nameEnd: Int, value: Range<Int>, next: Int)? {
        // The lines were checked when parsed: each ends with CRLF, has a token name and a colon, and the section
        // ends with an empty line.
        guard lineStart + 2 <= head.count, head[lineStart] != HTTPGrammar.cr else { return nil }
        var colon = lineStart
        while head[colon] != HTTPGrammar.colon { colon += 1 }
        var end = colon + 1
        while head[end] != HTTPGrammar.cr { end += 1 }
        let next = end + 2
        var start = colon + 1
        while start < end && (head[start] == HTTPGrammar.space || head[start] == HTTPGrammar.tab) { start += 1 }
        while end > start && (head[end - 1] == HTTPGrammar.space || head[end - 1] == HTTPGrammar.tab) { end -= 1 }
        return (colon, start..<end, next)
    }
}

/// A parsed head with its bytes, as the connection's state machine delivers it: the bytes are where they were
/// received (valid only while the input passed to `HTTPConnectionStateMachine.nextEvent(in:…)` is, that is for the
/// handling of the event), or a copy the head owns when the input was the machine's own buffer.
struct ReceivedHead {
    let parsed: ParsedRequestHead
    private let received: UnsafeRawBufferPointer
    private let owned: [UInt8]?

    /// A head whose bytes are `bytes`, valid for as long as the caller's input is.
    init(_ parsed: ParsedRequestHead, in bytes: UnsafeRawBufferPointer) {
        self.parsed = parsed
        received = bytes
        owned = nil
    }

    /// The same head, holding a copy of its bytes: for input that does not outlive the call that parsed it.
    func owningItsBytes() -> ReceivedHead { ReceivedHead(parsed, owned: Array(received)) }

    private init(_ parsed: ParsedRequestHead, owned: [UInt8]) {
        self.parsed = parsed
        received = UnsafeRawBufferPointer(start: nil, count: 0)
        self.owned = owned
    }

    /// Calls `body` with the head's bytes.
    @inline(__always)
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let owned { return owned.withUnsafeBytes(body) }
        return body(received)
    }

    /// The head with its strings and fields made.
    func materialized() -> HTTPRequestHead { withBytes { HTTPRequestHead(parsed, bytes: $0) } }
}

/// A parsed and validated request head with its strings and fields made (`init(_:bytes:)`), for building a request
/// value: request line and header section.
struct HTTPRequestHead: Sendable {
    var method: HTTPMethod
    /// The raw request-target; only visible ASCII (validated).
    var target: String
    /// The percent-decoded path (validated: decodes, valid UTF-8, no NUL).
    var path: String
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: BodyFraming
    /// Whether the connection stays open after this exchange (RFC 9112 §9.3): HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive`.
    var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request (ignored for HTTP/1.0, RFC 9110 §10.1.1).
    var expectsContinue: Bool
    /// The value of the first `X-Request-Id` field (`headers["x-request-id"]`, noted while parsing), unchecked.
    var requestID: String?

    /// UTF-8 offsets of the raw path and raw query within `target` (kept as offsets: the head is moved on every
    /// request, and four small integers are cheaper to move than two `Substring`s).
    var pathBounds: (start: Int32, end: Int32)
    var queryBounds: (start: Int32, end: Int32)

    /// The raw path of the target without the query: what the router matches and the server logs (never
    /// decoded, so no control characters; never the query, which may carry secrets).
    var rawPath: Substring {
        if pathIsRaw { return Substring(path) }
        return pathBounds == Self.impliedRoot ? "/" : slice(pathBounds)
    }
    /// Whether `path` is also the raw path (an origin-form target with nothing to decode): `rawPath` is then all
    /// of it, and no slice of `target` is made.
    var pathIsRaw: Bool

    /// `pathBounds` of an absolute-form target without a path: its path is "/" (RFC 9112 §3.2.2).
    static let impliedRoot: (start: Int32, end: Int32) = (0, -1)
    /// The raw query (after `?`), not decoded.
    var rawQuery: Substring { slice(queryBounds) }
    /// Whether the target has a query with at least one byte (`rawQuery` is not empty).
    var hasQuery: Bool { queryBounds.end > queryBounds.start }

    private func slice(_ bounds: (start: Int32, end: Int32)) -> Substring {
        let utf8 = target.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: Int(bounds.start))
        let end = utf8.index(utf8.startIndex, offsetBy: Int(bounds.end))
        return Substring(utf8[start..<end])
    }

    /// The offsets of `part`, a slice of `target`.
    static func bounds(of part: Substring, in target: String) -> (start: Int32, end: Int32) {
        let utf8 = target.utf8
        return (
            Int32(utf8.distance(from: utf8.startIndex, to: part.startIndex)),
            Int32(utf8.distance(from: utf8.startIndex, to: part.endIndex))
        )
    }
}

extension HTTPRequestHead {
    /// The head `parsed` describes, its strings and fields made from `bytes`, the bytes it was parsed from.
    init(_ parsed: ParsedRequestHead, bytes head: UnsafeRawBufferPointer) {
        let targetBytes = UnsafeRawBufferPointer(rebasing: head[Int(parsed.target.start)..<Int(parsed.target.end)])
        let target = String(decoding: targetBytes, as: UTF8.self)
        let path: String
        if parsed.pathForm != .raw {
            // The parser decoded it once to check it: it decodes.
            path = ParsedRequestHead.decodedPath(of: target, form: parsed.pathForm, pathBounds: parsed.pathBounds) ?? ""
        } else if parsed.pathBounds == (0, Int32(targetBytes.count)) {
            // Nothing to decode and the path is the whole target: share its storage.
            path = target
        } else {
            path = String(
                decoding: UnsafeRawBufferPointer(rebasing: targetBytes[0..<Int(parsed.pathBounds.end)]), as: UTF8.self)
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(Int(parsed.fieldCount))
        parsed.forEachField(in: head) { name, value in
            // The name as sent; the usual spelling of Host is the literal, not a string made from the bytes.
            let isUsualHost =
                name.count == 4 && name[0] == UInt8(ascii: "H") && name[1] == UInt8(ascii: "o")
                && name[2] == UInt8(ascii: "s") && name[3] == UInt8(ascii: "t")
            headers.add(
                name: isUsualHost ? "Host" : String(decoding: name, as: UTF8.self),
                value: String(decoding: value, as: UTF8.self))
            return true
        }
        self.init(
            method: parsed.method(in: head), target: target, path: path, version: parsed.version, headers: headers,
            framing: parsed.framing, keepAlive: parsed.keepAlive, expectsContinue: parsed.expectsContinue,
            requestID: parsed.requestID(in: head), pathBounds: parsed.pathBounds, queryBounds: parsed.queryBounds,
            pathIsRaw: parsed.pathIsRaw)
    }
}
