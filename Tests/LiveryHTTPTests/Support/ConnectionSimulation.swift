@testable import LiveryHTTP

/// An `HTTPConnectionStateMachine` driven as `HTTPConnection` drives it, with no socket, no handler and no clock:
/// time is `now`, set by the test, and what the machine asked for is recorded.
struct ConnectionSimulation {
    /// One response the machine was asked to send.
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var keepAlive: Bool
        var description: String { "\(status)\(keepAlive ? " keep-alive" : " close")" }
    }

    static let second: UInt64 = 1_000_000_000
    static let timeouts = HTTPConnectionStateMachine.Timeouts(
        header: 10 * second, idle: 60 * second, linger: 5 * second)

    var machine: HTTPConnectionStateMachine
    var now: UInt64 = 0
    /// Targets of the requests handed to handlers, in order.
    var delivered: [String] = []
    var answers: [Answer] = []
    var continues = 0
    /// Set once the machine asked for the output to be shut down (lingering close began).
    var outputShutDown = false
    var closed: Bool { machine.isClosed }

    /// Requests go to an asynchronous handler that answers when `finishHandler` is called.
    var asyncHandlers = false
    /// Response bytes each answer stages (a large value makes pipelined requests wait for the socket).
    var responseSize = 100
    /// Response bytes the socket has not taken; `outputQueued` once they wait beyond this round.
    var staged = 0
    var outputQueued = false
    /// A status answered from the head, before the body (as a route's head check).
    var headCheck: ((HTTPRequestHead) -> Int?)?
    var bodyLimit = 1 << 20
    private var target = ""

    init(opensAt now: UInt64 = 0) {
        machine = HTTPConnectionStateMachine(
            timeouts: Self.timeouts, parserConfiguration: .init(), defaultBodyLimit: 1 << 20)
        self.now = now
        machine.start(now: now)
    }

    /// Bytes arrive at `now`, as one read.
    mutating func receive(_ text: String) {
        receive(Array(text.utf8))
    }

    mutating func receive(_ bytes: [UInt8]) {
        guard machine.onReadable == .read else {
            if machine.onReadable == .discard, machine.discarded(bytes.count) { machine.close() }
            return settle()
        }
        bytes.withUnsafeBytes { buffer in
            if machine.hasBufferedInput {
                machine.buffer(buffer)
                while carryOut(machine.nextBufferedEvent(outputBacklog: backlog, now: now)) {}
            } else {
                var offset = 0
                while carryOut(machine.nextEvent(in: buffer, offset: &offset, outputBacklog: backlog, now: now)) {}
                machine.keepUnconsumed(buffer, from: offset)
            }
        }
        endRound()
    }

    /// The client closed its side (EOF).
    mutating func receiveEnd() {
        if machine.onReadable == .discard {
            if machine.discarded(0) { machine.close() }
            return
        }
        machine.inputEnded()
        endRound()
    }

    /// Time passes to `instant`; the deadline is checked as the loop's sweep does.
    mutating func advance(to instant: UInt64) {
        now = instant
        switch machine.deadlinePassed(now: now, outputQueued: outputQueued) {
        case .none: return
        case .close: machine.close()
        case .requestTimeout:
            answer(status: 408, forceClose: true)
            endRound()
        }
    }

    /// The asynchronous handler answers.
    mutating func finishHandler(status: Int = 200) {
        guard machine.awaitsHandler else { return }
        answer(status: status, forceClose: false)
        endRound()
    }

    /// The socket takes everything that waited for it.
    mutating func socketDrains() {
        staged = 0
        outputQueued = false
        machine.outputProgressed(now: now)
        settle()
    }

    /// Graceful shutdown begins.
    mutating func shutdown() {
        if machine.drain(outputQueued: outputQueued) { machine.close() }
    }

    private var backlog: Int { outputQueued ? .max : staged }

    /// What the connection does at the end of each round: the socket takes nothing more than it did, then settle.
    private mutating func endRound() {
        if staged >= HTTPConnectionStateMachine.outputHighWater { outputQueued = true }
        if !outputQueued { staged = 0 }
        settle()
    }

    private mutating func settle() {
        while true {
            switch machine.settle(outputQueued: outputQueued, now: now) {
            case .wait: return
            case .close:
                machine.close()
                return
            case .shutDownOutput:
                outputShutDown = true
                return
            case .processBuffered:
                while carryOut(machine.nextBufferedEvent(outputBacklog: backlog, now: now)) {}
                if staged >= HTTPConnectionStateMachine.outputHighWater { outputQueued = true }
            }
        }
    }

    private mutating func carryOut(_ event: HTTPConnectionStateMachine.InputEvent) -> Bool {
        switch event {
        case .head(let received):
            let head = received.materialized()
            target = head.target
            if let status = headCheck?(head) {
                answer(status: status, forceClose: head.framing != .none && head.framing != .length(0))
                return true
            }
            switch machine.admitBody(
                framing: head.framing, expectsContinue: head.expectsContinue, limit: bodyLimit, now: now)
            {
            case .read: break
            case .readAfterContinue: continues += 1
            case .tooLarge: answer(status: 413, forceClose: true)
            }
            return true
        case .message:
            delivered.append(target)
            if asyncHandlers {
                machine.handlerStarted()
            } else {
                answer(status: 200, forceClose: false)
            }
            return true
        case .invalid(let error):
            answer(status: error.status.code, forceClose: true)
            return false
        case .stop:
            return false
        }
    }

    private mutating func answer(status: Int, forceClose: Bool) {
        let keepAlive = machine.respond(forceClose: forceClose, serverDraining: false, now: now)
        answers.append(Answer(status: status, keepAlive: keepAlive))
        staged += responseSize
    }
}
