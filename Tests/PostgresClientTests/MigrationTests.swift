import PostgresClient
import PostgresTestSupport
import TestSupport
import Testing

@Suite(.postgresServer)
struct MigrationTests {
    static let steps = [
        Migration(version: 1, sql: "CREATE TABLE skins (id text PRIMARY KEY); INSERT INTO skins VALUES ('xmas')"),
        Migration(version: 2, sql: "ALTER TABLE skins ADD COLUMN title text NOT NULL DEFAULT ''"),
        Migration(version: 3, sql: "CREATE TABLE releases (skin text REFERENCES skins (id))")
    ]

    @Test func appliesEveryStepToAFreshDatabaseInOrder() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        let report = try await Migrator(migrations: Self.steps).migrate(connection)
        #expect(report == Migrator.Report(applied: [1, 2, 3], version: 3))
        let versions = try await connection.query("SELECT version FROM schema_version ORDER BY version").rows
        #expect(try versions.map { try $0.int(0) } == [1, 2, 3])
        #expect(try await connection.query("SELECT title FROM skins").singleRow().string(0) == "")
    }

    @Test func appliesNothingTheSecondTime() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        let migrator = try Migrator(migrations: Self.steps)
        _ = try await migrator.migrate(connection)
        #expect(try await migrator.migrate(connection) == Migrator.Report(applied: [], version: 3))
        #expect(try await connection.query("SELECT count(*) FROM skins").singleRow().int(0) == 1)
    }

    @Test func appliesOnlyTheStepsANewerBinaryAdds() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        _ = try await Migrator(migrations: Array(Self.steps.prefix(2))).migrate(connection)
        #expect(try await Migrator(migrations: Self.steps).migrate(connection) == .init(applied: [3], version: 3))
    }

    @Test func migratesOnceWhenTwoProcessesStartTogether() async throws {
        let (server, database, first) = try await connectToFreshDatabase()
        let second = try await PostgresConnection.connect(PostgresConfiguration(uri: server.uri(database: database)))
        // Neither step could run twice: CREATE TABLE without IF NOT EXISTS, and the insert is counted. The first
        // step lingers so the other migrator arrives while it runs.
        let migrator = try Migrator(migrations: [
            Migration(version: 1, sql: "CREATE TABLE runs (at timestamptz DEFAULT now()); SELECT pg_sleep(0.3)"),
            Migration(version: 2, sql: "INSERT INTO runs DEFAULT VALUES")
        ])
        async let one = migrator.migrate(first)
        async let two = migrator.migrate(second)
        let reports = try await [one, two]
        #expect(Set(reports.map(\.applied)) == [[1, 2], []])
        #expect(reports.allSatisfy { $0.version == 2 })
        #expect(try await first.query("SELECT count(*) FROM runs").singleRow().int(0) == 1)
    }

    @Test func refusesADatabaseNewerThanTheBinary() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        _ = try await Migrator(migrations: Self.steps).migrate(connection)
        let older = try Migrator(migrations: Array(Self.steps.prefix(2)))
        await #expect(throws: MigrationError.databaseNewer(databaseVersion: 3, knownVersion: 2)) {
            try await older.migrate(connection)
        }
        #expect(MigrationError.databaseNewer(databaseVersion: 3, knownVersion: 2).description.contains("newer"))
        #expect(try await connection.query("SELECT count(*) FROM schema_version").singleRow().int(0) == 3)
    }

    @Test func leavesTheSchemaAsItWasWhenAStepFails() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        let broken = try Migrator(migrations: [
            Self.steps[0], Migration(version: 2, sql: "ALTER TABLE nowhere ADD x int")
        ])
        await #expect {
            try await broken.migrate(connection)
        } throws: { error in
            guard case .failed(let version, let cause) = error as? MigrationError else { return false }
            return version == 2 && cause.sqlState == .undefinedTable
        }
        // The whole run is one transaction (the version table's creation included), so nothing is left.
        #expect(try await connection.query("SELECT to_regclass('schema_version') IS NULL").singleRow().bool(0))
        #expect(try await connection.query("SELECT to_regclass('skins') IS NULL").singleRow().bool(0))
        #expect(try await Migrator(migrations: Self.steps).migrate(connection).applied == [1, 2, 3])
    }

    @Test(arguments: [[2, 1], [1, 1], [0, 1], [-3]])
    func refusesVersionsThatDoNotIncrease(versions: [Int]) {
        #expect {
            _ = try Migrator(migrations: versions.map { Migration(version: $0, sql: "SELECT 1") })
        } throws: { error in
            if case .invalidMigrationList = error as? MigrationError { return true }
            return false
        }
    }
}
