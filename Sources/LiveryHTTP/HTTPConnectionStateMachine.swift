/// The life of one HTTP/1.1 connection as a value that does no I/O: which phase it is in (head, body, handler,
/// response, keep-alive, lingering close), when its current deadline falls, whether it wants to read or write,
/// and what to do next.
///
/// `HTTPConnection` feeds it events (bytes read, end of input, a response to send, output progress, a deadline
/// passed, shutdown) and carries out what it answers. Time is never read here: every event that can start or
/// check a deadline carries `now`, monotonic nanoseconds from the caller's clock (the event loop's in the server,
/// a plain number in tests), so timeouts and slow clients are tested without sleeping.
///
/// Allocation-free on the hot path: events and answers are enums with small payloads; input is parsed straight
/// from the caller's buffer, and only an incomplete request is copied into the machine.
struct HTTPConnectionStateMachine {
    /// How long each phase may last, in nanoseconds.
    struct Timeouts: Sendable {
        /// From the connection's opening (or a later request's first byte) to its complete head.
        var header: UInt64
        /// Between two requests on a kept-alive connection; also the longest pause in a body or in the client's
        /// reading of a response.
        var idle: UInt64
        /// How long a closing connection discards what the client still sends.
        var linger: UInt64
    }

    enum Phase: Equatable {
        /// A TLS connection's handshake is under way (before its first request; bounded by the header timeout).
        case handshaking
        /// Between requests, nothing of the next one received.
        case idle
        /// Part of a request head received.
        case readingHead
        /// Head complete, body arriving.
        case readingBody
        /// An asynchronous handler is running; nothing more is read.
        case awaitingHandler
        /// The final response is queued; close once it has been written.
        case closing
        /// Output shut down; discarding client bytes until EOF or the linger timeout.
        case lingering
        case closed
    }

    /// What parsing the received bytes produced.
    enum InputEvent {
        /// A request head: route it, then call `admitBody` (or `respond` to answer before its body). Its bytes are
        /// valid while the event is handled (`ReceivedHead`).
        case head(ReceivedHead)
        /// The current request is complete: answer it with `respond`, or call `handlerStarted`.
        case message(body: [UInt8], trailers: HTTPHeaders)
        /// The bytes are not a valid request: answer with the error (`respond(forceClose: true, …)`).
        case invalid(HTTPParseError)
        /// Nothing more to do with the input for now (more bytes are needed, or output or a handler is pending).
        case stop
    }

    /// Whether a request's body is read.
    enum BodyDecision: Equatable {
        /// Read it (nothing, if the request announced none).
        case read
        /// Send `100 Continue`, then read it.
        case readAfterContinue
        /// The announced length is over the route's limit: answer 413 without reading it.
        case tooLarge
    }

    /// What to do when the socket is readable.
    enum Readiness: Equatable {
        /// Receive and parse.
        case read
        /// Continue the TLS handshake (also when the socket is writable), then report with `handshakeWaits` or
        /// `handshakeFinished`.
        case handshake
        /// Receive and discard (lingering close): report each count to `discarded`.
        case discard
        /// Reading is off in this phase (an event from before can still arrive once): just `settle`.
        case settle
        /// Closed: nothing.
        case ignore
    }

    /// What a passed deadline calls for.
    enum Expiry: Equatable {
        /// The deadline has not passed, or the connection is closed.
        case none
        /// Close at once.
        case close
        /// The request did not arrive in time (slowloris defence): answer 408, which closes.
        case requestTimeout
    }

    /// What bringing the connection in line with its state after an event calls for; `interest` and `deadline`
    /// are up to date when it returns.
    enum Settlement: Equatable {
        /// Wait for the next event.
        case wait
        /// Close now.
        case close
        /// Shut down output (the response is written) and start discarding input: lingering close.
        case shutDownOutput
        /// Buffered input can be processed now (output drained or a handler finished): parse it with
        /// `nextBufferedEvent`, send what that produced, then settle again.
        case processBuffered
    }

    /// Output above which no further pipelined request is processed until the socket has taken it.
    static let outputHighWater = 256 * 1024
    /// Bytes a lingering close discards before giving up on the client.
    static let lingerDiscardLimit = 1 << 20

