import ArgumentParser
import Foundation
import LiveryJSON

/// `livery health ID`: what phones reported about a skin, per version (`GET /admin/v1/skins/{id}/health`).
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract:
            "Show what phones reported about a skin: applied and failed devices per version, by stage and platform.",
        discussion: """
            Prints one line per version (newest first): devices that applied it, devices that failed and the \
            failure rate, failures by stage, then one indented line per platform. Counts are over the skin's \
            whole history, one per device, package and outcome. --json prints the server's answer.

            Exit status: 0 shown; 1 refused by the server (no such skin); 2 bad arguments or LIVERY_TOKEN unset; \
            3 server unreachable or failing.
            """)

    @Argument(help: "The skin id.")
    var id: String

    @Flag(help: "Print the server's JSON answer.")
    var json = false

    @OptionGroup var server: ServerOptions

    func run() throws {
        try OpsCommand.run { () throws(AdminClientError) in
            let answer = try server.session().call("GET", "/skins/\(OpsCommand.queryValue(id))/health").json
            if json {
                CommandInput.writeStandardOutput(answer.serialized(.pretty))
            } else {
                OpsCommand.print(Self.table(answer.objectValue).joined(separator: "\n"))
            }
        }
    }

    /// The lines of the table for a `/health` answer.
    static func table(_ answer: JSONObject?) -> [String] {
        let versions = answer?["versions"]?.arrayValue ?? []
        guard !versions.isEmpty else { return ["no reports yet"] }
        var lines = [pad(["VERSION", "APPLIED", "FAILED", "RATE", "BY STAGE"])]
        for case .object(let version) in versions {
            lines.append(row("v\(version["version"]?.intValue ?? 0)", version))
            for platform in (version["byPlatform"]?.objectValue ?? JSONObject()) {
                guard let counts = platform.value.objectValue else { continue }
                lines.append(row("  " + platform.key, counts))
            }
        }
        return lines
    }

    private static func row(_ label: String, _ counts: JSONObject) -> String {
        let applied = counts["applied"]?.intValue ?? 0
        let failed = counts["failed"]?.intValue ?? 0
        let total = applied + failed
        let rate = total == 0 ? "-" : String(format: "%.1f%%", Double(failed) * 100 / Double(total))
        let stages = (counts["failedByStage"]?.objectValue ?? JSONObject()).map {
            "\($0.key)=\($0.value.intValue ?? 0)"
        }
        return pad([label, String(applied), String(failed), rate, stages.isEmpty ? "-" : stages.joined(separator: " ")])
    }

    private static func pad(_ columns: [String]) -> String {
        let widths = [12, 9, 8, 8]
        return columns.enumerated().map { index, text in
            index < widths.count
                ? text.padding(toLength: max(widths[index], text.count + 1), withPad: " ", startingAt: 0) : text
        }.joined()
    }
}
