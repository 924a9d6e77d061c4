@testable import LiveryHTTP

/// One message as the parser produced it.
struct ParsedMessage: Equatable {
    var method: HTTPMethod
    var target: String
    var path: String
    var rawPath: String
    var rawQuery: String
    var version: HTTPVersion
    var headers: HTTPHeaders
    var keepAlive: Bool
    var expectsContinue: Bool
    /// The head's `X-Request-Id` as noted while parsing.
    var requestID: String?
    var body: [UInt8]
    var trailers: HTTPHeaders
}

/// What feeding some bytes to a parser produced.
struct ParseOutcome: Equatable {
    var messages: [ParsedMessage] = []
    var error: HTTPParseError?
    /// Bytes left unconsumed at the end (an incomplete message).
    var leftover = 0
}

/// Feeds `bytes` to a fresh parser in pieces of `pieceSize` (1 = drip-fed byte by byte), carrying unconsumed
/// bytes over exactly as the connection does.
func parse(
    _ bytes: [UInt8], pieceSize: Int = .max, bodyLimit: Int = 1 << 20,
    configuration: HTTPRequestParser.Configuration = .init()
) -> ParseOutcome {
    var parser = HTTPRequestParser(configuration: configuration, bodyLimit: bodyLimit)
    var outcome = ParseOutcome()
    var pending: [UInt8] = []
    var head: HTTPRequestHead?
    var offset = 0
    while offset < bytes.count || offset == 0 {
        let end = min(bytes.count, offset + max(1, min(pieceSize, bytes.count)))
        pending.append(contentsOf: bytes[offset..<end])
        offset = end
        loop: while true {
            let attempt = pending.withUnsafeBytes { buffer in
                Result { () throws(HTTPParseError) in
                    let result = try parser.next(buffer)
                    // The head's bytes are the last ones consumed: its strings are made while they are at hand.
                    if result.event == .head, let parsed = parser.takeHead() {
                        let bytes = UnsafeRawBufferPointer(
                            rebasing: buffer[(result.consumed - Int(parsed.length))..<result.consumed])
                        head = HTTPRequestHead(parsed, bytes: bytes)
                    }
                    return result
                }
            }
            let result: (event: HTTPRequestParser.Event, consumed: Int)
            switch attempt {
            case .success(let value): result = value
            case .failure(let error):
                outcome.error = error
                return outcome
            }
            pending.removeFirst(result.consumed)
            switch result.event {
            case .needMoreData:
                break loop
            case .head:
                break
            case .end:
                let (body, trailers) = parser.takeMessage()
                guard let head else { fatalError("end without head") }
                outcome.messages.append(
                    ParsedMessage(
                        method: head.method, target: head.target, path: head.path, rawPath: String(head.rawPath),
                        rawQuery: String(head.rawQuery), version: head.version,
                        headers: head.headers, keepAlive: head.keepAlive, expectsContinue: head.expectsContinue,
                        requestID: head.requestID, body: body, trailers: trailers))
            }
        }
        if bytes.isEmpty { break }
    }
    outcome.leftover = pending.count
    return outcome
}

/// Bytes from a literal with explicit `\r\n`.
func wire(_ text: String) -> [UInt8] { Array(text.utf8) }