    let timeouts: Timeouts
    private(set) var phase: Phase = .idle
    /// When the current wait ends (`UInt64.max` for never); call `deadlinePassed` once it has.
    private(set) var deadline: UInt64 = .max
    /// What the socket should be watched for.
    private(set) var interest = EventLoop.Interest(read: true, write: false)

    private var parser: HTTPRequestParser
    /// Received bytes not consumed yet, from `pendingOffset` on; empty whenever nothing is left.
    private var pendingInput: [UInt8] = []
    private var pendingOffset = 0
    /// The deadline of the current phase; `deadline` uses it unless output is stalled.
    private var phaseDeadline: UInt64 = .max
    private var writeDeadline: UInt64 = .max
    /// Whether a response was sent (the first request's head deadline runs from the opening).
    private var answeredBefore = false
    private var lingerDiscarded = 0
    /// A head was delivered and not answered yet.
    private var inExchange = false
    private var requestKeepsAlive = false
    /// Parsing stopped with input possibly left (waiting on output or a handler).
    private var processingBlocked = false
    private var peerClosedInput = false
    private var draining = false
    /// During the handshake: whether TLS waits for the socket to be writable (otherwise readable).
    private var handshakeWantsWrite = false

    init(timeouts: Timeouts, parserConfiguration: HTTPRequestParser.Configuration, defaultBodyLimit: Int) {
        self.timeouts = timeouts
        self.parser = HTTPRequestParser(configuration: parserConfiguration, bodyLimit: defaultBodyLimit)
    }

    // MARK: - Opening and closing

    /// The connection is open and waits for its first request, which must arrive within the header timeout.
    mutating func start(now: UInt64) {
        setPhaseDeadline(now &+ timeouts.header)
    }

    /// A TLS connection is open: its handshake comes first, and it and the first request's head must both arrive
    /// within the header timeout from now (a handshake that is not done by then closes the connection).
    mutating func startHandshake(now: UInt64) {
        phase = .handshaking
        handshakeWantsWrite = false
        setPhaseDeadline(now &+ timeouts.header)
    }

    /// The handshake needs the socket writable (`true`) or readable (`false`) to go on.
    mutating func handshakeWaits(forWrite: Bool) {
        guard phase == .handshaking else { return }
        handshakeWantsWrite = forWrite
    }

    /// The handshake is done: the connection waits for its first request, whose head deadline still runs from
    /// the opening.
    mutating func handshakeFinished() {
        guard phase == .handshaking else { return }
        phase = .idle
    }

    var isHandshaking: Bool { phase == .handshaking }

    /// Graceful shutdown: true if the connection should close now (idle, nothing buffered, nothing to write);
    /// otherwise the current exchange finishes and its response carries `Connection: close`.
    mutating func drain(outputQueued: Bool) -> Bool {
        draining = true
        if phase == .handshaking { return true }
        return phase == .idle && !hasBufferedInput && !outputQueued
    }

    /// The connection is closed: nothing more happens.
    mutating func close() {
        phase = .closed
        deadline = .max
        pendingInput = []
        pendingOffset = 0
        inExchange = false
    }

    var isClosed: Bool { phase == .closed }

    // MARK: - Input

    var onReadable: Readiness {
        switch phase {
        case .closed: .ignore
        case .handshaking: .handshake
        case .lingering: .discard
        case .awaitingHandler, .closing: .settle
        case .idle, .readingHead, .readingBody: .read
        }
    }

    /// Whether received bytes are parsed now.
    var acceptsInput: Bool {
        switch phase {
        case .idle, .readingHead, .readingBody: true
        default: false
        }
    }

    /// Whether unconsumed input is still wanted (it is not once the connection is closing).
    private var keepsInput: Bool {
        switch phase {
        case .idle, .readingHead, .readingBody, .awaitingHandler: true
        default: false
        }
    }

    /// Whether received bytes wait in the machine; new bytes are then added with `buffer` and parsed with
    /// `nextBufferedEvent`, otherwise parsed in place with `nextEvent(in:offset:…)`.
    var hasBufferedInput: Bool { pendingOffset < pendingInput.count }

