import Foundation

/// What a child process printed and how it ended.
struct ToolRun {
    var status: Int32
    var standardOutput: String
    var standardError: String

    /// Both streams, for failure messages.
    var transcript: String { "exit \(status)\nstdout: \(standardOutput)\nstderr: \(standardError)" }
}

/// Runs programs the tests did not write: the independent zip readers and the built `livery` binary.
enum ExternalTool {
    /// Runs `executable` (an absolute path, or a name looked up on `PATH`) with `arguments` and waits for it.
    static func run(_ executable: String, _ arguments: [String]) throws -> ToolRun {
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // stderr is drained on another thread so a chatty child cannot block on a full pipe while we read stdout.
        let errorData = ErrorCollector()
        let errorHandle = error.fileHandleForReading
        let reader = Thread { errorData.set(errorHandle.readDataToEndOfFile()) }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.wait(), as: UTF8.self))
    }

    /// The lowercase hex SHA-256 of the file at `path`, computed by coreutils' `sha256sum`.
    static func sha256(ofFile path: String) throws -> String {
        let run = try run("sha256sum", [path])
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

/// Data handed from the stderr reader thread to the waiting test.
private final class ErrorCollector: @unchecked Sendable {
    // Invariant: `data` is written once by the reader thread before `done` is signalled, and read only after.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    func set(_ value: Data) {
        data = value
        done.signal()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
