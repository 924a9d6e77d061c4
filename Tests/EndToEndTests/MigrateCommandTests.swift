import Foundation
import PostgresTestSupport
import SkinModel
import SkinStore
import TestSupport
import Testing

/// `livery migrate --store postgres://…` applies the PostgreSQL store's schema and exits: 0 when the schema is
/// current, 2 for an unusable URI, an unreachable server or a schema newer than the binary. The password is never
/// printed.
@Suite(.postgresServer) struct MigrateCommandTests {
    @Test func migratesAFreshDatabaseOnceAndThenFindsNothingToDo() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let role = "migrator_\(database)"
        let password = "m1gr@te:s3cret"
        try await server.psql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE \(PostgresServer.passwordRole)")
        try await server.psql("GRANT ALL ON SCHEMA public TO \(role)", database: database)
        let uri = server.uri(database: database, role: role, password: password)

        let first = try await blocking { try LiveryProcess.runSeparately(["migrate", "--store", uri]) }
        #expect(first.status == 0, "\(first.output)")
        #expect(first.standardOutput.contains("schema at version 3 (applied 1, 2, 3)"), "\(first.output)")
        #expect(!first.output.contains(password) && !first.output.contains("s3cret"))
        #expect(
            try await server.psql("SELECT revision FROM livery_store", database: database)
                .trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        // Again, through LIVERY_STORE: nothing left to apply.
        let second = try await blocking {
            try LiveryProcess.runSeparately(["migrate"], environment: ["LIVERY_STORE": uri])
        }
        #expect(second.status == 0, "\(second.output)")
        #expect(second.standardOutput.contains("schema at version 3 (nothing to apply)"), "\(second.output)")
    }

    @Test func refusesASchemaNewerThanTheBinary() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let uri = server.uri(database: database)
        #expect(try await blocking { try LiveryProcess.runSeparately(["migrate", "--store", uri]) }.status == 0)
        try await server.psql("INSERT INTO livery_schema_version (version) VALUES (99)", database: database)

        let refused = try await blocking { try LiveryProcess.runSeparately(["migrate", "--store", uri]) }
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("newer than this binary knows"), "\(refused.output)")
    }

    @Test func exitsTwoForAnUnusableOrUnreachableStore() async throws {
        let server = try PostgresServer.forSuite()
        let notPostgres = try await blocking {
            try LiveryProcess.runSeparately(["migrate", "--store", "mysql://db/livery"])
        }
        #expect(notPostgres.status == 2)
        #expect(notPostgres.standardError.contains("postgres://"), "\(notPostgres.output)")

        let missing = try await blocking {
            try LiveryProcess.runSeparately(["migrate"], environment: ["LIVERY_STORE": ""])
        }
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("--store"), "\(missing.output)")

        let nowhere = server.folder.path("no-such-socket-folder")
        let unreachable = try await blocking {
            try LiveryProcess.runSeparately([
                "migrate", "--store", "postgresql://postgres:hunter2@/postgres?host=\(nowhere)"
            ])
        }
        #expect(unreachable.status == 2)
        #expect(unreachable.standardError.contains("could not connect"), "\(unreachable.output)")
        #expect(!unreachable.output.contains("hunter2"))
    }

    @Test func copiesAFileStoreFromADataFolderOnce() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let uri = server.uri(database: database)
        let dataDirectory = try ScratchDirectory(prefix: "livery-migrate-data")
        let source = try FileSkinStore(directory: dataDirectory.path("store"))
        try await source.addVersion(
            skinID: "spring", files: ["config.json": Array(#"{"a":1}"#.utf8)], metadata: VersionMetadata(),
            release: ReleasePlan(startsAt: Date(), endsAt: Date().addingTimeInterval(3600)), actor: "ops")
        try await source.setKillSwitch(app: nil, enabled: true, reason: "r", actor: "ops")
        source.close()

        let copied = try await blocking {
            try LiveryProcess.runSeparately(["migrate", "--store", uri, "--from-data-dir", dataDirectory.path])
        }
        #expect(copied.status == 0, "\(copied.output)")
        #expect(copied.standardOutput.contains("copied \(dataDirectory.path("store")) into store"), "\(copied.output)")
        #expect(
            try await server.psql("SELECT count(*) FROM livery_audit", database: database)
                .trimmingCharacters(in: .whitespacesAndNewlines) == "2")

        let again = try await blocking {
            try LiveryProcess.runSeparately(["migrate", "--store", uri, "--from-data-dir", dataDirectory.path])
        }
        #expect(again.status == 0, "\(again.output)")
        #expect(again.standardOutput.contains("nothing to copy"), "\(again.output)")

        let empty = try ScratchDirectory(prefix: "livery-migrate-empty")
        let missing = try await blocking {
            try LiveryProcess.runSeparately(["migrate", "--store", uri, "--from-data-dir", empty.path])
        }
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("no file store there"), "\(missing.output)")
        #expect(!FileManager.default.fileExists(atPath: empty.path("store")), "a missing store is not created")
    }
}
