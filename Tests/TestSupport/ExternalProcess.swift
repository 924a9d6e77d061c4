import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs programs the tests did not write (python3, unzip, bsdtar, sha256sum, the built `livery`) to completion,
/// without blocking Swift's cooperative pool.
///
/// The child is started and waited for on threads of its own (one waiting for its exit, one per output stream),
/// and `run` suspends until it is done: the pool's few threads stay free for the async handlers of the servers
/// other suites run meanwhile. A child still running after the timeout is killed with SIGKILL and `run` throws
/// `Failure.timedOut`, so a hung tool fails its test instead of hanging the whole run.
public enum ExternalProcess {
    /// How long `run` waits for a child unless told otherwise: far above what any tool here needs on a loaded
    /// two-core machine, and still bounded.
    public static let defaultTimeout: Duration = .seconds(60)

    /// What a finished child printed and how it ended.
    public struct Output: Sendable {
        /// The exit status; when a signal ended the child, 128 + the signal number (as a shell reports it).
        public var status: Int32
        /// Everything the child wrote to standard output, decoded as UTF-8 (invalid bytes replaced).
        public var standardOutput: String
        /// Everything the child wrote to standard error, decoded as UTF-8 (invalid bytes replaced).
        public var standardError: String

        /// The status and both streams, for failure messages.
        public var transcript: String { "exit \(status)\nstdout: \(standardOutput)\nstderr: \(standardError)" }
    }

    /// Why `run` returned no `Output`.
    public enum Failure: Error, CustomStringConvertible {
        /// The program could not be started (no file at that path, or not executable).
        case launchFailed(command: String, reason: String)
        /// The child was still running when the timeout passed; it was killed. Holds what it had printed.
        case timedOut(command: String, timeout: Duration, partialOutput: String)
        /// The child exited but its output did not end by the timeout, or 5 s after the exit if that is later
        /// (a grandchild kept the pipes open).
        case outputNeverEnded(command: String)

        public var description: String {
            switch self {
            case .launchFailed(let command, let reason): "could not start `\(command)`: \(reason)"
            case .timedOut(let command, let timeout, let partialOutput):
                "`\(command)` still ran after \(timeout) and was killed; it had printed: \(partialOutput)"
            case .outputNeverEnded(let command): "`\(command)` exited but its output streams stayed open"
            }
        }
    }

    /// Runs `executable` with `arguments` and waits (suspended, off the pool) until it exits.
    ///
    /// - Parameters:
    ///   - executable: an absolute path, or a name looked up on `PATH` (through `/usr/bin/env`; a name not found
    ///     there ends with status 127, as in a shell).
    ///   - arguments: passed as they are, with no shell in between.
    ///   - timeout: how long the child may run before it is killed with SIGKILL (`defaultTimeout`, 60 s).
    /// - Returns: the exit status and both output streams, read in full. Standard input is empty.
    /// - Throws: `Failure` when the child cannot start, outlives `timeout`, or leaves its output open.
    public static func run(
        _ executable: String, _ arguments: [String], timeout: Duration = defaultTimeout
    ) async throws(Failure) -> Output {
        let result: Result<Output, Failure> = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(
                    returning: Result { () throws(Failure) -> Output in
                        try runToCompletion(executable, arguments, timeout: timeout)
                    })
            }.start()
        }
        return try result.get()
    }

    /// `run` for callers that may block their thread (never a task on the cooperative pool): a `defer` cleanup,
    /// a thread of a test's own.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], timeout: Duration = defaultTimeout
    ) throws(Failure) -> Output {
        try runToCompletion(executable, arguments, timeout: timeout)
    }

    /// The blocking part of `run`; called only on a thread of its own.
    private static func runToCompletion(
        _ executable: String, _ arguments: [String], timeout: Duration
    ) throws(Failure) -> Output {
        let command = ([executable] + arguments.map { $0.count > 60 ? $0.prefix(57) + "..." : $0 })
            .joined(separator: " ")
        let (path, argv) =
            executable.hasPrefix("/")
            ? (executable, arguments) : ("/usr/bin/env", [executable] + arguments)
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess.launch(path, argv, output: .pipes)
        } catch {
            throw .launchFailed(command: command, reason: error.description)
        }
        let exited = DispatchSemaphore(value: 0)
        Thread {
            child.waitUntilExit()
            exited.signal()
        }.start()
        // Both streams are read while the child runs, so a chatty child never stalls on a full pipe.
        guard let outputHandle = child.standardOutput, let errorHandle = child.standardError else {
            throw .launchFailed(command: command, reason: "no pipes")
        }
        let output = StreamReader(outputHandle)
        let errors = StreamReader(errorHandle)
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + (Double(seconds) + Double(attoseconds) * 1e-18)
        guard exited.wait(timeout: deadline) == .success else {
            child.send(SIGKILL)
            _ = exited.wait(timeout: .now() + 10)
            // Its streams end with it (unless a grandchild holds them): take what it printed up to its death.
            _ = output.text(endingBy: .now() + 2)
            _ = errors.text(endingBy: .now() + 2)
            throw .timedOut(command: command, timeout: timeout, partialOutput: output.textSoFar + errors.textSoFar)
        }
        // Once the child is gone its streams end, unless a grandchild inherited them; that wait is bounded too.
        let streamsDeadline = max(deadline, DispatchTime.now() + 5)
        guard let standardOutput = output.text(endingBy: streamsDeadline),
            let standardError = errors.text(endingBy: streamsDeadline)
        else { throw .outputNeverEnded(command: command) }
        // A shell's convention: the exit code, or 128 + the signal that ended the child.
        let ended = child.terminationStatus ?? 0
        let status = child.endedBySignal ? 128 + ended : ended
        return Output(status: status, standardOutput: standardOutput, standardError: standardError)
    }
}

/// Reads one pipe to its end on a thread of its own.
private final class StreamReader: Sendable {
    private let collected = Mutex(Data())
    private let ended = DispatchSemaphore(value: 0)

    /// Starts reading `handle`, which the reader keeps open until the stream ends.
    init(_ handle: FileHandle) {
        Thread { [self] in
            // read(2) hands over whatever has arrived (FileHandle's read(upToCount:) waits for the full count, so a
            // child killed at the timeout would show nothing). An error ends the stream like end of file does.
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                collected.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
            withExtendedLifetime(handle) {}
            ended.signal()
        }.start()
    }

    /// What has arrived so far (for the message of a child that timed out).
    var textSoFar: String { collected.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Everything, once the stream has ended; nil if it has not ended by `deadline`.
    func text(endingBy deadline: DispatchTime) -> String? {
        guard ended.wait(timeout: deadline) == .success else { return nil }
        return textSoFar
    }
}
