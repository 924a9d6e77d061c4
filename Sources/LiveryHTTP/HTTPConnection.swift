#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// One accepted TCP connection: reads requests, runs handlers, writes responses in order.
///
/// Driven by its event loop's thread: readiness to read (and to write, only while a response is waiting for the
/// socket). Bytes are parsed straight out of the loop's read buffer; only an incomplete request is copied
/// into `pendingInput`. Responses are encoded into the loop's output buffer and sent once per round; what the
/// socket does not take waits in `outbound`, and reading pauses until it has drained (backpressure), so a client
/// that pipelines without reading cannot make the server buffer without bound.
final class HTTPConnection: @unchecked Sendable {
    // Invariant: every mutable property is used only on the loop's thread. The only other place holding the
    // connection is an async handler's Task, which touches nothing but hops back with `loop.execute`.

    private enum Phase {
        /// Between requests, nothing of the next one received.
        case idle
        /// Part of a request head received.
        case readingHead
        /// Head complete, body arriving.
        case readingBody
        /// An async handler is running.
        case awaitingHandler
        /// The final response is queued; close once it has been written.
        case closing
        /// Output shut down; discarding client bytes until EOF or the linger timeout.
        case lingering
        case closed
    }

    private struct Exchange {
        var head: HTTPRequestHead
        var route: HTTPRoute
        var requestID: String
        var start: UInt64
    }

    let fd: Int32
    let loop: EventLoop
    let remoteAddress: String
    /// Position in the loop's connection list; maintained by `EventLoop`.
    var loopSlot = -1
    /// Monotonic nanoseconds after which `deadlineExpired` runs; `UInt64.max` for none.
    private(set) var deadline: UInt64 = .max

    private let context: ServerContext
    private let refused: Bool
    private var phase: Phase = .idle
    private var parser: HTTPRequestParser
    private var pendingInput: [UInt8] = []
    /// Set when processing stopped with input possibly left in `pendingInput` (waiting on output or a handler).
    private var processingBlocked = false
    private var outbound = OutboundQueue()
    private var exchange: Exchange?
    private var interest = EventLoop.Interest(read: true, write: false)
    private var peerClosedInput = false
    private var draining = false
    private var lingerDiscarded = 0
    /// The deadline of the current phase; `deadline` uses it unless output is stalled.
    private var phaseDeadline: UInt64 = .max
    private var writeDeadline: UInt64 = .max

    /// Output above which no further pipelined request is processed until the socket has taken it.
    private static let outputHighWater = 256 * 1024
    /// Most bytes of a file body sent in one `sendfile` before the loop turns to other connections (as nginx's
    /// `sendfile_max_chunk`), so one large download cannot hold a loop for long.
    private static let fileChunkLimit = 512 << 10
    /// Bytes a lingering close discards before giving up on the client.
    private static let lingerDiscardLimit = 1 << 20

    init(fd: Int32, loop: EventLoop, remoteAddress: String, refused: Bool) {
        self.fd = fd
        self.loop = loop
        self.context = loop.context
        self.remoteAddress = remoteAddress
        self.refused = refused
        self.parser = HTTPRequestParser(
            configuration: loop.context.parserConfiguration, bodyLimit: loop.context.configuration.defaultBodyLimit)
    }

    // MARK: - Lifecycle

    /// Registers the connection with its loop and starts reading. Runs on the loop's thread.
    func open() {
        guard loop.register(self, interest: interest) else {
            phase = .closed
            Syscall.close(fd)
            context.connectionClosed()
            return
        }
        context.observer?.connectionOpened(HTTPConnectionEvent(remoteAddress: remoteAddress, refused: refused))
        if refused {
            let response = HTTPResponse.overloaded(
                code: "server_busy", message: "The server has too many open connections; retry shortly.")
            write(response, head: nil, routePattern: nil, requestID: loop.requestIDs.next(), start: loop.now, forceClose: true)
            flush()
        } else {
            setPhaseDeadline(loop.now &+ context.headerTimeout)
        }
        if refused { reconcile() }
        if context.draining.load(ordering: .acquiring) { drain() }
    }

    /// Graceful shutdown: close now if idle, otherwise let the current exchange finish with `Connection: close`.
    func drain() {
        draining = true
        if phase == .idle && pendingInput.isEmpty && outbound.isEmpty { close() }
    }

