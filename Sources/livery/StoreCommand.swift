import ArgumentParser
import Foundation
import LiveryJSON
import PostgresClient
import PostgresSkinStore
import SkinServing
import SkinStore

/// `livery store …`: maintenance of a store.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Maintenance of a Livery store.",
        subcommands: [StoreVerifyCommand.self])
}

/// `livery store verify [--data-dir DIR] [--store URI [--store-password-file F]] [--json]`: rehashes every blob,
/// version and package record, beside a live server, and prints each piece of damage.
struct StoreVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Rehash every blob, version and package record of a store and report each damage.",
        discussion: """
            Runs beside a live `livery serve` without taking its lock: it only reads. Without --store it checks \
            the file store under DIR/store; with --store, the PostgreSQL store (PostgreSQL hashes each blob where \
            it is stored). Either way it also rehashes the built packages under DIR/packages against their build \
            records when that folder exists.

            Prints one line per damage on standard output, \
            `damaged <blob|version|package> <skin> v<n> <path or row>: <reason>` (`-` v0 for what belongs to no \
            live version), and a summary on standard error; --json prints one JSON object instead. Exit status: 0 \
            clean, 1 anything damaged, 2 unusable input (no store there, an unusable URI) or an unreachable store.
            """)

    @Option(
        help: ArgumentHelp(
            "The data folder (default: LIVERY_DATA_DIR, else `data`).", valueName: "dir"))
    var dataDir: String?

    @Option(
        help: ArgumentHelp(
            "Check the PostgreSQL store at this URI instead of DIR/store (default: LIVERY_STORE).",
            valueName: "postgres-uri"))
    var store: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the PostgreSQL password (default: LIVERY_STORE_PASSWORD_FILE).", valueName: "path"))
    var storePasswordFile: String?

    @Flag(help: "Print one JSON object: what was checked and every damage.")
    var json = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let dataDirectory = Self.nonEmpty(dataDir) ?? Self.nonEmpty(environment["LIVERY_DATA_DIR"]) ?? "data"
        var report: StoreScrubReport
        if let uri = Self.nonEmpty(store) ?? Self.nonEmpty(environment["LIVERY_STORE"]) {
            let passwordFile =
                Self.nonEmpty(storePasswordFile) ?? Self.nonEmpty(environment["LIVERY_STORE_PASSWORD_FILE"])
            let configuration: PostgresConfiguration
            do {
                configuration = try PostgresConfiguration(uri: uri, passwordFile: passwordFile)
            } catch {
                CommandInput.fail(
                    "--store \(PostgresConfiguration.redact(uri)): \(error)",
                    fix: "Give a postgres:// or postgresql:// URI and a readable password file.")
            }
            do throws(StoreError) {
                report = try await PostgresSkinStore.scrub(configuration, exclusive: false) ?? StoreScrubReport()
            } catch {
                CommandInput.fail(
                    "store \(configuration.redactedURI): \(error)",
                    fix: "Check that PostgreSQL is up and the URI is right.")
            }
        } else {
            let directory = dataDirectory + "/store"
            do throws(StoreError) {
                report = try FileSkinStore.scrub(directory: directory)
            } catch {
                CommandInput.fail(
                    "no store to verify in \(directory): \(error)",
                    fix:
                        "Give the data folder of the server with --data-dir (or LIVERY_DATA_DIR), or --store for PostgreSQL."
                )
            }
        }
        report.merge(PackageCache.scrub(directory: dataDirectory + "/packages"))

        if json {
            CommandInput.writeStandardOutput(Self.json(report) + [UInt8(ascii: "\n")])
        } else {
            CommandInput.writeStandardOutput(Array(report.damages.map { $0.line + "\n" }.joined().utf8))
            let verdict = report.isClean ? "clean" : "\(report.damages.count) damaged"
            CommandInput.writeStandardError(
                Array(
                    "checked \(report.checkedBlobs) blobs, \(report.checkedVersions) versions, \(report.checkedPackages) packages: \(verdict)\n"
                        .utf8))
        }
        if !report.isClean { Foundation.exit(1) }
    }

    /// `{"clean":…,"checked":{"blobs":…,"versions":…,"packages":…},"damaged":[{kind, skin, version, location, reason}]}`.
    static func json(_ report: StoreScrubReport) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw(#"{"clean":"#.utf8)
        writer.bool(report.isClean)
        writer.raw(#","checked":{"blobs":"#.utf8)
        writer.number(report.checkedBlobs)
        writer.raw(#","versions":"#.utf8)
        writer.number(report.checkedVersions)
        writer.raw(#","packages":"#.utf8)
        writer.number(report.checkedPackages)
        writer.raw(#"},"damaged":["#.utf8)
        for (index, damage) in report.damages.enumerated() {
            if index > 0 { writer.raw(",".utf8) }
            writer.raw(#"{"kind":"#.utf8)
            writer.string(damage.kind.rawValue)
            writer.raw(#","skin":"#.utf8)
            writer.string(damage.skinID)
            writer.raw(#","version":"#.utf8)
            writer.number(damage.version)
            writer.raw(#","location":"#.utf8)
            writer.string(damage.location)
            writer.raw(#","reason":"#.utf8)
            writer.string(damage.reason)
            writer.raw("}".utf8)
        }
        writer.raw("]}".utf8)
        return writer.bytes
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
