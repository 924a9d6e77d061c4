import Foundation
import Testing
import TestSupport

/// The `livery` executable that `swift build --build-tests` (and so `swift test`) puts beside the test bundle.
enum LiveryCommand {
    /// The path of the built binary; fails the test (it does not skip) when it has not been built.
    static func path(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try BuiltProduct.path("livery", environmentOverride: "LIVERY_BINARY")
    }

    /// Runs `livery arguments…` and waits for it, off the cooperative pool.
    static func run(
        _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run(try path(sourceLocation: sourceLocation), arguments)
    }

    /// The `key value` lines `livery pack` prints, as a dictionary.
    static func fields(of output: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }
}
