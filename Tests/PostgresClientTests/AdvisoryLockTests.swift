import PostgresClient
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

@Suite(.postgresServer)
struct AdvisoryLockTests {
    @Test func excludesASecondConnectionUntilReleased() async throws {
        let (server, database, first) = try await connectToFreshDatabase()
        let second = try await PostgresConnection.connect(PostgresConfiguration(uri: server.uri(database: database)))
        #expect(try await first.withSession { try $0.tryAdvisoryLock(7) })
        #expect(try await second.withSession { try $0.tryAdvisoryLock(7) } == false)
        #expect(try await first.withSession { try $0.tryAdvisoryLock(8) }, "another key is independent")
        #expect(try await first.withSession { try $0.advisoryUnlock(7) })
        #expect(try await second.withSession { try $0.tryAdvisoryLock(7) })
        #expect(try await first.withSession { try $0.advisoryUnlock(7) } == false, "first no longer holds it")
    }

    @Test func makesAWaiterWaitUntilTheHolderReleases() async throws {
        let (server, database, holder) = try await connectToFreshDatabase()
        let configuration = try PostgresConfiguration(uri: server.uri(database: database))
        let waiter = try await PostgresConnection.connect(configuration)
        let observer = try await PostgresConnection.connect(configuration)
        let order = Mutex<[String]>([])
        #expect(try await holder.withSession { try $0.tryAdvisoryLock(42) })
        let waiting = Task {
            try await waiter.withAdvisoryLock(42) { _ in order.withLock { $0.append("waiter ran") } }
        }
        // Wait (polling the server, not sleeping) until the waiter is queued on the lock.
        try await within(.seconds(20), "the waiter to block on the lock") {
            while try await observer.query(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).singleRow().int(0) == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        order.withLock { $0.append("holder released") }
        #expect(try await holder.withSession { try $0.advisoryUnlock(42) })
        try await waiting.value
        #expect(order.withLock { $0 } == ["holder released", "waiter ran"])
        #expect(try await holder.withSession { try $0.tryAdvisoryLock(42) }, "the waiter released it after its body")
    }
}
