import Foundation

/// Executables of this package that `swift build --build-tests` puts beside the test binary (`livery`,
/// `zip-bench`, `store-torture`), for tests that run the real thing.
///
/// Looked up, in order: an environment variable naming the file (for example `LIVERY_BINARY`), then the folder of
/// the running test executable (Linux runs `.build/<triple>/debug/<Package>PackageTests.xctest` itself), then
/// beside any loaded `.xctest` bundle (macOS). A product that is not found is an error, never a skipped test.
public enum BuiltProduct {
    /// Why a product could not be found: every place that was searched.
    public struct NotFound: Error, CustomStringConvertible {
        public let product: String
        public let searched: [String]
        public var description: String {
            "no executable '\(product)' in \(searched); run `swift build --build-tests` first"
        }
    }

    /// The path of the built executable `name`.
    ///
    /// - Parameter environmentOverride: an environment variable that, when set, names the executable to use.
    public static func path(_ name: String, environmentOverride: String? = nil) throws(NotFound) -> String {
        var candidates: [String] = []
        if let variable = environmentOverride, let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty {
            candidates.append(path)
        }
        for folder in buildFolders { candidates.append(folder.appendingPathComponent(name).path) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw NotFound(product: name, searched: candidates)
        }
        return found
    }

    /// The built `livery`, or the one the `LIVERY_BINARY` environment variable names: the one place tests find the
    /// real binary (`livery serve` children and CLI runs alike).
    public static func livery() throws(NotFound) -> String {
        try path("livery", environmentOverride: "LIVERY_BINARY")
    }

    /// Runs the built `livery arguments…` to completion, off the cooperative pool, and returns its status and output.
    public static func runLivery(
        _ arguments: [String], timeout: Duration = ExternalProcess.defaultTimeout
    ) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run(try livery(), arguments, timeout: timeout)
    }

    private static var buildFolders: [URL] {
        var folders: [URL] = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        ]
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        var seen = Set<String>()
        return folders.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }
}
