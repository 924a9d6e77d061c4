import TestSupport

/// Checks made with programs the tests did not write.
enum ExternalTool {
    /// The lowercase hex SHA-256 of the file at `path`, computed by coreutils' `sha256sum`.
    static func sha256(ofFile path: String) async throws -> String {
        let run = try await ExternalProcess.run("sha256sum", [path])
        guard run.status == 0, let digest = run.standardOutput.split(separator: " ").first else {
            throw ToolFailure("sha256sum failed: \(run.transcript)")
        }
        return String(digest)
    }
}

/// A tool failed in a way that makes the test meaningless.
struct ToolFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
