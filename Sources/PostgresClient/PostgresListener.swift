import CLibPQ
import Foundation

/// A connection that `LISTEN`s on channels and turns each `NOTIFY` into an event, from a thread of its own that
/// sleeps in `poll` on the connection's socket (and a wake-up pipe for `stop`).
///
/// When the connection breaks (server stopped, killed, unreachable) `events` yields one `disconnected` event and
/// ends; notifications sent meanwhile are lost, so the caller should reconnect with `Backoff` and re-read whatever
/// state the notifications were about. A connection quiet for `healthCheckInterval` is sent a `SELECT 1`; no answer
/// within one more interval counts as a disconnect, so a silently dead path (a hung server, a network that drops
/// packets without a reset) is noticed within two intervals.
public final class PostgresListener: Sendable {
    /// One `NOTIFY` as received.
    public struct Notification: Sendable, Equatable {
        public var channel: String
        public var payload: String
        /// The server process of the session that sent it.
        public var senderProcessID: Int32

        public init(channel: String, payload: String, senderProcessID: Int32) {
            self.channel = channel
            self.payload = payload
            self.senderProcessID = senderProcessID
        }
    }

    /// What the listener reports.
    public enum Event: Sendable, Equatable {
        case notification(Notification)
        /// The connection broke; no further events follow.
        case disconnected(PostgresError)
    }

    /// Notifications in the order they arrived, then at most one `disconnected`. Ends after `stop()` too.
    public let events: AsyncStream<Event>
    private let wake: WakePipe

    /// Connects, runs `LISTEN` on every channel (quoted as identifiers, so any name works), then starts waiting.
    ///
    /// - Parameter healthCheckInterval: how long the connection may stay silent before a `SELECT 1` checks it, and
    ///   how long that check may take. Default 10 s.
    public static func start(
        _ configuration: PostgresConfiguration, channels: [String], healthCheckInterval: Duration = .seconds(10)
    ) async throws(PostgresError) -> PostgresListener {
        let worker = WorkerThread(name: "pg listener")
        defer { worker.finish() }
        let box: Box
        do {
            box = try await worker.run {
                let session = try PostgresSession(configuration: configuration)
                for channel in channels {
                    let connection = try session.open()
                    guard let quoted = PQescapeIdentifier(connection, channel, channel.utf8.count) else {
                        throw session.scrubbed(.invalidParameter(position: 1, reason: "channel name cannot be quoted"))
                    }
                    defer { PQfreemem(quoted) }
                    try session.query("LISTEN " + String(cString: quoted))
                }
                return Box(session)
            }
        } catch {
            throw PostgresConnection.typed(error)
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .connectionFailed("cannot create the listener's wake-up pipe") }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)  // a stop() on a full pipe must not block; one byte is enough
        return PostgresListener(box: box, wake: WakePipe(reader: ends[0], writer: ends[1]), healthCheck: healthCheckInterval)
    }

    /// The pipe `stop` writes to and the poll loop watches. Closed when both the listener and its thread are
    /// done with it, so a late `stop` never writes into a closed pipe (no SIGPIPE, no reused descriptor).
    private final class WakePipe: Sendable {
        let reader: Int32
        let writer: Int32
        init(reader: Int32, writer: Int32) {
            self.reader = reader
            self.writer = writer
        }
        deinit {
            close(reader)
            close(writer)
        }
    }

    /// Owned by the listener's poll thread alone once that thread starts.
    private final class Box: @unchecked Sendable {
        let session: PostgresSession
        init(_ session: PostgresSession) { self.session = session }
    }

    private init(box: Box, wake: WakePipe, healthCheck: Duration) {
        self.wake = wake
        let (events, continuation) = AsyncStream<Event>.makeStream()
        self.events = events
        let milliseconds = Int32(clamping: healthCheck.components.seconds * 1000
            + healthCheck.components.attoseconds / 1_000_000_000_000_000)
        Thread {
            Thread.current.name = "pg listener"
            Self.listen(box.session, wakeReader: wake.reader, healthCheckMilliseconds: max(milliseconds, 1),
                        continuation: continuation)
            box.session.close()
        }.start()
    }

    deinit { stop() }

    /// Ends the listener: its thread closes the connection and `events` ends (without a `disconnected` event).
    /// Calling it again does nothing.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(wake.writer, &byte, 1)
    }

    /// The poll loop; returns when stopped or disconnected.
    private static func listen(
        _ session: PostgresSession, wakeReader: Int32, healthCheckMilliseconds: Int32,
        continuation: AsyncStream<Event>.Continuation
    ) {
        defer { continuation.finish() }
        guard let connection = try? session.open() else { return }
        let socket = PQsocket(connection)
        let disconnected = { (fallback: String) -> Void in
            continuation.yield(.disconnected(session.scrubbed(.connectionLost(
                PQstatus(connection) == CONNECTION_OK ? fallback : PostgresSession.message(of: connection)))))
        }
        // A health check is sent without waiting for it (`PQsendQuery`): a server that stopped answering must not
        // hang the loop. No answer within the next interval means the connection is dead.
        var healthCheckPending = false
        while true {
            var descriptors = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, healthCheckMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return disconnected("poll failed: \(String(cString: strerror(errno)))")
            }
            if descriptors[1].revents != 0 { return }
            if ready == 0 {
                if healthCheckPending {
                    return disconnected("the server did not answer a health check within \(healthCheckMilliseconds) ms")
                }
                // Quiet for a whole interval: ask the server whether it is still there.
                guard PQsendQuery(connection, "SELECT 1") == 1, PQflush(connection) == 0 else {
                    return disconnected("could not send a health check")
                }
                healthCheckPending = true
                continue
            }
            if PQconsumeInput(connection) == 0 {
                return disconnected("the server closed the connection")
            }
            while healthCheckPending && PQisBusy(connection) == 0 {
                guard let result = PQgetResult(connection) else {
                    healthCheckPending = false
                    break
                }
                let status = PQresultStatus(result)
                PQclear(result)
                guard status == PGRES_TUPLES_OK else { return disconnected("a health check failed") }
            }
            while let notification = PQnotifies(connection) {
                let value = notification.pointee
                continuation.yield(.notification(Notification(
                    channel: String(cString: value.relname), payload: String(cString: value.extra),
                    senderProcessID: value.be_pid)))
                PQfreemem(notification)
            }
            if PQstatus(connection) != CONNECTION_OK {
                return disconnected("the server closed the connection")
            }
        }
    }
}
