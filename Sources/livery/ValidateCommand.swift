import ArgumentParser
import Foundation
import LiveryJSON
import SkinDirectory
import SkinModel

/// `livery validate DIR [--base FILE] [--json]`: checks a skin folder and prints every problem with its place
/// and fix. Exit status 0 valid (warnings allowed), 1 invalid, 2 unusable input.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a skin folder and print every problem with its file, JSON pointer and fix.",
        discussion: """
            Exit status: 0 when the skin is valid (warnings allowed), 1 when it has errors, 2 when the input \
            is unusable (the folder is missing or unreadable, or the --base file cannot be read or parsed).
            """)

    @Argument(help: "The skin folder (holding skin.json, config.json and the assets).")
    var directory: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The app's base config (its localConfig.json) to report coverage against.", valueName: "file"))
    var base: String?

    @Flag(name: .long, help: "Print the report as JSON instead of text.")
    var json = false

    @Option(name: .long, help: "Largest single file in bytes (default 16 MiB).")
    var maxFileBytes = ValidationLimits.standard.maxFileBytes

    @Option(name: .long, help: "Largest total of all files in bytes (default 128 MiB).")
    var maxTotalBytes = ValidationLimits.standard.maxTotalBytes

    @Option(name: .long, help: "Most files in a skin (default 10000).")
    var maxFileCount = ValidationLimits.standard.maxFileCount

    func validate() throws {
        guard maxFileBytes > 0, maxTotalBytes > 0, maxFileCount > 0 else {
            throw ValidationError("--max-file-bytes, --max-total-bytes and --max-file-count must be positive.")
        }
    }

    func run() throws {
        var baseDocument: JSONValue?
        if let base {
            switch CommandInput.loadJSON(path: base) {
            case .success(let document):
                guard document.objectValue != nil else {
                    CommandInput.fail(
                        "\(base): the base config must be a JSON object of modules, not a \(document.kindName).",
                        fix: "Pass the app's localConfig.json, shaped like config.json.")
                }
                baseDocument = document
            case .failure(let problem):
                CommandInput.fail(problem.message, fix: problem.fix)
            }
        }
        let limits = ValidationLimits(
            maxFileBytes: maxFileBytes, maxTotalBytes: maxTotalBytes, maxFileCount: maxFileCount)
        let report = SkinValidator(limits: limits).validate(DirectorySkinSource(path: directory), base: baseDocument)
        if json {
            CommandInput.writeStandardOutput(report.jsonValue.serialized(.pretty))
        } else if report.sourceWasUnreadable {
            CommandInput.writeStandardError(Array(report.renderedText(name: directory).utf8))
        } else {
            CommandInput.writeStandardOutput(Array(report.renderedText(name: directory).utf8))
        }
        if report.sourceWasUnreadable { throw ExitCode(2) }
        if !report.isValid { throw ExitCode(1) }
    }
}

/// Small I/O helpers shared by the skin commands: reading a JSON file with located errors, and writing output.
enum CommandInput {
    struct Problem: Error {
        var message: String
        var fix: String
    }

    /// Reads and strictly parses the JSON file at `path`; errors name the file (and line and column).
    static func loadJSON(path: String) -> Result<JSONValue, Problem> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(
                Problem(message: "\(path): cannot read the file.", fix: "Check the path and its permissions."))
        }
        do {
            return .success(try JSONValue.parse([UInt8](data)))
        } catch {
            return .failure(
                Problem(
                    message: "\(path):\(error.line):\(error.column): not valid JSON: \(error.message).",
                    fix: "Fix the file at line \(error.line), column \(error.column) so it is strict JSON."))
        }
    }

    /// Prints `message` and `fix` to standard error and exits with status 2 (unusable input).
    static func fail(_ message: String, fix: String) -> Never {
        writeStandardError(Array("livery: \(message)\n  fix: \(fix)\n".utf8))
        Foundation.exit(2)
    }

    static func writeStandardOutput(_ bytes: [UInt8]) { FileHandle.standardOutput.write(Data(bytes)) }
    static func writeStandardError(_ bytes: [UInt8]) { FileHandle.standardError.write(Data(bytes)) }
}
