import Foundation
import TestSupport

/// Runs the built `livery-phone` as one app install and reads its one JSON line.
struct Phone {
    struct Run: CustomStringConvertible {
        var status: Int32
        var line: [String: Any]
        var standardOutput: String
        var standardError: String

        var skinID: String? { line["skinId"] as? String }
        var skinSign: String { line["skinSign"] as? String ?? "<missing>" }
        var themeID: String? { line["themeId"] as? String }
        var values: [String: Any] { line["values"] as? [String: Any] ?? [:] }
        var errorCode: String? { (line["error"] as? [String: Any])?["code"] as? String }
        func value(_ key: String) -> String? { values[key] as? String }
        var description: String { "exit \(status)\nstdout: \(standardOutput)\nstderr: \(standardError)" }
    }

    var server: String
    var storage: String
    var app = "kit"
    var platform = "ios"
    var appVersion = "7.2.0"
    var deviceID = "device-1"
    var publicKeys: [String] = []

    /// `livery-phone` with the common arguments plus `extra`.
    func run(_ extra: [String] = []) async throws -> Run {
        var arguments = [
            "--server", server, "--app", app, "--platform", platform, "--app-version", appVersion,
            "--device-id", deviceID, "--storage", storage
        ]
        for key in publicKeys { arguments += ["--public-key", key] }
        return try await Self.run(arguments + extra)
    }

    static func run(_ arguments: [String]) async throws -> Run {
        let output = try await ExternalProcess.run(try BuiltProduct.path("livery-phone"), arguments)
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        var line: [String: Any] = [:]
        if let first = lines.first, !first.isEmpty {
            line = (try? JSONSerialization.jsonObject(with: Data(first.utf8))) as? [String: Any] ?? [:]
        }
        return Run(
            status: output.status, line: line, standardOutput: output.standardOutput,
            standardError: output.standardError)
    }
}

/// Instants as the servers and the phone's `--at` read them.
func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

/// The folders under `path` (sorted), empty when it does not exist.
func listing(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}
