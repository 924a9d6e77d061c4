import CLibPQ
import Foundation
import Synchronization
import SystemCalls

/// A connection that `LISTEN`s on channels and turns each `NOTIFY` into an event, from a thread of its own that
/// sleeps in `poll` on the connection's socket (and a wake-up pipe for `stop`).
///
/// When the connection breaks (server stopped, killed, unreachable) `events` yields one `disconnected` event and
/// ends; notifications sent meanwhile are lost, so the caller should reconnect with `Backoff` and re-read whatever
/// state the notifications were about. A connection quiet for `healthCheck.interval` is sent a `SELECT 1`; no answer
/// within `healthCheck.timeout` counts as a disconnect, so a silently dead path (a hung server, a network that drops
/// packets without a reset) is noticed within their sum.
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
    /// - Parameter healthCheck: how long the connection may stay silent before a `SELECT 1` checks it, and how long
    ///   that check may take to answer. Default 10 s and 10 s.
    public static func start(
        _ configuration: PostgresConfiguration, channels: [String], healthCheck: HealthCheck = HealthCheck()
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
        let wake: WakePipe
        do throws(SystemCallError) {
            wake = try WakePipe()
        } catch {
            throw .connectionFailed("cannot create the listener's wake-up pipe: \(error.reason)")
        }
        return PostgresListener(box: box, wake: wake, healthCheck: healthCheck)
    }

    /// Owned by the listener's poll thread alone once that thread starts.
    private final class Box: @unchecked Sendable {
        let session: PostgresSession
        init(_ session: PostgresSession) { self.session = session }
    }

    /// When the listener checks a quiet connection (`interval`) and how long the answer may take (`timeout`).
    public struct HealthCheck: Sendable {
        public var interval: Duration
        public var timeout: Duration

        public init(interval: Duration = .seconds(10), timeout: Duration = .seconds(10)) {
            self.interval = interval
            self.timeout = timeout
        }
    }

    private init(box: Box, wake: WakePipe, healthCheck: HealthCheck) {
        self.wake = wake
        let (events, continuation) = AsyncStream<Event>.makeStream()
        self.events = events
        Thread {
            livery_name_current_thread("pg listener")
            Self.listen(
                box.session, wakeReader: wake.reader, healthCheck: healthCheck,
                continuation: continuation)
            box.session.close()
        }.start()
    }

    deinit { stop() }

    /// Ends the listener: its thread closes the connection and `events` ends (without a `disconnected` event).
    /// Calling it again does nothing.
    public func stop() {
        wake.wake()
    }

    /// The poll loop; returns when stopped or disconnected.
    private static func listen(
        _ session: PostgresSession, wakeReader: Int32, healthCheck: HealthCheck,
        continuation: AsyncStream<Event>.Continuation
    ) {
        defer { continuation.finish() }
        guard let connection = try? session.open() else { return }
        let socket = PQsocket(connection)
        let disconnected = { (fallback: String) -> Void in
            continuation.yield(
                .disconnected(
                    session.scrubbed(
                        .connectionLost(
                            PQstatus(connection) == CONNECTION_OK ? fallback : PostgresSession.message(of: connection)))
                ))
        }
        // A health check is sent without waiting for it (`PQsendQuery`): a server that stopped answering must not
        // hang the loop. No answer within the next interval means the connection is dead.
        let clock = ContinuousClock()
        /// When the pending health check's answer is due; nil while none is pending.
        var answerDue: ContinuousClock.Instant? = nil
        while true {
            var descriptors = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)
            ]
            let wait = answerDue.map { max($0 - clock.now, .zero) } ?? healthCheck.interval
            let ready: Int
            do throws(SystemCallError) {
                ready = try Syscall.poll(&descriptors, timeoutMilliseconds: Self.milliseconds(wait))
            } catch {
                return disconnected("poll failed: \(error.reason)")
            }
            if descriptors[1].revents != 0 { return }
            if ready == 0 {
                if answerDue != nil {
                    return disconnected("the server did not answer a health check within \(healthCheck.timeout)")
                }
                // Quiet for a whole interval: ask the server whether it is still there.
                guard PQsendQuery(connection, "SELECT 1") == 1, PQflush(connection) == 0 else {
                    return disconnected("could not send a health check")
                }
                answerDue = clock.now + healthCheck.timeout
                continue
            }
            if PQconsumeInput(connection) == 0 {
                return disconnected("the server closed the connection")
            }
            while answerDue != nil && PQisBusy(connection) == 0 {
                guard let result = PQgetResult(connection) else {
                    answerDue = nil
                    break
                }
                let status = PQresultStatus(result)
                PQclear(result)
                guard status == PGRES_TUPLES_OK else { return disconnected("a health check failed") }
            }
            while let notification = PQnotifies(connection) {
                let value = notification.pointee
                continuation.yield(
                    .notification(
                        Notification(
                            channel: String(cString: value.relname), payload: String(cString: value.extra),
                            senderProcessID: value.be_pid)))
                PQfreemem(notification)
            }
            if PQstatus(connection) != CONNECTION_OK {
                return disconnected("the server closed the connection")
            }
        }
    }

    /// `duration` in whole milliseconds for `poll`, at least 1 (0 would spin) and at most `Int32.max`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return max(1, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }
}

extension PostgresListener {
    /// Whether connections made with `configuration` keep one server session from one transaction to the next, as
    /// `LISTEN` needs (a notification goes to the session that listens). A direct connection does, as does
    /// PgBouncer in session mode; PgBouncer in transaction mode does not: each transaction may run on another
    /// server session, so `LISTEN` cannot work there.
    ///
    /// Asked the way the listener will use it: a probe listener `LISTEN`s on a channel of its own and waits, sending
    /// nothing, while a second connection sends one `NOTIFY` there. A connection that keeps its session receives it
    /// within milliseconds; in a pool that shares sessions the probe's client is linked to no server session while
    /// it waits, so the notification never reaches it. (An earlier probe asked which session the probe's next
    /// transaction ran on; PgBouncer hands a waiting client's last session back to it while it has other idle ones
    /// for everyone else, so that probe said "kept" in about one start in five behind PgBouncer.) A probe that
    /// cannot connect or send counts as keeping it (nothing to conclude: the caller's own reconnection handles an
    /// unreachable server); one whose notification does not arrive within `wait` counts as not keeping it, which
    /// costs only the listener's speed: changes still arrive by the revision poll. Never waits more than `wait`
    /// once connected.
    public static func sessionsKept(
        _ configuration: PostgresConfiguration, wait: Duration = .seconds(10)
    ) async
        -> Bool
    {
        let channel = "livery_session_probe_\(UInt64.random(in: 0...UInt64.max))"
        let probe: PostgresListener
        do {
            // No health check while it waits: a query could carry a queued notification back with its answer.
            probe = try await PostgresListener.start(
                configuration, channels: [channel], healthCheck: HealthCheck(interval: wait * 2, timeout: wait))
        } catch {
            return true
        }
        defer { probe.stop() }
        let sender: PostgresConnection
        do {
            sender = try await PostgresConnection.connect(configuration)
        } catch {
            return true
        }
        do {
            try await sender.notify(channel, payload: "probe")
        } catch {
            await sender.close()
            return true
        }
        await sender.close()
        let events = probe.events
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .notification(let notification) where notification.channel == channel: return true
                    case .notification: continue
                    case .disconnected: return false
                    }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: wait)
                return false
            }
            let arrived = await group.next() ?? false
            group.cancelAll()
            return arrived
        }
    }
}
