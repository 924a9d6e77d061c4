import ArgumentParser
import Foundation
import PostgresClient
import PostgresSkinStore

/// `livery migrate --store postgres://…`: brings a PostgreSQL store's schema up to date and exits, so an operator
/// (or a deploy job) can migrate before starting replicas. Safe to run again and alongside starting replicas: the
/// migrations run under an advisory lock.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the PostgreSQL store's schema migrations, then exit.",
        discussion: """
            The URI (postgres:// or postgresql://) is handed to libpq as it is, so a Unix-socket folder in ?host= \
            works; the password comes from the URI, PGPASSWORD or --password-file and is never printed. Exit \
            status: 0 the schema is current (prints what was applied), 2 unusable URI, PostgreSQL unreachable, a \
            failed step (rolled back), or a schema newer than this binary.
            """)

    @Option(help: ArgumentHelp(
        "The PostgreSQL store (default: LIVERY_STORE).", valueName: "postgres-uri"))
    var store: String?

    @Option(help: ArgumentHelp("A file holding the password (for a mounted secret).", valueName: "path"))
    var passwordFile: String?

    func run() async throws {
        guard let uri = store ?? ProcessInfo.processInfo.environment["LIVERY_STORE"], !uri.isEmpty else {
            Self.fail("--store (or LIVERY_STORE) is required: a postgres:// URI")
        }
        let configuration: PostgresConfiguration
        do {
            configuration = try PostgresConfiguration(uri: uri, passwordFile: passwordFile)
        } catch {
            Self.fail("--store \(PostgresConfiguration.redact(uri)): \(error)")
        }
        let target = configuration.redactedURI
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration)
        } catch {
            Self.fail("store \(target): \(error)")
        }
        do {
            let report = try await PostgresStoreSchema.migrator().migrate(connection)
            await connection.close()
            let applied = report.applied.isEmpty
                ? "nothing to apply" : "applied " + report.applied.map(String.init).joined(separator: ", ")
            FileHandle.standardOutput.write(Data("store \(target): schema at version \(report.version) (\(applied))\n".utf8))
        } catch {
            await connection.close()
            Self.fail("store \(target): \(error)")
        }
    }

    /// Prints `message` on standard error and exits with status 2.
    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("livery migrate: \(message)\n".utf8))
        Foundation.exit(2)
    }
}
