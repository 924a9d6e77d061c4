import PostgresClient
import PostgresTestSupport
import TestSupport
import Testing

@Suite(.postgresServer)
struct TransactionTests {
    struct Refused: Error, Equatable {}

    @Test func commitsWhenTheClosureReturns() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        try await connection.query("CREATE TABLE t (value integer)")
        let inserted = try await connection.transaction { session in
            try session.query("INSERT INTO t VALUES (1), (2)").affectedRows
        }
        #expect(inserted == 2)
        #expect(try await connection.query("SELECT count(*) FROM t").singleRow().int(0) == 2)
    }

    @Test func rollsBackAndRethrowsWhenTheClosureThrows() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        try await connection.query("CREATE TABLE t (value integer)")
        await #expect(throws: Refused()) {
            try await connection.transaction { session in
                try session.query("INSERT INTO t VALUES (1)")
                throw Refused()
            }
        }
        #expect(try await connection.query("SELECT count(*) FROM t").singleRow().int(0) == 0)
        #expect(try await connection.withSession { $0.isInTransaction } == false, "no transaction is left open")
    }

    @Test func refusesToCommitAfterAStatementFailedEvenIfTheClosureCaughtIt() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        try await connection.query("CREATE TABLE t (value integer PRIMARY KEY)")
        try await connection.query("INSERT INTO t VALUES (1)")
        await #expect {
            try await connection.transaction { session in
                try session.query("INSERT INTO t VALUES (2)")
                _ = try? session.query("INSERT INTO t VALUES (1)")
            }
        } throws: { ($0 as? PostgresError)?.sqlState == SQLState(rawValue: "25P02") }
        #expect(try await connection.query("SELECT count(*) FROM t").singleRow().int(0) == 1)
    }

    @Test func runsAtTheRequestedIsolationLevel() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        let level = try await connection.transaction(isolation: .serializable) { session in
            try session.query("SHOW transaction_isolation").singleRow().string(0)
        }
        #expect(level == "serializable")
    }
}