    /// The peer will send nothing more (EOF).
    mutating func inputEnded() { peerClosedInput = true }

    /// Adds received bytes after those already buffered.
    mutating func buffer(_ bytes: UnsafeRawBufferPointer) {
        pendingInput.append(contentsOf: bytes)
    }

    /// Parses `input` from `offset` (advanced past what was consumed) up to the next event.
    ///
    /// - Parameter outputBacklog: bytes of responses not yet taken by the socket (`Int.max` if some already
    ///   wait for it); at `outputHighWater` and above no further request is parsed.
    mutating func nextEvent(
        in input: UnsafeRawBufferPointer, offset: inout Int, outputBacklog: Int, now: UInt64
    ) -> InputEvent {
        while true {
            guard acceptsInput else {
                if phase == .awaitingHandler { processingBlocked = true }
                return .stop
            }
            if outputBacklog >= Self.outputHighWater {
                processingBlocked = true
                return .stop
            }
            let event: HTTPRequestParser.Event
            let consumed: Int
            do {
                (event, consumed) = try parser.next(UnsafeRawBufferPointer(rebasing: input[offset...]))
            } catch {
                offset = input.count
                return .invalid(error)
            }
            offset += consumed
            switch event {
            case .needMoreData:
                if phase == .idle && offset < input.count {
                    phase = .readingHead
                    // The first request's head deadline runs from the opening; a later one's from its first byte.
                    if answeredBefore { setPhaseDeadline(now &+ timeouts.header) }
                } else if phase == .readingBody && consumed > 0 {
                    setPhaseDeadline(now &+ timeouts.idle)
                }
                return .stop
            case .head:
                guard let head = parser.takeHead() else { continue }
                phase = .readingBody
                inExchange = true
                requestKeepsAlive = head.keepAlive
                // The head is the last bytes this call consumed.
                return .head(
                    ReceivedHead(
                        head, in: UnsafeRawBufferPointer(rebasing: input[(offset - Int(head.length))..<offset])))
            case .end:
                let (body, trailers) = parser.takeMessage()
                // A request answered from its head (without content) ends here unanswered: nothing to deliver.
                guard inExchange else { continue }
                return .message(body: body, trailers: trailers)
            }
        }
    }

