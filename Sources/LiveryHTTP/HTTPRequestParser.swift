#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An incremental HTTP/1.1 request parser (RFC 9112) that does no I/O.
///
/// The caller owns the bytes: it passes every unconsumed byte to `next(_:)`, which returns an event and how many
/// bytes it consumed; unconsumed bytes must be passed again, followed by newly received ones. The head is only
/// consumed once complete (it is parsed in place, and the scan for its end resumes where it stopped, so feeding
/// one byte at a time stays linear). Body bytes are consumed as they come and collected up to `bodyLimit`.
///
/// Strict by design, because lenient parsing is how request smuggling works: CRLF is required everywhere,
/// obs-fold, whitespace before a colon, duplicate Content-Length, Content-Length with Transfer-Encoding and
/// duplicate Authorization are all rejected, and the query is held to the path's character rules.
struct HTTPRequestParser {
    /// Parser limits. Defaults are the server's defaults.
    struct Configuration: Sendable {
        /// Maximum bytes of request line plus header section, CRLFs included; over it is a 431. Default 16 KiB.
        /// The same limit applies to a chunked body's trailer section.
        var maxHeaderBytes: Int = 16 * 1024
        /// Maximum number of header field lines; over it is a 431. Default 100. Also bounds trailer lines.
        var maxHeaderCount: Int = 100
        /// Maximum bytes of one chunk-size line including chunk extensions; over it is a 400. Default 4 KiB.
        var maxChunkLineBytes: Int = 4 * 1024
    }

    /// What a call to `next` completed. The parsed values stay in the parser until taken, so events are small
    /// and nothing large is copied through the parsing layers.
    enum Event {
        /// Everything passed in so far has been consumed or is an incomplete element; pass more bytes.
        case needMoreData
        /// A complete, validated head, available from `takeHead()`. The caller may set `bodyLimit` before the
        /// next call.
        case head
        /// The message is complete; `takeMessage()` returns its body (de-chunked) and trailers. The parser is
        /// ready for the next head.
        case end
    }

    private struct SectionScan {
        /// Where the search for the next LF resumes.
        var position = 0
        /// Start of the line being scanned.
        var lineStart = 0
        /// Lines completed so far.
        var lines = 0
    }

    private enum State {
        case head(SectionScan)
        case bodyPending(BodyFraming)
        case fixedBody(remaining: Int)
        case chunkSize(scanned: Int)
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(SectionScan)
    }

    private enum Step {
        case event(Event, consumed: Int)
        case advance(consumed: Int)
        case needMore(consumed: Int)
    }

    let configuration: Configuration
    /// The largest body accepted for the current message; set after `.head` to the route's limit.
    /// A chunked body growing past it, or a Content-Length over it, throws `.contentTooLarge`.
    var bodyLimit: Int
    private var state: State = .head(SectionScan())
    private var body: [UInt8] = []
    private var parsedHead: ParsedRequestHead?
    private var trailers = HTTPHeaders()

    /// The head reported by the last `.head` event (once): offsets into its bytes, which are the last
    /// `ParsedRequestHead.length` bytes consumed by that `next(_:)` call.
    mutating func takeHead() -> ParsedRequestHead? { parsedHead.take() }

    /// The body and trailers of the message reported by the last `.end` event (once).
    mutating func takeMessage() -> (body: [UInt8], trailers: HTTPHeaders) {
        defer {
            body = []
            trailers = HTTPHeaders()
        }
        return (body, trailers)
    }

    init(configuration: Configuration = Configuration(), bodyLimit: Int = 1 << 20) {
        self.configuration = configuration
        self.bodyLimit = bodyLimit
    }

