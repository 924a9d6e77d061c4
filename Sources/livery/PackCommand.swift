import ArgumentParser
import Foundation
import SkinDirectory
import SkinModel
import SkinPackage

/// `livery pack DIR -o out.zip [--scale 1|2|3] [--appearance light|dark|any]`: validates a skin folder and writes one
/// deterministic package variant, printing its SHA-256, size and sign.
struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Validate a skin folder and write one deterministic zip package variant.",
        discussion: """
            Only a valid skin is packed; an invalid one prints its validation report and exits 1. The archive \
            is byte-identical for the same skin and variant, so its SHA-256 is its identity. Exit status: 0 \
            packed, 1 invalid skin, 2 unusable input or output.
            """)

    @Argument(help: "The skin folder (holding skin.json, config.json and the assets).")
    var directory: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Where to write the zip.", valueName: "file"))
    var output: String

    @Option(name: .long, help: "Keep only this image scale, falling back to the nearest available (1, 2 or 3).")
    var scale = 3

    @Option(
        name: .long,
        help:
            "The appearance whose overrides the package's config.json carries (light or dark), or any: both configs (config.json light, config-dark.json dark) and every file either needs."
    )
    var appearance = "light"

    @Flag(name: .long, help: "Print the result as one JSON object.")
    var json = false

    func validate() throws {
        guard (1...3).contains(scale) else { throw ValidationError("--scale must be 1, 2 or 3.") }
        guard PackageAppearance(rawValue: appearance) != nil else {
            throw ValidationError("--appearance must be light, dark or any.")
        }
    }

    func run() throws {
        guard let appearance = PackageAppearance(rawValue: appearance),
            let variant = PackageVariant(scale: scale, contents: appearance)
        else { throw ExitCode(2) }
        let source = DirectorySkinSource(path: directory)
        let report = SkinValidator().validate(source)
        guard let skin = report.skin else {
            // With --json the report goes to standard output as JSON, as `livery validate --json` does, so scripts
            // parse one format from one stream whatever went wrong.
            if json {
                CommandInput.writeStandardOutput(report.jsonValue.serialized(.pretty))
            } else if report.sourceWasUnreadable {
                CommandInput.writeStandardError(Array(report.renderedText(name: directory).utf8))
            } else {
                CommandInput.writeStandardOutput(Array(report.renderedText(name: directory).utf8))
            }
            throw ExitCode(report.sourceWasUnreadable ? 2 : 1)
        }
        // Hashing for the sign and writing the archive read the same files independently: run them side by side.
        let hashing = ConcurrentResult { () throws(SkinPackageError) in try SkinPackager(skin: skin, source: source) }
        do {
            let summary = try SkinPackager.build(variant, of: skin, from: source, to: output)
            let sign = try hashing.value().sign(for: variant)
            let line =
                json
                ? #"{"sha256":"\#(summary.sha256)","size":\#(summary.size),"entries":\#(summary.entryCount),"sign":"\#(sign)","variant":"\#(variant)"}"#
                : "sha256 \(summary.sha256)\nsize \(summary.size)\nentries \(summary.entryCount)\nsign \(sign)\nvariant \(variant)"
            CommandInput.writeStandardOutput(Array((line + "\n").utf8))
        } catch {
            // The hashing thread must be done before the process exits: exit's OpenSSL clean-up racing a thread that
            // still hashes crashed `livery pack` (SIGSEGV in OpenSSL's lock) when the archive could not be written.
            _ = try? hashing.value()
            switch error {
            case .unreadable, .symbolicLink:
                CommandInput.fail(
                    "\(directory): \(error.description).",
                    fix: "Check that the skin's files are readable and not changed while packing.")
            case .invalidEntryName:
                CommandInput.fail(
                    "\(directory): \(error.description).",
                    fix: "Rename the file to a plain UTF-8 name without control characters.")
            case .writeFailed:
                CommandInput.fail(
                    "\(output): \(error.description)", fix: "Check that the output folder exists and is writable.")
            }
        }
    }
}

/// Runs a throwing computation on a thread of its own from the moment it is created; `value()` waits for it.
private final class ConcurrentResult<Value: Sendable, Failure: Error>: @unchecked Sendable {
    // Written once by the worker before `done` is signalled, read only after waiting on it.
    private var result: Result<Value, Failure>?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        let thread = Thread { [self] in
            result = Result(catching: work)
            done.signal()
        }
        thread.start()
    }

    func value() throws(Failure) -> Value {
        done.wait()
        done.signal()
        guard let result else { preconditionFailure("the worker signalled without a result") }
        return try result.get()
    }
}
