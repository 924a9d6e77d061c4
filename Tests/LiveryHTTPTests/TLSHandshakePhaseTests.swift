import Testing

@testable import LiveryHTTP

/// The TLS handshake as a phase of the connection's state machine, with a fake clock: it is bounded by the header
/// timeout, it watches the socket for whichever direction TLS waits on, and the first request's head deadline
/// still runs from the opening. Timeouts: header 10 s, idle 60 s, linger 5 s.
@Suite struct TLSHandshakePhaseTests {
    static let second = ConnectionSimulation.second

    static func handshaking(opensAt now: UInt64 = 0) -> ConnectionSimulation {
        var connection = ConnectionSimulation(opensAt: now)
        connection.machine.startHandshake(now: now)
        return connection
    }

    @Test func aHandshakeThatDoesNotFinishWithinTheHeaderTimeoutIsClosedWithoutAnAnswer() {
        var connection = Self.handshaking(opensAt: 5)
        #expect(connection.machine.onReadable == .handshake)
        #expect(!connection.machine.acceptsInput)
        connection.advance(to: 5 + 10 * Self.second - 1)
        #expect(!connection.closed)
        connection.advance(to: 5 + 10 * Self.second)
        #expect(connection.closed)
        #expect(connection.answers.isEmpty)
    }

    @Test func theHandshakeWatchesTheSocketForTheDirectionTLSWaitsOn() {
        var connection = Self.handshaking()
        #expect(connection.machine.settle(outputQueued: false, now: 0) == .wait)
        #expect(connection.machine.interest == EventLoop.Interest(read: true, write: false))
        connection.machine.handshakeWaits(forWrite: true)
        #expect(connection.machine.settle(outputQueued: false, now: 0) == .wait)
        #expect(connection.machine.interest == EventLoop.Interest(read: false, write: true))
        connection.machine.handshakeWaits(forWrite: false)
        #expect(connection.machine.settle(outputQueued: false, now: 0) == .wait)
        #expect(connection.machine.interest == EventLoop.Interest(read: true, write: false))
        #expect(connection.machine.deadline == 10 * Self.second)
    }

    @Test func afterTheHandshakeTheFirstHeadIsDueWithinTheHeaderTimeoutFromTheOpening() {
        var connection = Self.handshaking()
        connection.now = 4 * Self.second
        connection.machine.handshakeFinished()
        #expect(!connection.machine.isHandshaking)
        #expect(connection.machine.onReadable == .read)
        connection.now = 6 * Self.second
        connection.receive("GET /a HTTP/1.1\r\nHost: t\r\n")
        #expect(connection.machine.deadline == 10 * Self.second)
        connection.advance(to: 10 * Self.second)
        #expect(connection.answers == [ConnectionSimulation.Answer(status: 408, keepAlive: false)])
    }

    @Test func aRequestAfterTheHandshakeIsAnsweredAndKeptAlive() {
        var connection = Self.handshaking()
        connection.machine.handshakeFinished()
        connection.receive("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(connection.answers == [ConnectionSimulation.Answer(status: 200, keepAlive: true)])
        #expect(connection.delivered == ["/a"])
    }

    @Test func shutdownClosesAConnectionStillInItsHandshake() {
        var connection = Self.handshaking()
        connection.shutdown()
        #expect(connection.closed)
    }
}