    /// Consumes a prefix of `input` and reports what it completed.
    ///
    /// - Returns: the event and how many bytes of `input` were consumed. After `.needMoreData`, the unconsumed
    ///   remainder must be passed again with more bytes appended.
    /// - Throws: `HTTPParseError`; the parser must not be used afterwards (the connection closes).
    mutating func next(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (event: Event, consumed: Int) {
        var consumed = 0
        while true {
            let window = UnsafeRawBufferPointer(rebasing: input[consumed...])
            switch try step(window) {
            case .event(let event, let used): return (event, consumed + used)
            case .needMore(let used): return (.needMoreData, consumed + used)
            case .advance(let used): consumed += used
            }
        }
    }

    private mutating func step(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> Step {
        switch state {
        case .head(var scan):
            // RFC 9112 §2.2: a server SHOULD ignore at least one empty line (CRLF) received before the request-line.
            if scan.position == 0, let first = input.first {
                if first == HTTPGrammar.cr {
                    guard input.count >= 2 else { return .needMore(consumed: 0) }
                    if input[1] == HTTPGrammar.lf { return .advance(consumed: 2) }
                    throw .invalidLineEnding
                }
                if first == HTTPGrammar.lf { throw .invalidLineEnding }
            }
            guard
                let end = try Self.scanSection(
                    input, &scan, maxBytes: configuration.maxHeaderBytes,
                    maxLines: configuration.maxHeaderCount + 1, tooManyLines: .tooManyHeaders)
            else {
                state = .head(scan)
                return .needMore(consumed: 0)
            }
            let head = try parseHead(UnsafeRawBufferPointer(rebasing: input[0..<end]), lines: scan.lines)
            state = .bodyPending(head.framing)
            parsedHead = head
            return .event(.head, consumed: end)

        case .bodyPending(let framing):
            switch framing {
            case .none:
                state = .head(SectionScan())
                return .event(.end, consumed: 0)
            case .length(let length):
                guard length <= bodyLimit else { throw .contentTooLarge(limit: bodyLimit) }
                if length == 0 {
                    state = .head(SectionScan())
                    return .event(.end, consumed: 0)
                }
                // Reserve what the client claims only up to 64 KiB: a claim is not yet bytes received.
                body = []
                body.reserveCapacity(min(length, 64 * 1024))
                state = .fixedBody(remaining: length)
                return .advance(consumed: 0)
            case .chunked:
                body = []
                state = .chunkSize(scanned: 0)
                return .advance(consumed: 0)
            }

        case .fixedBody(let remaining):
            let take = min(remaining, input.count)
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<take]))
            if take == remaining {
                state = .head(SectionScan())
                return .event(.end, consumed: take)
            }
            state = .fixedBody(remaining: remaining - take)
            return .needMore(consumed: take)

        case .chunkSize(let scanned):
            // RFC 9112 §7.1: chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
            guard let lf = Self.findLineFeed(input, from: scanned) else {
                if input.count > configuration.maxChunkLineBytes { throw .invalidChunkSize }
                state = .chunkSize(scanned: input.count)
                return .needMore(consumed: 0)
            }
            guard lf + 1 <= configuration.maxChunkLineBytes else { throw .invalidChunkSize }
            guard lf > 0, input[lf - 1] == HTTPGrammar.cr else { throw .invalidLineEnding }
            let size = try Self.parseChunkSize(UnsafeRawBufferPointer(rebasing: input[0..<(lf - 1)]))
            if size == 0 {
                state = .trailers(SectionScan())
            } else {
                guard size <= bodyLimit - body.count else { throw .contentTooLarge(limit: bodyLimit) }
                state = .chunkData(remaining: size)
            }
            return .advance(consumed: lf + 1)

        case .chunkData(let remaining):
            let take = min(remaining, input.count)
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<take]))
            if take == remaining {
                state = .chunkDataEnd
                return .advance(consumed: take)
            }
            state = .chunkData(remaining: remaining - take)
            return .needMore(consumed: take)

        case .chunkDataEnd:
            guard let first = input.first else { return .needMore(consumed: 0) }
            guard first == HTTPGrammar.cr else { throw .invalidChunkFraming }
            guard input.count >= 2 else { return .needMore(consumed: 0) }
            guard input[1] == HTTPGrammar.lf else { throw .invalidChunkFraming }
            state = .chunkSize(scanned: 0)
            return .advance(consumed: 2)

        case .trailers(var scan):
            // RFC 9112 §7.1.2: trailer-section = *( field-line CRLF ), then the final CRLF.
            guard
                let end = try Self.scanSection(
                    input, &scan, maxBytes: configuration.maxHeaderBytes,
                    maxLines: configuration.maxHeaderCount, tooManyLines: .tooManyHeaders)
            else {
                state = .trailers(scan)
                return .needMore(consumed: 0)
            }
            var trailers = HTTPHeaders()
            var lineStart = 0
            while let lf = Self.findLineFeed(input, from: lineStart), lf + 1 < end {
                let line = UnsafeRawBufferPointer(rebasing: input[lineStart..<(lf - 1)])
                let (name, value) = try Self.parseFieldLine(line)
                trailers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
                lineStart = lf + 1
            }
            state = .head(SectionScan())
            self.trailers = trailers
            return .event(.end, consumed: end)
        }
    }

    // MARK: - Scanning

    @inline(__always)
    private static func findLineFeed(_ input: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < input.count else { return nil }
        return firstIndex(of: HTTPGrammar.lf, in: UnsafeRawBufferPointer(rebasing: input[start...])).map { start + $0 }
    }

    /// Where `part`, a slice of `whole`, starts in it.
    private static func offset(of part: UnsafeRawBufferPointer, in whole: UnsafeRawBufferPointer) -> Int {
        guard let base = whole.baseAddress, let start = part.baseAddress else { return 0 }
        return base.distance(to: start)
    }

    /// The offset of the first `byte` in `bytes` (with `memchr`), or nil.
    private static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, let found = memchr(base, Int32(byte), bytes.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// The hand-written scan for the empty line that ends a header (or trailer) section.
    ///
    /// Finds each LF with `memchr`, rejects an LF without a CR before it (RFC 9112 §2.2: we do not accept bare
    /// LF), counts lines, and resumes from `scan` on the next call.
    /// - Returns: the index just past the terminating CRLF, or nil if more bytes are needed.
    private static func scanSection(
        _ input: UnsafeRawBufferPointer, _ scan: inout SectionScan, maxBytes: Int, maxLines: Int,
        tooManyLines: HTTPParseError
    ) throws(HTTPParseError) -> Int? {
        while let lf = findLineFeed(input, from: scan.position) {
            guard lf > 0, input[lf - 1] == HTTPGrammar.cr else { throw .invalidLineEnding }
            if lf - 1 == scan.lineStart {
                guard lf + 1 <= maxBytes else { throw .headerSectionTooLarge }
                return lf + 1
            }
            scan.lines += 1
            guard scan.lines <= maxLines else { throw tooManyLines }
            scan.lineStart = lf + 1
            scan.position = lf + 1
            guard scan.position <= maxBytes else { throw .headerSectionTooLarge }
        }
        scan.position = input.count
        // Not found within `input`: the section is at least this long.
        guard input.count <= maxBytes else { throw .headerSectionTooLarge }
        return nil
    }

    // MARK: - Head

    private func parseHead(_ head: UnsafeRawBufferPointer, lines: Int) throws(HTTPParseError) -> ParsedRequestHead {
        // The scan guarantees: every line ends with CRLF, and the section ends with an empty line.
        guard let firstLF = Self.findLineFeed(head, from: 0) else { throw .invalidRequestLine }
        let requestLine = UnsafeRawBufferPointer(rebasing: head[0..<(firstLF - 1)])
        let (method, targetBytes, version) = try Self.parseRequestLine(requestLine)
        // The request line's parser leaves the target's bytes to be checked here: the origin-form scan checks
        // them as it looks for `?`, `#` and `%`, in the same pass.
        if targetBytes.first != UInt8(ascii: "/") {
            guard targetBytes.allSatisfy(HTTPGrammar.isTargetChar) else { throw .invalidTarget }
        }
        let targetStart = Self.offset(of: targetBytes, in: head)

        // RFC 9112 §3.2: origin-form, absolute-form, asterisk-form (OPTIONS only), authority-form (CONNECT only).
        // Only a target that is not in origin form, or whose path has a `%`, is made a string here (to check it).
        let pathForm: ParsedRequestHead.PathForm
        var pathBounds: (start: Int32, end: Int32) = (0, Int32(targetBytes.count))
        var queryBounds: (start: Int32, end: Int32) = (0, 0)
        if targetBytes.first == UInt8(ascii: "/") {
            // origin-form, split on the bytes: the hot path.
            let (queryStart, end, hasPercent) = try Self.scanPathAndQuery(targetBytes)
            pathBounds = (0, Int32(queryStart ?? end))
            if let queryStart { queryBounds = (Int32(queryStart + 1), Int32(end)) }
            pathForm = hasPercent ? .percentEncoded : .raw
        } else {
            let target = String(decoding: targetBytes, as: UTF8.self)
            if Self.isAbsoluteForm(target) {
                // The part after the authority follows the same rules as an origin-form target. The authority
                // starts after the scheme's "//" (the target starts with "http://" or "https://").
                if let afterScheme = Self.firstIndex(of: UInt8(ascii: "/"), in: targetBytes).map({ $0 + 2 }),
                    let start = targetBytes[afterScheme...].firstIndex(where: {
                        $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                    })
                {
                    _ = try Self.scanPathAndQuery(UnsafeRawBufferPointer(rebasing: targetBytes[start...]))
                }
                let (rawPath, rawQuery) = RequestTarget.split(target)
                pathForm = .absolute
                // An absolute-form target without a path ("http://host?q") has the implied path "/".
                pathBounds =
                    rawPath.base == target
                    ? HTTPRequestHead.bounds(of: rawPath, in: target) : HTTPRequestHead.impliedRoot
                queryBounds = HTTPRequestHead.bounds(of: rawQuery, in: target)
            } else if target == "*" {
                guard method == .options else { throw .invalidTarget }
                pathForm = .asterisk
            } else if case .other("CONNECT") = method {
                throw .methodNotImplemented
            } else {
                throw .invalidTarget
            }
        }
        if pathForm == .percentEncoded || pathForm == .absolute {
            let target = String(decoding: targetBytes, as: UTF8.self)
            guard ParsedRequestHead.decodedPath(of: target, form: pathForm, pathBounds: pathBounds) != nil else {
                throw .invalidTarget
            }
        }

        var hostCount = 0
        var sawAuthorization = false
        var contentLength: Int?
        var transferCodings: [Substring] = []
        var sawTransferEncoding = false
        var connectionClose = false
        var connectionKeepAlive = false
        var expectation: String?
        var requestID: (start: Int32, end: Int32) = (-1, -1)

        var lineStart = firstLF + 1
        while let lf = Self.findLineFeed(head, from: lineStart), lf - 1 > lineStart {
            let line = UnsafeRawBufferPointer(rebasing: head[lineStart..<(lf - 1)])
            lineStart = lf + 1
            let (nameBytes, valueBytes) = try Self.parseFieldLine(line)
            // Strings only for the fields that are read here, and those are rare; the rest stay bytes.
            var value: String { String(decoding: valueBytes, as: UTF8.self) }
            switch nameBytes.count {
            case 4 where HTTPGrammar.bytes(nameBytes, equalLowercase: "host"):
                hostCount += 1
                guard Self.isValidHost(valueBytes) else { throw .invalidHost }
            case 6 where HTTPGrammar.bytes(nameBytes, equalLowercase: "expect"):
                expectation = value
            case 12 where requestID.start < 0 && HTTPGrammar.bytes(nameBytes, equalLowercase: "x-request-id"):
                let start = Self.offset(of: valueBytes, in: head)
                requestID = (Int32(start), Int32(start + valueBytes.count))
            case 10 where HTTPGrammar.bytes(nameBytes, equalLowercase: "connection"):
                for option in HTTPGrammar.listElements(value) {
                    if HTTPGrammar.equalsIgnoringCase(String(option), "close") { connectionClose = true }
                    if HTTPGrammar.equalsIgnoringCase(String(option), "keep-alive") { connectionKeepAlive = true }
                }
            case 13 where HTTPGrammar.bytes(nameBytes, equalLowercase: "authorization"):
                guard !sawAuthorization else { throw .duplicateAuthorization }
                sawAuthorization = true
            case 14 where HTTPGrammar.bytes(nameBytes, equalLowercase: "content-length"):
                // RFC 9112 §6.3 allows merging identical duplicates; we reject any duplicate (smuggling defence).
                guard contentLength == nil else { throw .duplicateContentLength }
                contentLength = try Self.parseContentLength(valueBytes)
            case 17 where HTTPGrammar.bytes(nameBytes, equalLowercase: "transfer-encoding"):
                sawTransferEncoding = true
                transferCodings += HTTPGrammar.listElements(value)
            default:
                break
            }
        }

        // RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host, and for any request with more than one.
        if hostCount > 1 || (version == .http1_1 && hostCount == 0) { throw .invalidHost }

        let framing: BodyFraming
        if sawTransferEncoding {
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 means faulty framing; with Content-Length it is a
            // smuggling attempt, which we reject rather than let Transfer-Encoding win.
            guard contentLength == nil else { throw .contentLengthWithTransferEncoding }
            guard version != .http1_0 else { throw .invalidTransferEncoding }
            guard !transferCodings.isEmpty else { throw .invalidTransferEncoding }
            // RFC 9112 §6.1: a coding we do not understand is a 501.
            for coding in transferCodings where !HTTPGrammar.equalsIgnoringCase(String(coding), "chunked") {
                throw .unsupportedTransferCoding
            }
            // RFC 9112 §6.3 / §7: chunked must be final and applied once.
            guard transferCodings.count == 1 else { throw .invalidTransferEncoding }
            framing = .chunked
        } else if let contentLength {
            framing = contentLength == 0 ? .none : .length(contentLength)
        } else {
            framing = .none
        }

        var expectsContinue = false
        if let expectation {
            // RFC 9110 §10.1.1: only 100-continue is defined; anything else may be answered with 417.
            // A server MUST ignore a 100-continue expectation in an HTTP/1.0 request.
            guard HTTPGrammar.equalsIgnoringCase(expectation, "100-continue") else { throw .unsupportedExpectation }
            expectsContinue = version == .http1_1
        }

        // RFC 9112 §9.3: persistent by default in 1.1; 1.0 needs keep-alive.
        let keepAlive = version == .http1_1 ? !connectionClose : (connectionKeepAlive && !connectionClose)

        return ParsedRequestHead(
            methodLength: Int32(targetStart - 1), version: version, framing: framing, keepAlive: keepAlive,
            expectsContinue: expectsContinue, pathForm: pathForm, requestID: requestID, length: Int32(head.count),
            target: (Int32(targetStart), Int32(targetStart + targetBytes.count)), pathBounds: pathBounds,
            queryBounds: queryBounds, fieldsStart: Int32(firstLF + 1), fieldCount: Int32(lines - 1))
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), single spaces only.
    /// The target's bytes are returned unchecked; the caller checks them (`parseHead`).
    private static func parseRequestLine(
        _ line: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (HTTPMethod, UnsafeRawBufferPointer, HTTPVersion) {
        guard let firstSpace = firstIndex(of: HTTPGrammar.space, in: line), firstSpace > 0 else {
            throw .invalidRequestLine
        }
        let methodBytes = UnsafeRawBufferPointer(rebasing: line[0..<firstSpace])
        // RFC 9112 §3.1: method = token.
        guard methodBytes.allSatisfy(HTTPGrammar.isTokenChar) else { throw .invalidMethod }
        let rest = UnsafeRawBufferPointer(rebasing: line[(firstSpace + 1)...])
        guard let secondSpace = firstIndex(of: HTTPGrammar.space, in: rest), secondSpace > 0 else {
            throw .invalidRequestLine
        }
        let targetBytes = UnsafeRawBufferPointer(rebasing: rest[0..<secondSpace])
        let versionBytes = UnsafeRawBufferPointer(rebasing: rest[(secondSpace + 1)...])
        // RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive.
        guard versionBytes.count == 8,
            versionBytes[0] == UInt8(ascii: "H"), versionBytes[1] == UInt8(ascii: "T"),
            versionBytes[2] == UInt8(ascii: "T"), versionBytes[3] == UInt8(ascii: "P"),
            versionBytes[4] == UInt8(ascii: "/"), versionBytes[6] == UInt8(ascii: "."),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(versionBytes[5]),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(versionBytes[7])
        else {
            // Anything else there (extra spaces, a lower-case protocol, garbage) is a malformed request line.
            throw targetBytes.allSatisfy(HTTPGrammar.isTargetChar) ? .invalidRequestLine : .invalidTarget
        }
        let major = Int(versionBytes[5] - UInt8(ascii: "0"))
        let minor = Int(versionBytes[7] - UInt8(ascii: "0"))
        guard major == 1 else { throw .unsupportedVersion }
        // RFC 9110 §6.2: a higher minor version is answered as the highest we support.
        let version: HTTPVersion = minor == 0 ? .http1_0 : .http1_1
        return (HTTPMethod(bytes: methodBytes), targetBytes, version)
    }

    /// Checks the path, query and fragment of a target (starting at its path, or at `?` or `#`) against RFC 3986
    /// in one pass over the bytes, and finds where they split: the offset of the first `?` before any `#` (nil
    /// when there is no query), the offset of the `#` (the count when there is none), and whether the path holds
    /// a `%`.
    ///
    /// The path, the query and the fragment obey the same rules (RFC 3986 §3.3-3.5: `pchar`, `/` and `?`), so a
    /// query is refused for what a path is refused for: a byte outside `unreserved / sub-delims / ":" / "@" / "/"
    /// / "?"`, such as `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`, `[` or `]` (`HTTPGrammar.isPathOrQueryChar`),
    /// a `%` not followed by two hex digits (§2.1), or a second `#`. One table lookup per byte; the rest runs only
    /// on the rare `?`, `#` and `%`.
    @inline(__always)
    private static func scanPathAndQuery(
        _ targetBytes: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (queryStart: Int?, end: Int, hasPercent: Bool) {
        var queryStart: Int?
        var end = targetBytes.count
        var hasPercent = false
        try Self.targetByteClasses.withUnsafeBufferPointer { (classes) throws(HTTPParseError) in
            // Most targets are ordinary bytes up to a `?`: skip them in a tight loop first.
            var first = 0
            while first < targetBytes.count && classes[Int(targetBytes[first])] == Self.ordinaryTargetByte {
                first &+= 1
            }
            for index in first..<targetBytes.count {
                let byte = targetBytes[index]
                switch classes[Int(byte)] {
                case Self.ordinaryTargetByte: continue
                case Self.delimitingTargetByte: break
                default: throw .invalidTarget
                }
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < targetBytes.count, PercentEncoding.isHexDigit(targetBytes[index + 1]),
                        PercentEncoding.isHexDigit(targetBytes[index + 2])
                    else { throw .invalidTarget }
                    if queryStart == nil && end == targetBytes.count { hasPercent = true }  // a `%` in the path
                } else if byte == UInt8(ascii: "#") {
                    guard end == targetBytes.count else { throw .invalidTarget }  // `#` is not allowed in a fragment
                    end = index
                } else if queryStart == nil && end == targetBytes.count {
                    queryStart = index  // the first `?`
                }
            }
        }
        return (queryStart, end, hasPercent)
    }

    /// What each byte is in a request-target's path, query or fragment: not allowed (0), ordinary (1), or one of
    /// `?`, `#` and `%`, which split an origin-form target or start an escape (2). Allowed bytes are those of
    /// `HTTPGrammar.isPathOrQueryChar`.
    private static let targetByteClasses: [UInt8] = (0..<256).map { value in
        let byte = UInt8(value)
        if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "%") {
            return delimitingTargetByte
        }
        return HTTPGrammar.isPathOrQueryChar(byte) ? ordinaryTargetByte : 0
    }
    private static let ordinaryTargetByte: UInt8 = 1
    private static let delimitingTargetByte: UInt8 = 2

    private static func isAbsoluteForm(_ target: String) -> Bool {
        let lower = target.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5).
    private static func parseFieldLine(
        _ line: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard let first = line.first else { throw .invalidHeaderName }
        // RFC 9112 §5.2: obs-fold (a line starting with whitespace) is rejected with 400. This also covers
        // whitespace between the start-line and the first field (RFC 9112 §2.2).
        if first == HTTPGrammar.space || first == HTTPGrammar.tab { throw .obsoleteLineFolding }
        var colon = 0
        while colon < line.count && HTTPGrammar.isTokenChar(line[colon]) { colon += 1 }
        guard colon < line.count, colon > 0 else { throw .invalidHeaderName }
        if line[colon] != HTTPGrammar.colon {
            // RFC 9112 §5.1: no whitespace is allowed between the field name and the colon; MUST reject with 400.
            var probe = colon
            while probe < line.count && (line[probe] == HTTPGrammar.space || line[probe] == HTTPGrammar.tab) {
                probe += 1
            }
            if probe > colon, probe < line.count, line[probe] == HTTPGrammar.colon { throw .whitespaceBeforeColon }
            throw .invalidHeaderName
        }
        var start = colon + 1
        var end = line.count
        while start < end && (line[start] == HTTPGrammar.space || line[start] == HTTPGrammar.tab) { start += 1 }
        while end > start && (line[end - 1] == HTTPGrammar.space || line[end - 1] == HTTPGrammar.tab) { end -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[start..<end])
        // RFC 9110 §5.5: CR, LF and NUL are invalid in a field value; we reject every control but HTAB.
        guard value.allSatisfy(HTTPGrammar.isFieldValueChar) else { throw .invalidHeaderValue }
        return (UnsafeRawBufferPointer(rebasing: line[0..<colon]), value)
    }

    /// Content-Length = 1*DIGIT (RFC 9112 §6.2); at most 18 digits so it never overflows `Int`.
    private static func parseContentLength(_ value: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int {
        guard !value.isEmpty, value.count <= 18 else { throw .invalidContentLength }
        var result = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { throw .invalidContentLength }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result
    }

    /// Host = uri-host [ ":" port ] (RFC 9110 §7.2): unreserved, pct-encoded, sub-delims, ":" and IP-literal
    /// brackets. An empty value is allowed.
    private static func isValidHost(_ value: UnsafeRawBufferPointer) -> Bool {
        value.allSatisfy(HTTPGrammar.isHostChar)
    }

    /// chunk-size = 1*HEXDIG, then optional chunk-ext (RFC 9112 §7.1.1). Leading zeros are allowed; more than 15
    /// significant hex digits is an overflow. Extensions are checked for forbidden characters and ignored.
    private static func parseChunkSize(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int {
        var index = 0
        var size = 0
        var significantDigits = 0
        while index < line.count {
            let byte = line[index]
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(byte - UInt8(ascii: "A")) + 10
            default: digit = -1
            }
            if digit < 0 { break }
            if size > 0 || digit > 0 { significantDigits += 1 }
            guard significantDigits <= 15 else { throw .invalidChunkSize }
            size = size << 4 | digit
            index += 1
        }
        guard index > 0 else { throw .invalidChunkSize }
        if index < line.count {
            // chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
            var probe = index
            while probe < line.count && (line[probe] == HTTPGrammar.space || line[probe] == HTTPGrammar.tab) {
                probe += 1
            }
            guard probe < line.count, line[probe] == UInt8(ascii: ";") else { throw .invalidChunkSize }
            let extensions = UnsafeRawBufferPointer(rebasing: line[probe...])
            guard extensions.allSatisfy(HTTPGrammar.isFieldValueChar) else { throw .invalidChunkSize }
        }
        return size
    }
}