    /// Closes immediately, abandoning any exchange in progress.
    func forceClose() { close() }

    private func close() {
        guard phase != .closed else { return }
        phase = .closed
        deadline = .max
        // Anything this connection staged in the shared output buffer must not reach another connection.
        loop.output.removeAll()
        exchange = nil
        pendingInput = []
        outbound.removeAll()
        loop.unregister(self)
        Syscall.close(fd)
        // Reported once the slot is really free, so a closed event means a new connection fits under the cap.
        context.connectionClosed()
        context.observer?.connectionClosed(HTTPConnectionEvent(remoteAddress: remoteAddress, refused: refused))
    }

    /// The socket failed or is shut down in both directions: nothing more can be delivered.
    func handleHangup() {
        close()
    }

    func deadlineExpired() {
        guard phase != .closed else { return }
        if !outbound.isEmpty {
            // The client stopped reading our response.
            close()
            return
        }
        switch phase {
        case .readingHead, .readingBody:
            // Slowloris defence: a request that does not arrive in time gets a 408 and the connection closes.
            respondWithError(.requestTimeout, code: "request_timeout", message: "The request took too long to arrive.")
            flush()
            reconcile()
        case .idle, .closing, .lingering, .awaitingHandler, .closed:
            close()
        }
    }

    // MARK: - Reading

