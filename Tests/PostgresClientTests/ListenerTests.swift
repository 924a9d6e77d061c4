import Foundation
import PostgresClient
import PostgresTestSupport
import TestSupport
import Testing

@Suite(.postgresServer)
struct ListenerTests {
    /// A direct connection keeps its server session, so the probe's own notification reaches it (through
    /// PgBouncer in transaction mode it does not: `PgBouncerTests` sees the replicas say so).
    @Test func aDirectConnectionKeepsItsSessionAsListeningNeeds() async throws {
        let (server, database, _) = try await connectToFreshDatabase()
        let configuration = try PostgresConfiguration(uri: server.uri(database: database))
        #expect(await PostgresListener.sessionsKept(configuration))
    }

    @Test func deliversANotificationWithinABoundedWait() async throws {
        let (server, database, sender) = try await connectToFreshDatabase()
        let channel = "catalog changes \"quoted\""
        let listener = try await PostgresListener.start(
            PostgresConfiguration(uri: server.uri(database: database)), channels: [channel, "other"])
        defer { listener.stop() }
        try await sender.notify(channel, payload: "revision 7")
        let senderPID = try await sender.withSession { $0.serverProcessID }
        let event = try await nextEvent(of: listener)
        #expect(event == .notification(.init(channel: channel, payload: "revision 7", senderProcessID: senderPID)))
    }

    @Test func deliversANotificationSentInATransactionOnlyWhenItCommits() async throws {
        let (server, database, sender) = try await connectToFreshDatabase()
        let listener = try await PostgresListener.start(
            PostgresConfiguration(uri: server.uri(database: database)), channels: ["changes"])
        defer { listener.stop() }
        struct Abandon: Error {}
        _ = try? await sender.transaction { session in
            try session.query("SELECT pg_notify('changes', 'rolled back')")
            throw Abandon()
        }
        _ = try await sender.transaction { session in try session.query("SELECT pg_notify('changes', 'committed')") }
        guard case .notification(let notification)? = try await nextEvent(of: listener) else {
            Issue.record("no notification")
            return
        }
        #expect(notification.payload == "committed")
    }

    @Test func reportsAServerThatStopsAnsweringAHealthCheck() async throws {
        let (server, database, observer) = try await connectToFreshDatabase()
        let listener = try await PostgresListener.start(
            PostgresConfiguration(uri: server.uri(database: database)), channels: ["hung"],
            healthCheck: .init(interval: .milliseconds(200), timeout: .milliseconds(500)))
        defer { listener.stop() }
        let backend = try await observer.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'", [.text(database)]
        ).singleRow().int(0)
        // The listener's server process freezes: its socket stays open and silent, as on a dead network path.
        kill(pid_t(backend), SIGSTOP)
        defer { kill(pid_t(backend), SIGCONT) }
        guard case .disconnected(let error)? = try await nextEvent(of: listener) else {
            Issue.record("the listener did not notice the silent server")
            return
        }
        #expect(error.isConnectionProblem)
        #expect("\(error)".contains("health check"))
    }

    @Test func keepsDeliveringBetweenHealthChecks() async throws {
        let (server, database, sender) = try await connectToFreshDatabase()
        let listener = try await PostgresListener.start(
            PostgresConfiguration(uri: server.uri(database: database)), channels: ["busy"],
            healthCheck: .init(interval: .milliseconds(5), timeout: .seconds(30)))
        defer { listener.stop() }
        for index in 0..<20 {
            try await sender.notify("busy", payload: "\(index)")
            guard case .notification(let notification)? = try await nextEvent(of: listener) else {
                Issue.record("notification \(index) missing")
                return
            }
            #expect(notification.payload == "\(index)")
        }
    }

    @Test func endsItsEventsWithoutADisconnectWhenStopped() async throws {
        let server = try PostgresServer.forSuite()
        let listener = try await PostgresListener.start(PostgresConfiguration(uri: server.uri()), channels: ["x"])
        listener.stop()
        #expect(try await nextEvent(of: listener) == nil)
    }
}

/// Each test here owns its server, because it stops or kills it.
struct ListenerReconnectTests {
    @Test func reportsAServerStopAndListensAgainAfterARestart() async throws {
        try await PostgresServer.withServer { server in
            try await reportsLossAndRecovers(server) { try await server.stop() }
        }
    }

    @Test func reportsAServerKilledWithSIGKILLAndListensAgainAfterARestart() async throws {
        try await PostgresServer.withServer { server in
            try await reportsLossAndRecovers(server) { try await server.kill() }
        }
    }

    private func reportsLossAndRecovers(
        _ server: PostgresServer, takingItDown takeDown: () async throws -> Void
    ) async throws {
        let configuration = try PostgresConfiguration(uri: server.uri())
        let listener = try await PostgresListener.start(configuration, channels: ["changes"])
        try await takeDown()
        guard case .disconnected(let error)? = try await nextEvent(of: listener) else {
            Issue.record("the listener did not report the lost connection")
            return
        }
        #expect(error.isConnectionProblem)
        #expect(try await nextEvent(of: listener) == nil, "no events after the disconnect")

        // Reconnect with backoff while the server is down: every attempt fails as a connection problem.
        await #expect { _ = try await PostgresListener.start(configuration, channels: ["changes"]) } throws: {
            ($0 as? PostgresError)?.isConnectionProblem == true
        }
        let restarted = Task { try await server.start() }
        let again = try await within(.seconds(60), "a reconnect") {
            var backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))
            while true {
                do {
                    return try await PostgresListener.start(configuration, channels: ["changes"])
                } catch let error as PostgresError where error.isConnectionProblem {
                    try await Task.sleep(for: backoff.next())
                }
            }
        }
        defer { again.stop() }
        try await restarted.value
        let sender = try await PostgresConnection.connect(configuration)
        try await sender.notify("changes", payload: "after restart")
        guard case .notification(let notification)? = try await nextEvent(of: again) else {
            Issue.record("no notification after the reconnect")
            return
        }
        #expect(notification.payload == "after restart")
    }
}
