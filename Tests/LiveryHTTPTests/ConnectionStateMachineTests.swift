import Testing

@testable import LiveryHTTP

/// The connection's state machine as a value: timeouts, slow clients, pipelining, keep-alive, lingering close and
/// shutdown, with a fake clock (nothing here sleeps). Timeouts: header 10 s, idle 60 s, linger 5 s.
@Suite struct ConnectionStateMachineTests {
    typealias Answer = ConnectionSimulation.Answer
    static let second = ConnectionSimulation.second
    static let get = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n"

    // MARK: - Header and idle timeouts

    @Test func silentConnectionClosesAtTheHeaderTimeoutWithoutAnAnswer() {
        var connection = ConnectionSimulation(opensAt: 5)
        connection.advance(to: 5 + 10 * Self.second - 1)
        #expect(!connection.closed)
        connection.advance(to: 5 + 10 * Self.second)
        #expect(connection.closed)
        #expect(connection.answers.isEmpty)
    }

    @Test func incompleteHeadGetsRequestTimeoutThenLingers() {
        var connection = ConnectionSimulation()
        connection.now = 2 * Self.second
        connection.receive("GET /a HTTP/1.1\r\nHost: t\r\n")
        #expect(connection.machine.deadline == 10 * Self.second)  // counted from the opening
        connection.advance(to: 10 * Self.second)
        #expect(connection.answers == [Answer(status: 408, keepAlive: false)])
        #expect(connection.outputShutDown)
        #expect(connection.machine.onReadable == .discard)
        #expect(connection.machine.deadline == 15 * Self.second)
        connection.advance(to: 15 * Self.second)
        #expect(connection.closed)
    }