    func handleReadable() {
        switch phase {
        case .closed:
            return
        case .lingering:
            discardInput()
            return
        case .awaitingHandler, .closing:
            // Reading is switched off in these phases; an event from before that can still arrive once.
            reconcile()
            return
        case .idle, .readingHead, .readingBody:
            break
        }
        var rounds = 0
        reading: while rounds < 4 && acceptsInput && outbound.isEmpty {
            rounds += 1
            let count: Int
            do {
                switch try Syscall.receive(fd, into: loop.readBuffer) {
                case .wouldBlock: break reading
                case .processed(let received): count = received
                }
            } catch {
                // ECONNRESET and friends: nothing left to answer.
                close()
                return
            }
            if count == 0 {
                peerClosedInput = true
                break reading
            }
            ingest(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
            if count < loop.readBuffer.count { break reading }
        }
        flush()
        reconcile()
    }

    private var acceptsInput: Bool {
        switch phase {
        case .idle, .readingHead, .readingBody: true
        default: false
        }
    }

    /// Parses newly received bytes, directly from the loop's buffer unless an incomplete request is pending.
    private func ingest(_ bytes: UnsafeRawBufferPointer) {
        if pendingInput.isEmpty {
            let consumed = process(bytes)
            if consumed < bytes.count && acceptsInputOrWaiting {
                pendingInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            var input = pendingInput
            pendingInput = []
            input.append(contentsOf: bytes)
            processPending(&input)
        }
    }

    /// Whether unconsumed input is still wanted (it is not once the connection is closing).
    private var acceptsInputOrWaiting: Bool {
        switch phase {
        case .idle, .readingHead, .readingBody, .awaitingHandler: true
        default: false
        }
    }

    private func processPending(_ input: inout [UInt8]) {
        let consumed = input.withUnsafeBytes { process($0) }
        guard acceptsInputOrWaiting else { return }
        pendingInput = Self.unconsumed(input, after: consumed)
    }

    /// What of `input` is left after `consumed` bytes, in storage sized to it: a connection keeps no buffer when
    /// all was consumed, and never the capacity a large pipelined burst grew (memory per idle connection).
    static func unconsumed(_ input: [UInt8], after consumed: Int) -> [UInt8] {
        if consumed >= input.count { return [] }
        if consumed == 0 && input.capacity <= 2 * input.count { return input }
        return Array(input[consumed...])
    }

    /// Runs the parser over `input` for as long as requests can be answered.
    /// - Returns: how many bytes were consumed.
    private func process(_ input: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while acceptsInput {
            if !outbound.isEmpty || loop.output.count >= Self.outputHighWater {
                processingBlocked = true
                return offset
            }
            let event: HTTPRequestParser.Event
            let consumed: Int
            do {
                (event, consumed) = try parser.next(UnsafeRawBufferPointer(rebasing: input[offset...]))
            } catch {
                reject(error)
                return input.count
            }
            offset += consumed
            switch event {
            case .needMoreData:
                if phase == .idle && offset < input.count {
                    phase = .readingHead
                    if exchangeCount > 0 {
                        setPhaseDeadline(loop.now &+ context.headerTimeout)
                    }
                } else if phase == .readingBody && consumed > 0 {
                    setPhaseDeadline(loop.now &+ context.idleTimeout)
                }
                return offset
            case .head:
                if let head = parser.takeHead() { beginExchange(head) }
            case .end:
                let (body, trailers) = parser.takeMessage()
                finishExchange(body: body, trailers: trailers)
            }
        }
        if phase == .awaitingHandler { processingBlocked = true }
        return offset
    }

    /// Requests answered so far on this connection (the first request's head deadline runs from the opening).
    private var exchangeCount = 0

    private func beginExchange(_ head: consuming HTTPRequestHead) {
        let now = loop.now
        let route = context.responder.route(method: head.method, rawPath: head.rawPath)
        let limit = route.bodyLimit ?? context.defaultBodyLimit
        parser.bodyLimit = limit
        var requestID: String?
        if context.acceptsRequestID, let incoming = head.headers["x-request-id"],
            RequestIDGenerator.isAcceptable(incoming)
        {
            requestID = incoming
        }
        let framing = head.framing
        let expectsContinue = head.expectsContinue
        exchange = Exchange(head: head, route: route, requestID: requestID ?? loop.requestIDs.next(), start: now)
        phase = .readingBody
        if let headCheck = route.headCheck, let exchange,
            let early = headCheck(makeRequest(exchange, body: [], trailers: [:]))
        {
            // Answered before any of the body is read, and before a 100 Continue could invite it. If content was
            // announced, the connection closes (lingering), so the unread body is never buffered nor parsed as
            // the next request; without content the connection may stay open (the parser's `.end` that follows
            // finds no exchange and is ignored).
            let hasContent = framing != .none && framing != .length(0)
            write(
                early, head: exchange.head, routePattern: route.pattern, requestID: exchange.requestID,
                start: exchange.start, forceClose: hasContent)
            return
        }
        if case .length(let length) = framing, length > limit {
            // Answered before any of the body is read; the connection closes, so the body is never parsed.
            reject(.contentTooLarge(limit: limit))
            return
        }
        if framing != .none {
            setPhaseDeadline(now &+ context.idleTimeout)
            // RFC 9110 §10.1.1: tell a client waiting on 100-continue to send the body.
            if expectsContinue { loop.output.append(ResponseEncoder.continueLine) }
        }
    }

    private func finishExchange(body: [UInt8], trailers: HTTPHeaders) {
        // Moved out rather than copied: the hot path should not retain and release every field.
        guard let exchange = self.exchange.take() else { return }
        let request = makeRequest(exchange, body: body, trailers: trailers)
        switch exchange.route.handler {
        case .sync(let handler):
            let response = handler(request)
            write(
                response, head: exchange.head, routePattern: exchange.route.pattern, requestID: exchange.requestID,
                start: exchange.start, forceClose: false)
        case .async(let handler):
            runAsync(handler, request: request, exchange: exchange)
        case .syncOrAsync(let immediate, let otherwise):
            if let response = immediate(request) {
                write(
                    response, head: exchange.head, routePattern: exchange.route.pattern, requestID: exchange.requestID,
                    start: exchange.start, forceClose: false)
            } else {
                runAsync(otherwise, request: request, exchange: exchange)
            }
        }
    }

    /// Hands `request` to an asynchronous handler; the connection waits (reading nothing more) for its response.
    private func runAsync(
        _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse, request: HTTPRequest, exchange: Exchange
    ) {
        self.exchange = exchange
        phase = .awaitingHandler
        setPhaseDeadline(.max)
        let loop = self.loop
        Task { [self] in
            let response = await handler(request)
            loop.execute { self.asyncResponseArrived(response) }
        }
    }

    /// The request handlers and head checks see (a head check gets an empty body and no trailers).
    @inline(__always)
    private func makeRequest(_ exchange: Exchange, body: [UInt8], trailers: HTTPHeaders) -> HTTPRequest {
        let head = exchange.head
        return HTTPRequest(
            method: head.method, target: head.target, path: head.path, query: QueryParameters(parsing: head.rawQuery),
            headers: head.headers, trailers: trailers, body: body, version: head.version,
            pathParameters: exchange.route.pathParameters, requestID: exchange.requestID,
            remoteAddress: remoteAddress)
    }

    private func asyncResponseArrived(_ response: HTTPResponse) {
        guard phase == .awaitingHandler else { return }
        respond(response)
        flush()
        reconcile()
    }

    // MARK: - Responding

    private func respond(_ response: HTTPResponse) {
        guard let exchange = self.exchange.take() else { return }
        write(
            response, head: exchange.head, routePattern: exchange.route.pattern, requestID: exchange.requestID,
            start: exchange.start, forceClose: false)
    }

    private func reject(_ error: HTTPParseError) {
        respondWithError(
            error.status, code: error.code, message: error.message,
            details: [("field", error.field), ("reason", error.message)])
    }

    /// Sends a JSON error and closes the connection afterwards.
    private func respondWithError(
        _ status: HTTPStatus, code: String, message: String, details: [(String, String)] = []
    ) {
        let response = HTTPResponse.error(status, code: code, message: message, details: details)
        let requestID = exchange?.requestID ?? loop.requestIDs.next()
        write(
            response, head: exchange?.head, routePattern: exchange?.route.pattern, requestID: requestID,
            start: exchange?.start ?? loop.now, forceClose: true)
    }

    private func write(
        _ response: HTTPResponse, head: HTTPRequestHead?, routePattern: String?, requestID: String, start: UInt64,
        forceClose: Bool
    ) {
        exchange = nil
        exchangeCount += 1
        let keepAlive =
            !forceClose && (head?.keepAlive ?? false) && !draining && !context.draining.load(ordering: .relaxed)
        let isHead = head?.method == .head
        var response = response
        if response.status.forbidsBody { response.body = .empty }

        // Open a file body before writing the head, so a missing file can still become a 500.
        var file: (file: OpenFile, offset: Int, length: Int)?
        let fileBody: (path: String, offset: UInt64, length: UInt64, cached: Bool)? =
            switch response.body {
            case .file(let path, let offset, let length): (path, offset, length, false)
            case .immutableFile(let path, let offset, let length): (path, offset, length, true)
            case .empty, .bytes: nil
            }
        if let fileBody, !isHead {
            let path = fileBody.path
            switch openFileBody(path: path, offset: fileBody.offset, length: fileBody.length, cached: fileBody.cached) {
            case .success(let opened):
                file = opened
                context.descriptors.obtained()
            case .failure(.open(let error)) where DescriptorExhaustion.isExhaustion(error.errno):
                // Not the file's fault: the process is out of descriptors for a moment. Logged once per episode.
                context.descriptors.failed("opening a file body", errno: error.errno)
                response = .overloaded(
                    code: "server_busy", message: "The server is out of file descriptors for a moment; retry shortly.")
            case .failure(let reason):
                context.logger.error(
                    "file body unavailable: \(reason)",
                    metadata: ["request.id": "\(requestID)", "file.path": "\(path)"])
                response = .error(.internalServerError, code: "internal_error", message: "The server failed to respond.")
            }
        }

        let fields = ResponseEncoder.ServerFields(
            date: loop.dateCache.current(), serverLine: context.serverLine, requestID: requestID,
            keepAlive: keepAlive, requestIsHTTP10: head?.version == .http1_0)
        let output = loop.output
        let headStart = output.count
        do {
            try ResponseEncoder.encodeHead(
                status: response.status, headers: response.headers, contentLength: response.body.length,
                fields: fields, into: output)
        } catch {
            context.logger.error(
                "handler response has an invalid header", metadata: ["request.id": "\(requestID)", "header": "\(error.name)"])
            file = nil
            response = .error(.internalServerError, code: "internal_error", message: "The server failed to respond.")
            // Cannot fail: the error response's headers are valid.
            try? ResponseEncoder.encodeHead(
                status: response.status, headers: response.headers, contentLength: response.body.length,
                fields: fields, into: output)
        }
        var bytesSent = output.count - headStart
        if !isHead, case .bytes(let bytes) = response.body {
            output.append(bytes)
            bytesSent += bytes.count
        }
        if let file {
            flushStaging(more: true)
            outbound.append(file: file.file, offset: file.offset, length: file.length)
            bytesSent += file.length
        }

        if context.hasObserver || context.logsRequests {
            report(
                head, routePattern: routePattern, status: response.status, bytesSent: bytesSent, requestID: requestID,
                start: start)
        }

        if keepAlive {
            phase = .idle
            setPhaseDeadline(loop.now &+ context.idleTimeout)
        } else {
            phase = .closing
            pendingInput = []
        }
    }

    /// Opens a file body (from the server's open-file cache when `cached`). Out of descriptors, the cache gives
    /// its idle ones back and the open is tried once more.
    private func openFileBody(
        path: String, offset: UInt64, length: UInt64, cached: Bool
    ) -> Result<(file: OpenFile, offset: Int, length: Int), FileBodyError> {
        guard offset <= UInt64(Int.max), length <= UInt64(Int.max) - offset else { return .failure(.rangeTooLarge) }
        let openFiles = context.openFiles
        let attempt = { () -> Result<OpenFile, OpenFileCache.Failure> in
            Result { () throws(OpenFileCache.Failure) in
                cached ? try openFiles.open(path) : try OpenFileCache.openRegular(path)
            }
        }
        var opened = attempt()
        if case .failure(.system(let error)) = opened, DescriptorExhaustion.isExhaustion(error.errno),
            openFiles.removeAll() > 0
        {
            opened = attempt()
        }
        let file: OpenFile
        switch opened {
        case .success(let value): file = value
        case .failure(.system(let error)): return .failure(.open(error))
        case .failure(.notRegularFile): return .failure(.notRegularFile)
        }
        guard file.size >= offset + length else {
            if cached { context.openFiles.invalidate(path) }
            return .failure(.shorterThanRange)
        }
        return .success((file, Int(offset), Int(length)))
    }

    private enum FileBodyError: Error, CustomStringConvertible {
        case open(SyscallError)
        case notRegularFile
        case shorterThanRange
        case rangeTooLarge

        var description: String {
            switch self {
            case .open(let error): "\(error)"
            case .notRegularFile: "not a regular file"
            case .shorterThanRange: "file shorter than the requested range"
            case .rangeTooLarge: "range too large"
            }
        }
    }

    private func report(
        _ head: HTTPRequestHead?, routePattern: String?, status: HTTPStatus, bytesSent: Int, requestID: String,
        start: UInt64
    ) {
        let method = head?.method
        let end = Syscall.monotonicNanoseconds()
        let elapsed = end > start ? end - start : 0
        if context.hasObserver, let observer = context.observer {
            observer.requestCompleted(
                HTTPRequestEvent(
                    method: method, routePattern: routePattern, status: status, bytesSent: bytesSent,
                    nanoseconds: Int64(clamping: elapsed), requestID: requestID))
        }
        if context.logsRequests {
            // The path is logged raw and without the query: no decoded control characters, no query secrets.
            let methodText = method?.rawValue ?? "-"
            let pathText = head.map { String($0.rawPath) } ?? "-"
            let milliseconds = Double(elapsed) / 1_000_000
            context.logger.log(
                level: context.requestLogLevel,
                "\(methodText) \(pathText) \(status.code) \(bytesSent)B \(milliseconds.formatted3)ms",
                metadata: ["request.id": "\(requestID)"])
        }
    }

    // MARK: - Writing

    /// Sends what this round encoded into the loop's output buffer, then whatever is queued.
    private func flush() {
        flushStaging(more: false)
        if !outbound.isEmpty { writeOutbound() }
    }

    /// Sends the loop's output buffer (one `send` in the common case); the rest is copied into `outbound`.
    private func flushStaging(more: Bool) {
        let output = loop.output
        guard !output.isEmpty, phase != .closed else {
            output.removeAll()
            return
        }
        defer { output.removeAll() }
        guard outbound.isEmpty else {
            outbound.append(bytes: Array(output.bytes))
            return
        }
        var sent = 0
        let bytes = output.bytes
        sending: while sent < bytes.count {
            do {
                switch try Syscall.send(fd, UnsafeRawBufferPointer(rebasing: bytes[sent...]), more: more) {
                case .processed(let count): sent += count
                case .wouldBlock: break sending
                }
            } catch {
                close()
                return
            }
        }
        if sent < bytes.count {
            outbound.append(bytes: Array(UnsafeRawBufferPointer(rebasing: bytes[sent...])))
            writeDeadline = loop.now &+ context.idleTimeout
        }
    }

    /// Writes queued chunks until the socket would block or the queue is empty.
    private func writeOutbound() {
        var progressed = false
        defer {
            if progressed { writeDeadline = loop.now &+ context.idleTimeout }
        }
        while let chunk = outbound.first, phase != .closed {
            do {
                switch chunk {
                case .bytes(let bytes, let offset):
                    let result = try bytes.withUnsafeBytes { buffer throws(SyscallError) in
                        try Syscall.send(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                    }
                    guard case .processed(let count) = result else { return }
                    progressed = true
                    if offset + count == bytes.count {
                        outbound.removeFirst()
                    } else {
                        outbound.updateFirst(.bytes(bytes, offset: offset + count))
                    }
                case .file(let file, let offset, let remaining):
                    var position = offset
                    let result = try Syscall.sendFile(
                        to: fd, from: file.descriptor, offset: &position, count: min(remaining, Self.fileChunkLimit))
                    guard case .processed(let count) = result else { return }
                    if count == 0 {
                        // The file shrank after we announced its length: the response cannot be completed.
                        context.logger.error("file body ended early", metadata: ["remote": "\(remoteAddress)"])
                        close()
                        return
                    }
                    progressed = true
                    if count == remaining {
                        outbound.removeFirst()
                    } else {
                        outbound.updateFirst(.file(file, offset: position, remaining: remaining - count))
                        // A whole chunk went out: let the loop serve other connections before the next one (the
                        // socket stays writable, so the next round comes back here).
                        if count == Self.fileChunkLimit { return }
                    }
                }
            } catch {
                close()
                return
            }
        }
    }

    func handleWritable() {
        guard phase != .closed else { return }
        writeOutbound()
        reconcile()
    }

    // MARK: - State

    private func setPhaseDeadline(_ value: UInt64) {
        phaseDeadline = value
        deadline = value
    }

    /// Brings sources, deadlines and buffered input in line with the current state after any event.
    private func reconcile() {
        while true {
            guard phase != .closed else { return }
            if !outbound.isEmpty {
                setReading(false)
                setWriting(true)
                deadline = writeDeadline
                return
            }
            setWriting(false)
            deadline = phaseDeadline
            switch phase {
            case .closed:
                return
            case .closing:
                beginLingering()
                return
            case .lingering:
                setReading(true)
                return
            case .awaitingHandler:
                setReading(false)
                return
            case .idle, .readingHead, .readingBody:
                break
            }
            if processingBlocked {
                // Output drained or a handler finished: answer what is already buffered before reading more.
                processingBlocked = false
                if !pendingInput.isEmpty {
                    var input = pendingInput
                    pendingInput = []
                    processPending(&input)
                    flush()
                    continue
                }
            }
            if draining && phase == .idle && pendingInput.isEmpty {
                close()
                return
            }
            if peerClosedInput {
                // No more bytes will come: an incomplete request can never be answered.
                close()
                return
            }
            setReading(true)
            return
        }
    }

    private func setReading(_ enabled: Bool) {
        guard interest.read != enabled, phase != .closed else { return }
        interest.read = enabled
        loop.update(self, interest: interest)
    }

    private func setWriting(_ enabled: Bool) {
        guard interest.write != enabled, phase != .closed else { return }
        interest.write = enabled
        loop.update(self, interest: interest)
    }

    /// Closes our side for writing and drains the client's unread bytes, so the kernel does not answer them
    /// with a reset that could destroy the response before the client reads it.
    private func beginLingering() {
        phase = .lingering
        pendingInput = []
        Syscall.shutdownWrite(fd)
        setPhaseDeadline(loop.now &+ context.lingerTimeout)
        setReading(true)
    }

    private func discardInput() {
        while true {
            do {
                switch try Syscall.receive(fd, into: loop.readBuffer) {
                case .wouldBlock:
                    return
                case .processed(let count):
                    lingerDiscarded += count
                    if count == 0 || lingerDiscarded > Self.lingerDiscardLimit {
                        close()
                        return
                    }
                }
            } catch {
                close()
                return
            }
        }
    }
}

extension Double {
    /// Three decimals without Foundation's formatters (for log lines).
    fileprivate var formatted3: String {
        let thousandths = Int((self * 1000).rounded())
        let fraction = thousandths % 1000
        return "\(thousandths / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }
}