    /// Keeps what `nextEvent(in:offset:…)` left of `input` from `offset`, if the connection still wants it.
    mutating func keepUnconsumed(_ input: UnsafeRawBufferPointer, from offset: Int) {
        guard offset < input.count, keepsInput else { return }
        pendingInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[offset...]))
    }

    /// Parses the buffered input up to the next event (see `nextEvent(in:offset:…)`).
    mutating func nextBufferedEvent(outputBacklog: Int, now: UInt64) -> InputEvent {
        // Moved out while parsing (the parser borrows its bytes while the machine changes), then back.
        let input = pendingInput
        pendingInput = []
        var offset = pendingOffset
        let event = input.withUnsafeBytes { bytes in
            let event = nextEvent(in: bytes, offset: &offset, outputBacklog: outputBacklog, now: now)
            // A head's bytes are in `input`, which may not outlive this call: the head takes a copy.
            if case .head(let head) = event { return InputEvent.head(head.owningItsBytes()) }
            return event
        }
        pendingOffset = 0
        switch event {
        case .head, .message:
            if offset < input.count {
                pendingInput = input
                pendingOffset = offset
            }
        case .stop, .invalid:
            if keepsInput { pendingInput = Self.unconsumed(input, after: offset) }
        }
        return event
    }

    /// What of `input` is left after `consumed` bytes, in storage sized to it: nothing is kept when all was
    /// consumed, and never the capacity a large pipelined burst grew (memory held by a waiting connection).
    static func unconsumed(_ input: [UInt8], after consumed: Int) -> [UInt8] {
        if consumed >= input.count { return [] }
        if consumed == 0 && input.capacity <= 2 * input.count { return input }
        return Array(input[consumed...])
    }

    /// The delivered head was routed and not answered: decides on its body, whose size may not exceed `limit`.
    mutating func admitBody(framing: BodyFraming, expectsContinue: Bool, limit: Int, now: UInt64) -> BodyDecision {
        parser.bodyLimit = limit
        switch framing {
        case .none:
            return .read
        case .length(let length) where length > limit:
            return .tooLarge
        case .length, .chunked:
            setPhaseDeadline(now &+ timeouts.idle)
            // RFC 9110 §10.1.1: tell a client waiting on 100-continue to send the body.
            return expectsContinue ? .readAfterContinue : .read
        }
    }

    /// The delivered request went to an asynchronous handler: nothing more is read until it answers.
    mutating func handlerStarted() {
        phase = .awaitingHandler
        setPhaseDeadline(.max)
    }

    /// Whether an asynchronous handler's response is still wanted.
    var awaitsHandler: Bool { phase == .awaitingHandler }

    // MARK: - Output

    /// A response is being sent: for the current request, for an invalid one, or unprompted (408, refusal).
    ///
    /// - Returns: whether the connection stays open after it (`Connection: keep-alive`): only when the request
    ///   asked for it, nothing forces a close and no shutdown is under way. Otherwise the connection closes once
    ///   the response is written, and buffered input is dropped.
    mutating func respond(forceClose: Bool, serverDraining: Bool, now: UInt64) -> Bool {
        guard phase != .closed else { return false }
        let keepAlive = !forceClose && inExchange && requestKeepsAlive && !draining && !serverDraining
        inExchange = false
        requestKeepsAlive = false
        answeredBefore = true
        if keepAlive {
            phase = .idle
            setPhaseDeadline(now &+ timeouts.idle)
        } else {
            phase = .closing
            pendingInput = []
            pendingOffset = 0
        }
        return keepAlive
    }

    /// The socket took response bytes: the client may pause its reading for up to the idle timeout from now.
    mutating func outputProgressed(now: UInt64) {
        writeDeadline = now &+ timeouts.idle
    }

    /// Bytes a lingering close received and discarded (0 for EOF). Returns true when the connection should close.
    mutating func discarded(_ count: Int) -> Bool {
        lingerDiscarded += count
        return count == 0 || lingerDiscarded > Self.lingerDiscardLimit
    }

    // MARK: - Time and settling

    /// Checks the deadline against `now`; `outputQueued` says whether response bytes wait for the socket.
    func deadlinePassed(now: UInt64, outputQueued: Bool) -> Expiry {
        guard phase != .closed, now >= deadline else { return .none }
        // The client stopped reading our response.
        if outputQueued { return .close }
        switch phase {
        case .readingHead, .readingBody: return .requestTimeout
        case .handshaking, .idle, .closing, .lingering, .awaitingHandler, .closed: return .close
        }
    }

    /// Brings interest and deadline in line with the state after any event, and says what must happen next.
    mutating func settle(outputQueued: Bool, now: UInt64) -> Settlement {
        guard phase != .closed else { return .wait }
        if outputQueued {
            interest = EventLoop.Interest(read: false, write: true)
            deadline = writeDeadline
            return .wait
        }
        interest.write = false
        deadline = phaseDeadline
        switch phase {
        case .closed:
            return .wait
        case .handshaking:
            interest = EventLoop.Interest(read: !handshakeWantsWrite, write: handshakeWantsWrite)
            return .wait
        case .closing:
            // Closes our side for writing and drains the client's unread bytes, so the kernel does not answer
            // them with a reset that could destroy the response before the client reads it.
            phase = .lingering
            pendingInput = []
            pendingOffset = 0
            setPhaseDeadline(now &+ timeouts.linger)
            interest.read = true
            return .shutDownOutput
        case .lingering:
            interest.read = true
            return .wait
        case .awaitingHandler:
            interest.read = false
            return .wait
        case .idle, .readingHead, .readingBody:
            break
        }
        if processingBlocked {
            processingBlocked = false
            if hasBufferedInput { return .processBuffered }
        }
        if draining && phase == .idle && !hasBufferedInput { return .close }
        // No more bytes will come: an incomplete request can never be answered.
        if peerClosedInput { return .close }
        interest.read = true
        return .wait
    }

    private mutating func setPhaseDeadline(_ value: UInt64) {
        phaseDeadline = value
        deadline = value
    }
}
