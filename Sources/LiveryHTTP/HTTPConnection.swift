import Logging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One accepted TCP connection: carries out what its `HTTPConnectionStateMachine` decides, doing the I/O, the
/// routing and the handler calls.
///
/// Driven by its event loop's thread: readiness to read (and to write, only while a response is waiting for the
/// socket). Bytes are parsed straight out of the loop's read buffer; only an incomplete request is copied
/// into the machine. Responses are encoded into the loop's output buffer and sent once per round; what the
/// socket does not take waits in `outbound`, and reading pauses until it has drained (backpressure), so a client
/// that pipelines without reading cannot make the server buffer without bound.
///
/// On a TLS listener the connection has a `TLSSession`: the handshake runs first (see the machine's `handshaking`
/// phase), then every read and write goes through it, and file bodies are read and encrypted in chunks
/// (`sendfile` cannot encrypt).
final class HTTPConnection: @unchecked Sendable {
    // Invariant: every mutable property is used only on the loop's thread. The only other place holding the
    // connection is an async handler's Task, which touches nothing but hops back with `loop.execute`.

    /// The request being answered. Its `request` is built once from the parsed head, whose strings and arrays it
    /// takes over (a head check, the handler and an asynchronous handler's task read that one value; nothing is
    /// copied field by field per request).
    private struct Exchange {
        var request: HTTPRequest
        /// Pattern, body limit, head check and handler (the route's path parameters are in `request`).
        let route: HTTPRoute.Target
        /// The raw path, only when request lines are logged.
        let loggedPath: Substring?
        let start: UInt64

        /// What writing the response needs of the request.
        var facts: RequestFacts {
            RequestFacts(method: request.method, version: request.version, loggedPath: loggedPath)
        }
    }

    /// What writing a response needs of its request. Empty when the head was never read.
    private struct RequestFacts {
        var method: HTTPMethod?
        var version: HTTPVersion?
        /// The raw path, only when request lines are logged.
        var loggedPath: Substring?
    }

    let fd: Int32
    let loop: EventLoop
    let remoteAddress: String
    /// Position in the loop's connection list; maintained by `EventLoop`.
    var loopSlot = -1
    /// Monotonic nanoseconds after which `deadlineExpired` runs; `UInt64.max` for none.
    var deadline: UInt64 { machine.deadline }

    private let context: ServerContext
    private let refused: Bool
    private let tls: TLSSession?
    private var machine: HTTPConnectionStateMachine
    private var outbound = OutboundQueue()
    private var exchange: Exchange?
    /// What the loop watches the socket for (the machine's `interest` once applied).
    private var registeredInterest: EventLoop.Interest

    /// Most bytes of a file body sent in one `sendfile` before the loop turns to other connections (as nginx's
    /// `sendfile_max_chunk`), so one large download cannot hold a loop for long.
    private static let fileChunkLimit = 512 << 10

    /// Bodies held in memory from this size on are sent from where they are, after the head, with one `sendmsg`
    /// (`flushStaging(then:)`) rather than copied into the loop's output buffer; smaller ones cost less to copy.
    private static let gatherThreshold = 8 << 10

    init(fd: Int32, loop: EventLoop, remoteAddress: String, refused: Bool, tls: TLSSession? = nil) {
        self.fd = fd
        self.tls = tls
        self.loop = loop
        self.context = loop.context
        self.remoteAddress = remoteAddress
        self.refused = refused
        self.machine = HTTPConnectionStateMachine(
            timeouts: HTTPConnectionStateMachine.Timeouts(
                header: loop.context.headerTimeout, idle: loop.context.idleTimeout,
                linger: loop.context.lingerTimeout),
            parserConfiguration: loop.context.parserConfiguration,
            defaultBodyLimit: loop.context.configuration.defaultBodyLimit)
        self.registeredInterest = machine.interest
    }

    // MARK: - Lifecycle

    /// Registers the connection with its loop and starts reading. Runs on the loop's thread.
    func open() {
        guard loop.register(self, interest: registeredInterest) else {
            machine.close()
            Syscall.close(fd)
            loop.connectionClosed()
            return
        }
        context.observer?.connectionOpened(HTTPConnectionEvent(remoteAddress: remoteAddress, refused: refused))
        if tls != nil {
            // A refusal waits for the handshake: the 503 must reach the client encrypted.
            machine.startHandshake(now: loop.now)
        } else if refused {
            refuse()
        } else {
            machine.start(now: loop.now)
        }
        if context.draining.load(ordering: .acquiring) { drain() }
    }