    @Test func slowlorisHeadDribbledByteByByteTimesOutAtItsHeaderDeadline() {
        var connection = ConnectionSimulation()
        let head = Array("GET /a HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8) + [UInt8](repeating: 0x61, count: 200)
        // One byte every 100 ms: each byte is progress, yet the deadline never moves.
        var deadlines: Set<UInt64> = []
        for (index, byte) in head.enumerated() {
            let instant = UInt64(index) * Self.second / 10
            if instant >= 10 * Self.second { break }
            connection.now = instant
            connection.receive([byte])
            deadlines.insert(connection.machine.deadline)
            connection.advance(to: instant)
        }
        #expect(deadlines == [10 * Self.second])
        #expect(connection.answers.isEmpty)
        connection.advance(to: 10 * Self.second)
        #expect(connection.answers == [Answer(status: 408, keepAlive: false)])
        #expect(connection.delivered.isEmpty)
    }

    @Test func idleKeepAliveConnectionClosesAfterTheIdleTimeout() {
        var connection = ConnectionSimulation()
        connection.now = Self.second
        connection.receive(Self.get)
        #expect(connection.answers == [Answer(status: 200, keepAlive: true)])
        // Idle: the header timeout no longer applies, the idle timeout does, and no 408 is sent.
        connection.advance(to: 11 * Self.second)
        #expect(!connection.closed)
        connection.advance(to: 61 * Self.second - 1)
        #expect(!connection.closed)
        connection.advance(to: 61 * Self.second)
        #expect(connection.closed)
        #expect(connection.answers.count == 1)
    }

    @Test func laterRequestsGetAHeaderDeadlineFromTheirFirstByte() {
        var connection = ConnectionSimulation()
        connection.receive(Self.get)
        connection.now = 30 * Self.second
        connection.receive("GET /b HT")
        #expect(connection.machine.deadline == 40 * Self.second)
        connection.now = 39 * Self.second
        connection.receive("TP/1.1\r\nHost: t\r\n")
        connection.advance(to: 39 * Self.second)
        #expect(connection.answers.count == 1)
        connection.advance(to: 40 * Self.second)
        #expect(connection.answers.last == Answer(status: 408, keepAlive: false))
    }

    // MARK: - Bodies

    @Test func stalledBodyGetsRequestTimeoutAnIdleTimeoutAfterItsLastByte() {
        var connection = ConnectionSimulation()
        connection.receive("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        #expect(connection.machine.deadline == 60 * Self.second)
        connection.now = 50 * Self.second
        connection.receive("def")
        #expect(connection.machine.deadline == 110 * Self.second)
        connection.advance(to: 110 * Self.second - 1)
        #expect(connection.answers.isEmpty)
        connection.advance(to: 110 * Self.second)
        #expect(connection.answers == [Answer(status: 408, keepAlive: false)])
        #expect(connection.delivered.isEmpty)
    }

    @Test func bodyArrivingInPiecesIsDeliveredOnceComplete() {
        var connection = ConnectionSimulation()
        connection.receive("POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
        #expect(connection.delivered.isEmpty)
        connection.receive("0\r\n\r\n")
        #expect(connection.delivered == ["/a"])
        #expect(connection.answers == [Answer(status: 200, keepAlive: true)])
    }

    @Test func expectContinueIsInvitedAndAnOversizedBodyRefusedUnread() {
        var invited = ConnectionSimulation()
        invited.receive("POST /a HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        #expect(invited.continues == 1)
        invited.receive("abc")
        #expect(invited.delivered == ["/a"])

        var refused = ConnectionSimulation()
        refused.bodyLimit = 2
        refused.receive("POST /a HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        #expect(refused.continues == 0)
        #expect(refused.answers == [Answer(status: 413, keepAlive: false)])
        #expect(refused.outputShutDown)
    }

    @Test func headAnswerClosesOnlyWhenContentWasAnnounced() {
        var withContent = ConnectionSimulation()
        withContent.headCheck = { _ in 401 }
        withContent.receive("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n" + Self.get)
        #expect(withContent.answers == [Answer(status: 401, keepAlive: false)])
        #expect(withContent.delivered.isEmpty)

        var without = ConnectionSimulation()
        without.headCheck = { $0.target == "/a" ? 401 : nil }
        without.receive(Self.get + "GET /b HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(without.answers == [Answer(status: 401, keepAlive: true), Answer(status: 200, keepAlive: true)])
        #expect(without.delivered == ["/b"])
    }

    // MARK: - Pipelining and keep-alive

    @Test func pipelinedRequestsInOneReadAreAnsweredInOrder() {
        var connection = ConnectionSimulation()
        connection.receive(Self.get + "GET /b HTTP/1.1\r\nHost: t\r\n\r\nGET /c HTTP/1.1\r\nHost: t\r\n\r\nGET /d")
        #expect(connection.delivered == ["/a", "/b", "/c"])
        #expect(connection.answers.count == 3)
        #expect(connection.machine.hasBufferedInput)
        connection.receive(" HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(connection.delivered == ["/a", "/b", "/c", "/d"])
    }

    @Test func pipelinedRequestsWaitForAnAsyncHandlerWithReadingOff() {
        var connection = ConnectionSimulation()
        connection.asyncHandlers = true
        connection.receive(Self.get + "GET /b HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(connection.delivered == ["/a"])
        #expect(connection.machine.interest.read == false)
        #expect(connection.machine.deadline == .max)  // a handler is not timed out by the connection
        connection.finishHandler()
        #expect(connection.delivered == ["/a", "/b"])
        connection.finishHandler()
        #expect(connection.answers.count == 2)
        #expect(connection.machine.interest.read)
    }

    @Test func pipelinedRequestsWaitWhileTheClientDoesNotReadResponses() {
        var connection = ConnectionSimulation()
        connection.responseSize = HTTPConnectionStateMachine.outputHighWater
        connection.receive(Self.get + "GET /b HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(connection.delivered == ["/a"])
        #expect(connection.machine.interest == EventLoop.Interest(read: false, write: true))
        connection.socketDrains()
        #expect(connection.delivered == ["/a", "/b"])
    }

    @Test func clientThatStopsReadingAResponseIsClosedAfterTheIdleTimeout() {
        var connection = ConnectionSimulation()
        connection.responseSize = HTTPConnectionStateMachine.outputHighWater
        connection.machine.outputProgressed(now: 0)
        connection.receive(Self.get)
        #expect(connection.outputQueued)
        connection.advance(to: 60 * Self.second)
        #expect(connection.closed)
        #expect(connection.answers.count == 1)
    }

    @Test func connectionCloseEndsTheConnectionAfterItsResponse() {
        var connection = ConnectionSimulation()
        connection.receive("GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + Self.get)
        #expect(connection.answers == [Answer(status: 200, keepAlive: false)])
        #expect(connection.delivered == ["/a"])
        #expect(connection.outputShutDown)
        #expect(!connection.machine.hasBufferedInput)
    }

    @Test func http10KeepsAliveOnlyWhenAsked() {
        var plain = ConnectionSimulation()
        plain.receive("GET /a HTTP/1.0\r\n\r\n")
        #expect(plain.answers == [Answer(status: 200, keepAlive: false)])

        var asked = ConnectionSimulation()
        asked.receive("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(asked.answers == [Answer(status: 200, keepAlive: true)])
    }

    @Test func endOfInputClosesAfterAnsweringWhatArrived() {
        var connection = ConnectionSimulation()
        connection.receive(Self.get + "GET /b")
        connection.receiveEnd()
        #expect(connection.answers.count == 1)
        #expect(connection.closed)
    }

    // MARK: - Lingering close

    @Test func invalidRequestIsAnsweredThenInputIsDiscardedUntilEOF() {
        var connection = ConnectionSimulation()
        connection.receive("GET /a HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n" + Self.get)
        #expect(connection.answers == [Answer(status: 400, keepAlive: false)])
        #expect(connection.delivered.isEmpty)
        #expect(connection.outputShutDown)
        #expect(connection.machine.interest == EventLoop.Interest(read: true, write: false))
        connection.receive(Self.get)
        #expect(connection.delivered.isEmpty)
        #expect(!connection.closed)
        connection.receiveEnd()
        #expect(connection.closed)
    }

    @Test func lingeringGivesUpAfterTheDiscardLimit() {
        var machine = HTTPConnectionStateMachine(
            timeouts: ConnectionSimulation.timeouts, parserConfiguration: .init(), defaultBodyLimit: 1 << 20)
        _ = machine.respond(forceClose: true, serverDraining: false, now: 0)
        #expect(machine.settle(outputQueued: false, now: 0) == .shutDownOutput)
        #expect(machine.discarded(HTTPConnectionStateMachine.lingerDiscardLimit) == false)
        #expect(machine.discarded(1) == true)
    }

    @Test func lingeringWaitsForTheResponseToBeWrittenFirst() {
        var machine = HTTPConnectionStateMachine(
            timeouts: ConnectionSimulation.timeouts, parserConfiguration: .init(), defaultBodyLimit: 1 << 20)
        _ = machine.respond(forceClose: true, serverDraining: false, now: 0)
        #expect(machine.settle(outputQueued: true, now: 0) == .wait)
        #expect(machine.interest == EventLoop.Interest(read: false, write: true))
        #expect(machine.settle(outputQueued: false, now: 0) == .shutDownOutput)
    }

    // MARK: - Shutdown

    @Test func shutdownClosesAnIdleConnectionAtOnce() {
        var connection = ConnectionSimulation()
        connection.receive(Self.get)
        connection.shutdown()
        #expect(connection.closed)
    }

    @Test func shutdownLetsARequestInFlightFinishWithConnectionClose() {
        var connection = ConnectionSimulation()
        connection.asyncHandlers = true
        connection.receive(Self.get)
        connection.shutdown()
        #expect(!connection.closed)
        connection.finishHandler()
        #expect(connection.answers == [Answer(status: 200, keepAlive: false)])
        #expect(connection.outputShutDown)
    }

    @Test func shutdownLetsAnArrivingRequestFinishWithConnectionClose() {
        var connection = ConnectionSimulation()
        connection.receive("GET /a HTTP/1.1\r\n")
        connection.shutdown()
        #expect(!connection.closed)
        connection.receive("Host: t\r\n\r\n")
        #expect(connection.answers == [Answer(status: 200, keepAlive: false)])
    }

    @Test func serverShutdownSeenAtResponseTimeClosesTheConnection() {
        var machine = HTTPConnectionStateMachine(
            timeouts: ConnectionSimulation.timeouts, parserConfiguration: .init(), defaultBodyLimit: 1 << 20)
        var offset = 0
        let bytes = Array(Self.get.utf8)
        let event = bytes.withUnsafeBytes { machine.nextEvent(in: $0, offset: &offset, outputBacklog: 0, now: 0) }
        guard case .head = event else {
            Issue.record("expected a head, got \(event)")
            return
        }
        #expect(machine.respond(forceClose: false, serverDraining: true, now: 0) == false)
    }
}
