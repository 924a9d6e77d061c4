import Foundation
import Testing
import TestSupport

/// The `livery` executable that `swift build --build-tests` (and so `swift test`) puts beside the test bundle.
enum LiveryCommand {
    /// Folders the test product may live in: beside the running test executable (Linux runs
    /// `.build/<triple>/debug/LiveryPackageTests.xctest` itself) or beside a loaded `.xctest` bundle (macOS).
    private static var buildDirectories: [URL] {
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        return folders
    }

    /// The path of the built binary; fails the test (it does not skip) when it has not been built.
    static func path(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let candidates = buildDirectories.map { $0.appendingPathComponent("livery").path }
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "no livery binary beside the tests in \(candidates); run `swift build --build-tests`",
            sourceLocation: sourceLocation)
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
