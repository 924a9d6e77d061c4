import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Replicas and `livery migrate` through a real PgBouncer (Debian's) on 127.0.0.1 and a Unix socket: transaction
/// pooling works (transaction-level advisory locks, changes by the revision poll, said in the log), statement
/// pooling is refused naming it, and nothing hangs.
@Suite(.postgresServer, .hangGuard) struct PgBouncerTests {
    @Test func twoReplicasStartingTogetherThroughTransactionPoolingBothServeAndFollowChanges() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let bouncer = try PgBouncer(in: server, poolMode: "transaction", poolSize: 4)
        let workspace = try Replicas.workspace(releasing: "seed")
        try await blocking {
            // Together, on an empty database: one migrates and imports, the other waits for it; over TCP and the socket.
            let first = try Replicas.start(store: bouncer.tcpURI(database: database), workspace: workspace)
            let second = try Replicas.start(store: bouncer.socketURI(database: database), workspace: workspace)
            try first.waitUntilReady()
            try second.waitUntilReady()
            #expect(Replicas.polledSkin(port: first.port) == "seed" && Replicas.polledSkin(port: second.port) == "seed")
            for livery in [first, second] {
                #expect(
                    AdminServeTests.eventually(seconds: 120) { livery.output.contains("LISTEN cannot work there") },
                    "\(livery.output)")
            }
            // A change through one is served by the other, by the revision poll.
            try Replicas.pushAndRelease(AdminCall(port: first.port), id: "winter", marker: "w1", priority: 5)
            #expect(Replicas.timeUntilServed("winter", port: second.port, within: 10) != nil)
            let flipped = try AdminCall(port: second.port).json(
                "PUT", "/admin/v1/killswitch", body: #"{"enabled": true, "reason": "pool"}"#)
            #expect(flipped.status == 200, "\(flipped.object)")
            #expect(Replicas.timeUntilServed("", port: first.port, within: 10) != nil)
            // A replica started later finds no lock left behind.
            let third = try Replicas.start(
                store: bouncer.tcpURI(database: database), workspace: workspace,
                environment: ["LIVERY_START_TIMEOUT": "30"])
            try third.waitUntilReady()
            for livery in [first, second, third] { #expect(try livery.stop(signal: SIGTERM) == 0, "\(livery.output)") }
        }
        let locks = try await server.psql(
            """
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, database: database)
        #expect(locks.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func twoMigratesAtOnceThroughTransactionPoolingBothSucceed() async throws {
        let server = try PostgresServer.forSuite()
        let bouncer = try PgBouncer(in: server, poolMode: "transaction", poolSize: 2)
        for _ in 0..<3 {
            let database = try await server.createDatabase()
            async let one = BuiltProduct.runLivery(["migrate", "--store", bouncer.tcpURI(database: database)])
            async let two = BuiltProduct.runLivery(["migrate", "--store", bouncer.socketURI(database: database)])
            let results: [ExternalProcess.Output] = [try await one, try await two]
            for result in results { #expect(result.status == 0, "\(result.transcript)") }
            let version = try await server.psql("SELECT max(version) FROM livery_schema_version", database: database)
            // The newest of PostgresStoreSchema.migrations: 3 (the report ledger).
            #expect(version.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
        }
    }

    @Test func statementPoolingIsRefusedNamingThePoolMode() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let bouncer = try PgBouncer(in: server, poolMode: "statement")
        let workspace = try Replicas.workspace(releasing: "seed")
        try await blocking {
            let replica = try Replicas.start(store: bouncer.tcpURI(database: database), workspace: workspace)
            let status = try replica.waitForExit(seconds: 60)
            #expect(status == 2, "\(replica.output)")
            #expect(
                replica.output.contains("statement mode")
                    && replica.output.contains("pool_mode = transaction or session"),
                "\(replica.output)")
        }
    }
}

/// `--start-timeout`: a replica that is not ready in time exits 2 naming what it waited for.
@Suite(.postgresServer, .hangGuard) struct StartTimeoutTests {
    @Test(arguments: [
        (Int64(0x6C69_7665_7279_0002), "the first start's import lock (advisory lock 0x6c69766572790002)"),
        (Int64(0x6C69_7665_7279_0001), "the schema migration lock (advisory lock 0x6c69766572790001)")
    ])
    func aReplicaWaitingForALockExitsTwoNamingItsHolder(key: Int64, lock: String) async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let uri = server.uri(database: database)
        let workspace = try Replicas.workspace(releasing: "seed")
        // A session holding the lock (as a stuck replica or migration would), until the test ends it.
        let holder = Task {
            try? await server.psql("SELECT pg_advisory_lock(\(key)), pg_sleep(60)", database: database)
        }
        let held = try await eventually {
            // pg_locks shows every database's locks: this database's, this key's.
            try await server.psql(
                """
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND objid::bigint = \(key & 0xFFFF_FFFF)
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """, database: database
            )
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        #expect(held)
        let run = try await blocking {
            try LiveryProcess.runSeparately(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--start-timeout", "2"],
                environment: Self.environment(workspace, ["LIVERY_STORE": uri]))
        }
        try await server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()"
        )
        _ = await holder.value
        #expect(run.status == 2, "\(run.output)")
        #expect(
            run.standardError.hasPrefix(
                "livery: not ready after 2 s (--start-timeout / LIVERY_START_TIMEOUT): "
                    + "waited for \(lock), held by PostgreSQL backend pid "),
            "\(run.standardError)")
        #expect(run.standardError.contains("application 'psql'"), "\(run.standardError)")
    }

    @Test func aReplicaThatCannotReachPostgreSQLExitsTwoNamingIt() async throws {
        let nowhere = try ScratchDirectory(prefix: "livery-no-postgres")
        let workspace = try Replicas.workspace(releasing: "seed")
        let run = try await blocking {
            try LiveryProcess.runSeparately(
                ["serve", "--host", "127.0.0.1", "--port", "0"],
                environment: Self.environment(
                    workspace,
                    [
                        "LIVERY_STORE": "postgresql://postgres@/livery?host=\(nowhere.path)",
                        "LIVERY_START_TIMEOUT": "1.5"
                    ]))
        }
        #expect(run.status == 2, "\(run.output)")
        #expect(
            run.standardError.hasPrefix(
                "livery: not ready after 1.5 s (--start-timeout / LIVERY_START_TIMEOUT): waited for PostgreSQL at postgresql://postgres@/livery?host=\(nowhere.path) to answer ("
            ),
            "\(run.standardError)")
    }

    /// The workspace's environment with `extra`, the data folder left to `LiveryProcess` (a fresh one).
    static func environment(_ workspace: AdminWorkspace, _ extra: [String: String]) -> [String: String] {
        var environment = workspace.environment.merging(extra) { $1 }
        environment["LIVERY_DATA_DIR"] = nil
        return environment
    }

}