    /// Answers 503 (too many connections) and closes.
    private func refuse() {
        let response = HTTPResponse.overloaded(
            code: "server_busy", message: "The server has too many open connections; retry shortly.")
        write(
            response, facts: RequestFacts(), routePattern: nil, requestID: loop.requestIDs.next(), start: loop.now,
            forceClose: true
        )
        flush()
        reconcile()
    }

    /// Drives the TLS handshake one step; once done, the connection goes on as plain HTTP over the session.
    /// A client that sends no TLS (plain HTTP, garbage, a broken ClientHello) fails it and is closed.
    private func continueHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .done:
            machine.handshakeFinished()
            if refused {
                refuse()
            } else {
                // The first request may already be waiting in the socket (or in the session).
                handleReadable()
            }
        case .wantRead:
            machine.handshakeWaits(forWrite: false)
            reconcile()
        case .wantWrite:
            machine.handshakeWaits(forWrite: true)
            reconcile()
        case .failed:
            close()
        }
    }

    /// Graceful shutdown: close now if idle, otherwise let the current exchange finish with `Connection: close`.
    func drain() {
        if machine.drain(outputQueued: !outbound.isEmpty) { close() }
    }

    /// Closes immediately, abandoning any exchange in progress.
    func forceClose() { close() }

    private func close() {
        guard !machine.isClosed else { return }
        machine.close()
        // Anything this connection staged in the shared output buffer must not reach another connection.
        loop.output.removeAll()
        exchange = nil
        outbound.removeAll()
        loop.unregister(self)
        tls?.release()
        Syscall.close(fd)
        // Reported once the slot is really free, so a closed event means a new connection fits under the cap.
        loop.connectionClosed()
        context.observer?.connectionClosed(HTTPConnectionEvent(remoteAddress: remoteAddress, refused: refused))
    }

    /// The socket failed or is shut down in both directions: nothing more can be delivered.
    func handleHangup() {
        close()
    }

    func deadlineExpired() {
        switch machine.deadlinePassed(now: loop.now, outputQueued: !outbound.isEmpty) {
        case .none:
            return
        case .close:
            close()
        case .requestTimeout:
            respondWithError(
                .error(.requestTimeout, code: "request_timeout", message: "The request took too long to arrive."))
            flush()
            reconcile()
        }
    }

    // MARK: - Reading

    func handleReadable() {
        switch machine.onReadable {
        case .ignore:
            return
        case .discard:
            discardInput()
            return
        case .settle:
            reconcile()
            return
        case .handshake:
            continueHandshake()
            return
        case .read:
            break
        }
        var rounds = 0
        reading: while rounds < 4 && machine.acceptsInput && outbound.isEmpty {
            rounds += 1
            let count: Int
            do {
                switch try receive() {
                case .wouldBlock: break reading
                case .processed(let received): count = received
                }
            } catch {
                // ECONNRESET and friends: nothing left to answer.
                close()
                return
            }
            if count == 0 {
                machine.inputEnded()
                break reading
            }
            ingest(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
            if count < loop.readBuffer.count && !(tls?.hasPendingInput ?? false) { break reading }
        }
        flush()
        reconcile()
    }

    /// Parses newly received bytes, directly from the loop's buffer unless an incomplete request is buffered.
    private func ingest(_ bytes: UnsafeRawBufferPointer) {
        guard !machine.hasBufferedInput else {
            machine.buffer(bytes)
            processBuffered()
            return
        }
        var offset = 0
        while handle(machine.nextEvent(in: bytes, offset: &offset, outputBacklog: outputBacklog, now: loop.now)) {}
        machine.keepUnconsumed(bytes, from: offset)
    }

    /// Answers what the machine has buffered, for as long as requests can be answered.
    private func processBuffered() {
        while handle(machine.nextBufferedEvent(outputBacklog: outputBacklog, now: loop.now)) {}
    }

    /// Response bytes the socket has not taken yet, as the machine's high-water check counts them.
    private var outputBacklog: Int { outbound.isEmpty ? loop.output.count : .max }

    /// Carries out one input event; returns whether parsing goes on.
    private func handle(_ event: consuming HTTPConnectionStateMachine.InputEvent) -> Bool {
        // Consumed, so the head moves on to the exchange rather than being copied and then released with the event.
        switch consume event {
        case .head(let head):
            if !answerFromView(head) { beginExchange(head.materialized()) }
            return true
        case .message(let body, let trailers):
            finishExchange(body: body, trailers: trailers)
            return true
        case .invalid(let error):
            reject(error)
            return false
        case .stop:
            return false
        }
    }

    /// Answers a request without content from where it was received, when its route has a view path
    /// (`HTTPHandler.answeringViews(_:)`) and no head check, and that path answers it: no request value is built.
    /// Returns whether it was answered (if not, nothing was done and the request goes the usual way).
    private func answerFromView(_ received: borrowing ReceivedHead) -> Bool {
        let parsed = received.parsed
        guard let router = loop.viewRouter, parsed.framing == .none, parsed.pathIsRaw,
            router.mayHaveView(pathLength: Int(parsed.pathBounds.end))
        else { return false }
        return received.withBytes { head in
            let path = UnsafeRawBufferPointer(
                rebasing: head[Int(parsed.target.start)..<Int(parsed.target.start + parsed.pathBounds.end)])
            let method = parsed.method(in: head)
            guard
                let (entry, valueStart) = router.viewEntry(
                    method: method, path: path.assumingMemoryBound(to: UInt8.self)),
                entry.target.headCheck == nil, let quick = entry.target.handler.view
            else { return false }
            let start = loop.now
            let view = HTTPRequestView(
                head: head, parsed: parsed, method: method,
                parameter: UnsafeRawBufferPointer(rebasing: path[valueStart...]),
                eventLoopIndex: loop.index, eventLoopTurn: loop.turn)
            guard let response = quick(view) else { return false }
            let loggedPath = context.logsRequests ? Substring(String(decoding: path, as: UTF8.self)) : nil
            write(
                response, facts: RequestFacts(method: method, version: parsed.version, loggedPath: loggedPath),
                routePattern: entry.target.pattern, requestID: requestID(sent: parsed.requestID(in: head)),
                start: start, forceClose: false)
            return true
        }
    }

    /// The request's id: the client's `X-Request-Id` when the server accepts one and it is valid, else a new one.
    private func requestID(sent incoming: String?) -> String {
        if context.acceptsRequestID, let incoming, RequestIDGenerator.isAcceptable(incoming) { return incoming }
        return loop.requestIDs.next()
    }

    private func beginExchange(_ head: consuming HTTPRequestHead) {
        let now = loop.now
        let rawPath = head.rawPath
        let route = loop.routing.route(method: head.method, rawPath: rawPath)
        let limit = route.bodyLimit ?? context.defaultBodyLimit
        let framing = head.framing
        let expectsContinue = head.expectsContinue
        // Without a query, no slice of the target to make (nor to retain and release).
        let query = head.hasQuery ? QueryParameters(parsing: head.rawQuery) : QueryParameters()
        let loggedPath = context.logsRequests ? rawPath : nil
        // The head's strings and arrays are moved into the request (swapped out, not copied and released).
        var head = head
        let request = HTTPRequest(
            method: head.method, target: Self.move(&head.target, leaving: ""),
            path: Self.move(&head.path, leaving: ""), query: query,
            headers: Self.move(&head.headers, leaving: HTTPHeaders()), trailers: [:], body: [],
            version: head.version, pathParameters: route.pathParameters,
            requestID: requestID(sent: head.requestID), remoteAddress: remoteAddress, eventLoopIndex: loop.index,
            eventLoopTurn: loop.turn)
        if let headCheck = route.headCheck, let early = headCheck(request) {
            // Answered before any of the body is read, and before a 100 Continue could invite it. If content was
            // announced, the connection closes (lingering), so the unread body is never buffered nor parsed as
            // the next request; without content the connection may stay open (the parser's `.end` that follows
            // is not delivered).
            let hasContent = framing != .none && framing != .length(0)
            write(
                early, facts: RequestFacts(method: request.method, version: request.version, loggedPath: loggedPath),
                routePattern: route.pattern, requestID: request.requestID, start: now, forceClose: hasContent)
            return
        }
        exchange = Exchange(request: request, route: route.target, loggedPath: loggedPath, start: now)
        switch machine.admitBody(framing: framing, expectsContinue: expectsContinue, limit: limit, now: now) {
        case .read:
            break
        case .readAfterContinue:
            loop.output.append(ResponseEncoder.continueLine)
        case .tooLarge:
            // Answered before any of the body is read; the connection closes, so the body is never parsed.
            reject(.contentTooLarge(limit: limit))
        }
    }

    /// The value at `place`, which is left holding `empty`: a move, with no reference counted.
    @inline(__always)
    private static func move<Value>(_ place: inout Value, leaving empty: Value) -> Value {
        var value = empty
        swap(&value, &place)
        return value
    }

    private func finishExchange(body: [UInt8], trailers: HTTPHeaders) {
        // Moved out rather than copied: the hot path should not retain and release every field.
        guard var exchange = self.exchange.take() else { return }
        if !body.isEmpty { exchange.request.body = body }
        if !trailers.isEmpty { exchange.request.trailers = trailers }
        switch exchange.route.handler.kind {
        case .sync(let handler):
            let response = handler(exchange.request)
            write(
                response, facts: exchange.facts, routePattern: exchange.route.pattern,
                requestID: exchange.request.requestID, start: exchange.start, forceClose: false)
        case .async(let handler):
            runAsync(handler, exchange: exchange)
        case .syncOrAsync(let immediate, let otherwise):
            if let response = immediate(exchange.request) {
                write(
                    response, facts: exchange.facts, routePattern: exchange.route.pattern,
                    requestID: exchange.request.requestID, start: exchange.start, forceClose: false)
            } else {
                runAsync(otherwise, exchange: exchange)
            }
        }
    }

    /// Hands the exchange's request to an asynchronous handler; the connection waits (reading nothing more) for its
    /// response.
    private func runAsync(_ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse, exchange: Exchange) {
        self.exchange = exchange
        machine.handlerStarted()
        let loop = self.loop
        let request = exchange.request
        Task(executorPreference: loop.context.configuration.handlerExecutor) { [self] in
            let response = await handler(request)
            loop.execute { self.asyncResponseArrived(response) }
        }
    }

    private func asyncResponseArrived(_ response: HTTPResponse) {
        guard machine.awaitsHandler else { return }
        respond(response)
        flush()
        reconcile()
    }

    // MARK: - Responding

    private func respond(_ response: HTTPResponse) {
        guard let exchange = self.exchange.take() else { return }
        write(
            response, facts: exchange.facts, routePattern: exchange.route.pattern,
            requestID: exchange.request.requestID, start: exchange.start, forceClose: false)
    }

    private func reject(_ error: HTTPParseError) {
        respondWithError(error.response)
    }

    /// Sends a JSON error and closes the connection afterwards.
    private func respondWithError(_ response: HTTPResponse) {
        let requestID = exchange?.request.requestID ?? loop.requestIDs.next()
        write(
            response, facts: exchange?.facts ?? RequestFacts(), routePattern: exchange?.route.pattern,
            requestID: requestID,
            start: exchange?.start ?? loop.now, forceClose: true)
    }

    private func write(
        _ response: consuming HTTPResponse, facts: RequestFacts, routePattern: String?, requestID: String,
        start: UInt64,
        forceClose: Bool
    ) {
        exchange = nil
        let keepAlive = machine.respond(
            forceClose: forceClose, serverDraining: context.draining.load(ordering: .relaxed), now: loop.now)
        let isHead = facts.method == .head
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
                loop.outOfDescriptors()
                response = .overloaded(
                    code: "server_busy", message: "The server is out of file descriptors for a moment; retry shortly.")
            case .failure(let reason):
                context.logger.error(
                    "file body unavailable: \(reason)",
                    metadata: ["request.id": "\(requestID)", "file.path": "\(path)"])
                response = .error(
                    .internalServerError, code: "internal_error", message: "The server failed to respond.")
            }
        }

        let fields = ResponseEncoder.ServerFields(
            date: loop.dateCache.current(), serverLine: loop.serverLine, requestID: requestID,
            keepAlive: keepAlive, requestIsHTTP10: facts.version == .http1_0)
        let output = loop.output
        let headStart = output.count
        do {
            try ResponseEncoder.encodeHead(
                status: response.status, headers: response.headers, contentLength: response.body.length,
                fields: fields, into: output)
        } catch {
            context.logger.error(
                "handler response has an invalid header",
                metadata: ["request.id": "\(requestID)", "header": "\(error.name)"])
            file = nil
            response = .error(.internalServerError, code: "internal_error", message: "The server failed to respond.")
            // Cannot fail: the error response's headers are valid.
            try? ResponseEncoder.encodeHead(
                status: response.status, headers: response.headers, contentLength: response.body.length,
                fields: fields, into: output)
        }
        var bytesSent = output.count - headStart
        if !isHead, case .bytes(let bytes) = response.body {
            if bytes.count >= Self.gatherThreshold && tls == nil {
                flushStaging(then: bytes)
            } else {
                output.append(bytes)
            }
            bytesSent += bytes.count
        }
        if let file {
            flushStaging(more: true)
            // A closed connection drops the file here (its descriptor closes unless the open-file cache keeps it).
            if !machine.isClosed {
                outbound.append(file: file.file, offset: file.offset, length: file.length)
            }
            bytesSent += file.length
        }

        if context.hasObserver || context.logsRequests {
            report(
                facts, routePattern: routePattern, status: response.status, bytesSent: bytesSent, requestID: requestID,
                start: start)
        }
    }

    /// Opens a file body (from the server's open-file cache when `cached`). Out of descriptors, the cache gives
    /// its idle ones back and the open is tried once more.
    private func openFileBody(
        path: String, offset: UInt64, length: UInt64, cached: Bool
    ) -> Result<(file: OpenFile, offset: Int, length: Int), FileBodyError> {
        guard offset <= UInt64(Int.max), length <= UInt64(Int.max) - offset else { return .failure(.rangeTooLarge) }
        let openFiles = context.openFiles
        // Out of descriptors a moment ago, the reserve is with the runtime until it can be filled again: a file
        // already open is still sent, but none is opened meanwhile (it fails as for want of descriptors).
        let mayOpen = !DescriptorReserve.shared.isReleased
        let attempt = { () -> Result<OpenFile, OpenFileCache.Failure> in
            Result { () throws(OpenFileCache.Failure) in
                cached
                    ? try openFiles.open(path, mayOpen: mayOpen) : try OpenFileCache.openRegular(path, mayOpen: mayOpen)
            }
        }
        var opened = attempt()
        if mayOpen, case .failure(.system(let error)) = opened, DescriptorExhaustion.isExhaustion(error.errno),
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
        case open(SystemCallError)
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
        _ facts: RequestFacts, routePattern: String?, status: HTTPStatus, bytesSent: Int, requestID: String,
        start: UInt64
    ) {
        let method = facts.method
        let end = Syscall.monotonicNanoseconds()
        let elapsed = end > start ? end - start : 0
        if context.hasObserver, let observer = context.observer {
            observer.requestCompleted(
                HTTPRequestEvent(
                    method: method, routePattern: routePattern, status: status, bytesSent: bytesSent,
                    nanoseconds: Int64(clamping: elapsed), requestID: requestID, loopIndex: loop.index))
        }
        if context.logsRequests {
            let line = RequestLine(
                method: method?.rawValue, path: facts.loggedPath, route: routePattern ?? HTTPServer.unmatchedRoute,
                status: status.code, bytesSent: bytesSent, elapsedNanoseconds: elapsed, requestID: requestID)
            if let requestLines = loop.requestLines {
                requestLines.append(line)
            } else {
                line.log(to: context.logger, level: context.requestLogLevel)
            }
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
        guard !output.isEmpty, !machine.isClosed else {
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
                switch try send(UnsafeRawBufferPointer(rebasing: bytes[sent...]), more: more) {
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
            machine.outputProgressed(now: loop.now)
        }
    }

    /// Sends the loop's output buffer and then `body` with one `sendmsg`, so a large body held in memory (a small
    /// package) is not copied into the buffer first; what the socket does not take is queued, the body by reference.
    private func flushStaging(then body: [UInt8]) {
        let output = loop.output
        guard !machine.isClosed else {
            output.removeAll()
            return
        }
        defer { output.removeAll() }
        guard outbound.isEmpty else {
            outbound.append(bytes: Array(output.bytes))
            outbound.append(bytes: body)
            return
        }
        let head = output.bytes
        let total = head.count + body.count
        var sent = 0
        let failed = body.withUnsafeBytes { body -> Bool in
            while sent < total {
                do {
                    let result =
                        sent < head.count
                        ? try Syscall.send(fd, UnsafeRawBufferPointer(rebasing: head[sent...]), then: body)
                        : try Syscall.send(
                            fd, UnsafeRawBufferPointer(rebasing: body[(sent - head.count)...]), more: false)
                    guard case .processed(let count) = result else { return false }
                    sent += count
                } catch {
                    return true
                }
            }
            return false
        }
        if failed {
            close()
            return
        }
        guard sent < total else { return }
        if sent < head.count {
            outbound.append(bytes: Array(UnsafeRawBufferPointer(rebasing: head[sent...])))
            outbound.append(bytes: body)
        } else {
            outbound.append(bytes: body, from: sent - head.count)
        }
        machine.outputProgressed(now: loop.now)
    }

    /// Writes queued chunks until the socket would block or the queue is empty.
    private func writeOutbound() {
        var progressed = false
        defer {
            if progressed { machine.outputProgressed(now: loop.now) }
        }
        while let chunk = outbound.first, !machine.isClosed {
            do {
                switch chunk {
                case .bytes(let bytes, let offset):
                    let result = try bytes.withUnsafeBytes { buffer throws(SystemCallError) in
                        try send(UnsafeRawBufferPointer(rebasing: buffer[offset...]), more: false)
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
                    let result = try sendFile(
                        file.descriptor, offset: &position, count: min(remaining, Self.fileChunkLimit))
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
        guard !machine.isClosed else { return }
        if machine.isHandshaking {
            continueHandshake()
            return
        }
        writeOutbound()
        reconcile()
    }

    // MARK: - State

    /// Carries out what the machine decides after any event, then watches the socket for what it wants.
    private func reconcile() {
        while true {
            switch machine.settle(outputQueued: !outbound.isEmpty, now: loop.now) {
            case .close:
                close()
                return
            case .processBuffered:
                processBuffered()
                flush()
                continue
            case .shutDownOutput:
                tls?.shutdown()
                Syscall.shutdownWrite(fd)
            case .wait:
                break
            }
            guard !machine.isClosed else { return }
            let interest = machine.interest
            if interest != registeredInterest {
                registeredInterest = interest
                loop.update(self, interest: interest)
            }
            // Bytes TLS already decrypted do not make the socket readable: read them on the next turn.
            if interest.read, machine.acceptsInput, let tls, tls.hasPendingInput {
                loop.execute { [self] in handleReadable() }
            }
            return
        }
    }

    // MARK: - Transport

    private func receive() throws(SystemCallError) -> IOResult<Int> {
        if let tls { return try tls.read(into: loop.readBuffer) }
        return try Syscall.receive(fd, into: loop.readBuffer)
    }

    private func send(_ bytes: UnsafeRawBufferPointer, more: Bool) throws(SystemCallError) -> IOResult<Int> {
        if let tls { return try tls.write(bytes) }
        return try Syscall.send(fd, bytes, more: more)
    }

    /// `sendfile`, or under TLS a read of up to one read buffer at `offset` and its encryption. A TLS write
    /// that would block is retried later from the same offset, so the same bytes are offered again.
    private func sendFile(_ descriptor: Int32, offset: inout Int, count: Int) throws(SystemCallError) -> IOResult<Int> {
        guard let tls else { return try Syscall.sendFile(to: fd, from: descriptor, offset: &offset, count: count) }
        let chunk = UnsafeMutableRawBufferPointer(rebasing: loop.readBuffer[0..<min(count, loop.readBuffer.count)])
        let read = try Syscall.readFile(descriptor, into: chunk, at: offset)
        guard read > 0 else { return .processed(0) }
        let result = try tls.write(UnsafeRawBufferPointer(rebasing: chunk[0..<read]))
        if case .processed(let written) = result { offset += written }
        return result
    }

    /// Lingering close: discards what the client still sends, until EOF or enough.
    private func discardInput() {
        while true {
            do {
                switch try Syscall.receive(fd, into: loop.readBuffer) {
                case .wouldBlock:
                    return
                case .processed(let count):
                    if machine.discarded(count) {
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
