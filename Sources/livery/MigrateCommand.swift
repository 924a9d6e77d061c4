import ArgumentParser
import Foundation
import PostgresClient
import PostgresSkinStore
import SkinStore

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

            With --from-data-dir, then copies the file store of that data folder (DIR/store: skins, every \
            version, releases, kill switches, deleted skins' numbers, the whole audit log, phones' reports and \
            their secret) into the PostgreSQL store in one transaction. Stop the server using DIR first. Running \
            it again after a copy changes nothing (but for reports the target does not hold yet); a target \
            holding other data is refused (exit 2), as is a damaged file in the source.
            """)

    @Option(
        help: ArgumentHelp(
            "The PostgreSQL store (default: LIVERY_STORE).", valueName: "postgres-uri"))
    var store: String?

    @Option(help: ArgumentHelp("A file holding the password (for a mounted secret).", valueName: "path"))
    var passwordFile: String?

    @Option(
        help: ArgumentHelp(
            "A data folder whose file store to copy into the PostgreSQL store.", valueName: "dir"))
    var fromDataDir: String?

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
            let applied =
                report.applied.isEmpty
                ? "nothing to apply" : "applied " + report.applied.map(String.init).joined(separator: ", ")
            FileHandle.standardOutput.write(
                Data("store \(target): schema at version \(report.version) (\(applied))\n".utf8))
        } catch {
            await connection.close()
            Self.fail("store \(target): \(error)")
        }
        if let fromDataDir { await Self.copy(dataDirectory: fromDataDir, into: configuration) }
    }

    /// Copies the file store of `dataDirectory` into the PostgreSQL store; exits 2 naming what failed.
    private static func copy(dataDirectory: String, into configuration: PostgresConfiguration) async {
        let directory = dataDirectory + "/store"
        // Opening a missing store would create an empty one: refuse instead, naming what is missing.
        guard FileManager.default.fileExists(atPath: directory + "/state.json") else {
            fail("--from-data-dir \(dataDirectory): no file store there (\(directory)/state.json is missing)")
        }
        let source: FileSkinStore
        do {
            source = try FileSkinStore(directory: directory)
        } catch {
            fail("--from-data-dir \(dataDirectory): \(error)")
        }
        let target = configuration.redactedURI
        do {
            let outcome = try await PostgresSkinStore.copy(from: source, into: configuration)
            source.close()
            switch outcome {
            case .copied(let revision, let reports):
                FileHandle.standardOutput.write(
                    Data(
                        "copied \(directory) into store \(target) (revision \(revision), \(reports) phone reports)\n"
                            .utf8))
            case .alreadyCopied(let revision, let reports):
                let also: String =
                    switch reports {
                    case .some(0): "nothing to copy"
                    case .some(let count): "copied \(count) phone reports it did not hold"
                    case .none:
                        "nothing to copy (its replicas hash devices under a report secret of their own, so the "
                            + "source's reports were left out)"
                    }
                FileHandle.standardOutput.write(
                    Data("store \(target) already holds \(directory) (revision \(revision)); \(also)\n".utf8))
            }
        } catch {
            source.close()
            fail("copying \(directory) into store \(target): \(error)")
        }
    }

    /// Prints `message` on standard error and exits with status 2.
    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("livery migrate: \(message)\n".utf8))
        Foundation.exit(2)
    }
}
