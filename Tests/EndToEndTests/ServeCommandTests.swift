import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery serve` as a real process: flags, environment, the listening line, signals and exit codes.
@Suite struct ServeCommandTests {
    @Test func servesHealthzOnAFreePortAndExitsZeroOnSIGTERM() async throws {
        try await blocking {
            let livery = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"])
            let response = try RawHTTP.get(port: livery.port, path: "/healthz")
            #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.hasSuffix("\r\n\r\n{\"status\":\"ok\"}"))
            #expect(livery.address.hasPrefix("127.0.0.1:"))
            #expect(try livery.stop(signal: SIGTERM) == 0)
            // One log line per request, with its id in the metadata and without the query.
            #expect(livery.output.contains("GET /healthz 200 "))
            #expect(livery.output.contains("request.id="))
        }
    }

    @Test func exitsZeroOnSIGINT() async throws {
        try await blocking {
            let livery = try LiveryProcess.start([
                "serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"
            ])
            #expect(try RawHTTP.get(port: livery.port, path: "/healthz").hasPrefix("HTTP/1.1 200 "))
            #expect(try livery.stop(signal: SIGINT) == 0)
            #expect(!livery.output.contains("GET /healthz"), "request lines are info, below warning")
        }
    }

    @Test func readsHostAndPortFromTheEnvironment() async throws {
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve"], environment: ["LIVERY_HOST": "127.0.0.1", "LIVERY_PORT": "0"])
            #expect(livery.address.hasPrefix("127.0.0.1:"))
            #expect(try RawHTTP.get(port: livery.port, path: "/healthz").hasPrefix("HTTP/1.1 200 "))
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func flagsWinOverTheEnvironment() async throws {
        try await blocking {
            // Environment values that would fail on their own are never looked at when flags are given.
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"],
                environment: ["LIVERY_HOST": "203.0.113.1", "LIVERY_PORT": "not-a-port"])
            #expect(livery.address.hasPrefix("127.0.0.1:"))
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func rejectsAnInvalidPortFromTheEnvironment() async throws {
        try await blocking {
            let result = try LiveryProcess.run(["serve", "--host", "127.0.0.1"], environment: ["LIVERY_PORT": "eighty"])
            #expect(result.status != 0)
            #expect(result.status == 2)
            #expect(result.output.contains("LIVERY_PORT='eighty': the port must be a whole number"))
        }
    }

    @Test func rejectsAnOutOfRangePort() async throws {
        try await blocking {
            let result = try LiveryProcess.run(["serve", "--host", "127.0.0.1", "--port", "70000"])
            #expect(result.status != 0)
            #expect(result.output.contains("from 0 to 65535"))
        }
    }

    @Test func failsCleanlyWhenThePortIsTaken() async throws {
        try await blocking {
            let first = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"])
            let second = try LiveryProcess.run(["serve", "--host", "127.0.0.1", "--port", "\(first.port)"])
            #expect(second.status != 0)
            #expect(second.output.contains("already in use"))
            #expect(try first.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func aSIGTERMDuringTheFirstImportExitsZeroAndTheNextStartImportsTheRest() async throws {
        try await blocking {
            let scratch = try ScratchDirectory(prefix: "livery-stop-loading")
            let skins = scratch.path("skins")
            try FileManager.default.createDirectory(atPath: skins, withIntermediateDirectories: true)
            // Enough skins that importing them and building their packages takes far longer than a signal.
            let ids = (1...24).map { "christmas-copy-\($0)" }
            for id in ids {
                let sample = LiveryProcess.repository.appendingPathComponent("skins/christmas-2026").path
                try FileManager.default.copyItem(atPath: sample, toPath: skins + "/" + id)
                let manifestPath = skins + "/" + id + "/skin.json"
                var manifest = try #require(
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
                        as? [String: Any])
                manifest["id"] = id
                try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: manifestPath))
            }
            let environment = ["LIVERY_SKINS_DIR": skins, "LIVERY_DATA_DIR": scratch.path("data")]
            let first = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: environment)
            #expect(try first.stop(signal: SIGTERM) == 0)
            #expect(first.output.contains("stopped before the catalog was loaded"), "\(first.output)")
            #expect(!first.output.contains("catalog loaded"))

            let second = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: environment)
            try second.waitUntilReady()
            // Written before /readyz answers 200, read from the pipe by another thread: waited for, not raced.
            #expect(AdminServeTests.eventually(seconds: 60) { second.output.contains("catalog loaded") })
            let imported = Self.loggedCount("skins.imported", in: second.output)
            let alreadyStored = Self.loggedCount("skins.already_stored", in: second.output)
            #expect(imported + alreadyStored == ids.count, "\(second.output)")
            #expect(imported > 0, "the first start stopped before the end of its import")
            #expect(Self.loggedCount("skins.stored", in: second.output) == ids.count, "\(second.output)")
            #expect(try second.stop(signal: SIGTERM) == 0)
        }
    }

    /// The number logged as `key=<n>` in `output` (0 when absent).
    static func loggedCount(_ key: String, in output: String) -> Int {
        guard let range = output.range(of: key + "=") else { return 0 }
        return Int(output[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    @Test func servesTheBenchmarkBodyOnlyWhenAsked() async throws {
        try await blocking {
            let scratch = try ScratchDirectory(prefix: "livery-bench")
            let file = try scratch.write("bench.json", Array(#"{"bench":true}"#.utf8))
            let withBody = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0", "--bench-body", file]
            )
            let response = try RawHTTP.get(port: withBody.port, path: "/bench")
            #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.contains("Content-Type: application/json\r\n"))
            #expect(response.hasSuffix(#"{"bench":true}"#))
            #expect(try withBody.stop(signal: SIGTERM) == 0)

            let without = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"])
            #expect(try RawHTTP.get(port: without.port, path: "/bench").hasPrefix("HTTP/1.1 404 "))
            #expect(try without.stop(signal: SIGTERM) == 0)
        }
    }
}

struct E2EError: Error, CustomStringConvertible {
    let description: String
}

/// The `livery` binary built next to this test bundle, run as a child process.
final class LiveryProcess: @unchecked Sendable {
    // Invariant: `collected`, `collectedError`, `collectedStandardOutput`, the addresses and `drainedStreams` are
    // guarded by `lock`; `process` is set once in `launch`, before the value is shared; the rest in `init`.
    private var process: SpawnedProcess?
    private let executable: String
    private let arguments: [String]
    private let environment: [String: String]
    private let directory: String?
    /// Holds the process's default data folder (`data` inside it, made by livery), removed with this value.
    private let scratch: ScratchDirectory
    private let lock = NSLock()
    private var collected = Data()
    private var collectedError = Data()
    private let listening = DispatchSemaphore(value: 0)
    /// Signalled once by each reader thread at the end of its stream.
    private let drained = DispatchSemaphore(value: 0)
    private var drainedStreams = false
    private var listeningAddress = ""
    private var metricsListeningAddress = ""

    /// The address of the `LIVERY_LISTENING` line (text or JSON log format).
    var address: String { lock.withLock { listeningAddress } }
    /// The address of the `LIVERY_METRICS_LISTENING` line, empty without --metrics-port.
    var metricsAddress: String { lock.withLock { metricsListeningAddress } }
    var port: Int { Int(address.split(separator: ":").last ?? "") ?? 0 }
    var metricsPort: Int { Int(metricsAddress.split(separator: ":").last ?? "") ?? 0 }
    /// Standard output and standard error, interleaved as they arrived.
    var output: String { lock.withLock { String(decoding: collected, as: UTF8.self) } }
    /// Standard error alone.
    var errorOutput: String { lock.withLock { String(decoding: collectedError, as: UTF8.self) } }
    /// Standard output alone.
    var standardOutput: String {
        lock.withLock { String(decoding: collectedStandardOutput, as: UTF8.self) }
    }
    private var collectedStandardOutput = Data()
    var processIdentifier: Int32 { process?.pid ?? 0 }
    var isRunning: Bool { process?.isRunning ?? false }

    /// The repository root (this file is Tests/EndToEndTests/ServeCommandTests.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `livery` (or the one `LIVERY_BINARY` names).
    static var binary: URL {
        get throws { URL(fileURLWithPath: try BuiltProduct.livery()) }
    }

    private init(
        arguments: [String], environment: [String: String], directory: String?,
        descriptorLimit: (soft: Int, hard: Int)? = nil
    ) throws {
        scratch = try ScratchDirectory(prefix: "livery-e2e")
        if let descriptorLimit {
            // The shell sets the limits and then becomes livery (exec), so the pid is livery's.
            executable = "/bin/sh"
            self.arguments =
                [
                    "-c",
                    "ulimit -Sn \(descriptorLimit.soft) && ulimit -Hn \(descriptorLimit.hard) && exec \"$0\" \"$@\"",
                    try Self.binary.path
                ] + arguments
        } else {
            executable = try Self.binary.path
            self.arguments = arguments
        }
        self.directory = directory
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIVERY_") }
        // Never write state into the working tree: each process gets a fresh data folder, and the sample skins.
        merged["LIVERY_DATA_DIR"] = scratch.path("data")
        merged["LIVERY_SKINS_DIR"] = Self.repository.appendingPathComponent("skins").path
        merged.merge(environment) { $1 }
        self.environment = merged
    }

    /// Starts `livery` and waits (up to 20 s) for its `LIVERY_LISTENING` line; with `descriptorLimit`, under that
    /// open-file limit (`RLIMIT_NOFILE`, soft and hard).
    static func start(
        _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
        descriptorLimit: (soft: Int, hard: Int)? = nil
    ) throws -> LiveryProcess {
        let livery = try LiveryProcess(
            arguments: arguments, environment: environment, directory: directory, descriptorLimit: descriptorLimit)
        try livery.launch()
        guard livery.listening.wait(timeout: .now() + 20) == .success else {
            livery.process?.terminate()
            throw E2EError(description: "livery did not report listening: \(livery.output)")
        }
        return livery
    }

    /// How long a start may take to get ready before a test fails: a bound on a hang, not a speed check. The
    /// first start imports the skins folder and builds its packages, which took 14 s in a CI run whose tests were
    /// queuing for the machine's two cores for 90 s.
    static let readinessBound: Double = 180

    /// Waits (bounded: up to `seconds`) until `/readyz` on 127.0.0.1:`port` answers 200: the one readiness wait of
    /// these tests, whoever started the server.
    static func waitUntilReady(port: Int, seconds: Double = readinessBound) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let client = try? TestClient(port: port), let response = try? client.get("/readyz"),
                response.status == 200
            {
                return
            }
            usleep(10_000)
        }
        throw E2EError(description: "livery did not become ready within \(seconds) s")
    }

    /// Waits (up to `seconds`) until this process answers `/readyz` with 200.
    func waitUntilReady(seconds: Double = readinessBound) throws {
        try Self.waitUntilReady(port: port, seconds: seconds)
    }

    /// Runs `livery` to completion (up to 20 s) and returns its exit status and combined output.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: String? = nil
    ) throws -> (status: Int32, output: String) {
        let result = try runSeparately(arguments, environment: environment, directory: directory)
        return (result.status, result.output)
    }

    /// Runs `livery` to completion (up to 20 s) and returns its exit status and each output stream.
    static func runSeparately(
        _ arguments: [String], environment: [String: String] = [:], directory: String? = nil
    ) throws -> (status: Int32, output: String, standardOutput: String, standardError: String) {
        let livery = try LiveryProcess(arguments: arguments, environment: environment, directory: directory)
        try livery.launch()
        let status = try livery.waitForExit(seconds: 20)
        return (status, livery.output, livery.standardOutput, livery.errorOutput)
    }

    private func launch() throws {
        let process = try SpawnedProcess.launch(
            executable, arguments, environment: environment, directory: directory, output: .pipes)
        self.process = process
        guard let outputHandle = process.standardOutput, let errorHandle = process.standardError else {
            throw E2EError(description: "livery started without its output pipes")
        }
        // One reader thread per stream, until end of file: once both are done, every byte the process wrote has
        // been taken, whatever the machine's load (a fixed sleep after exit was not enough under load).
        for (handle, isError) in [(outputHandle, false), (errorHandle, true)] {
            // Weak: a test that fails before stopping the process must still reach `deinit`, which terminates it.
            // read(2) with EINTR retried (FileHandle's availableData traps on EINTR).
            Thread { [weak self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    self?.take(Data(buffer[0..<count]), fromStandardError: isError)
                }
                withExtendedLifetime(handle) {}
                self?.drained.signal()
            }.start()
        }
    }

    private func take(_ data: Data, fromStandardError: Bool) {
        guard !data.isEmpty else { return }
        let announced: Bool = lock.withLock {
            collected.append(data)
            if fromStandardError {
                collectedError.append(data)
                return false
            }
            collectedStandardOutput.append(data)
            guard listeningAddress.isEmpty else { return false }
            let text = String(decoding: collectedStandardOutput, as: UTF8.self)
            // The line is `LIVERY_LISTENING <address>` in text format and a JSON record's message in JSON format.
            if metricsListeningAddress.isEmpty, let found = Self.announcedAddress("LIVERY_METRICS_LISTENING ", in: text)
            {
                metricsListeningAddress = found
            }
            guard let found = Self.announcedAddress("LIVERY_LISTENING ", in: text) else { return false }
            listeningAddress = found
            return true
        }
        if announced { listening.signal() }
    }

    /// The address after `marker` on a complete line of `text`, up to a space, quote or line end.
    static func announcedAddress(_ marker: String, in text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let range = line.range(of: marker) else { continue }
            if range.lowerBound != line.startIndex, line[line.index(before: range.lowerBound)] != "\"" { continue }
            let address = line[range.upperBound...].prefix { $0 != "\"" && $0 != " " && $0 != "\r" }
            if !address.isEmpty { return String(address) }
        }
        return nil
    }

    /// The child's process id (for signals sent without waiting, such as SIGHUP or a SIGKILL from a timer).
    var pid: Int32 { processIdentifier }

    func waitForExit(seconds: Double) throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            guard Date() < deadline else {
                process?.terminate()
                throw E2EError(description: "livery did not exit: \(output)")
            }
            usleep(10_000)
        }
        // Both streams reach end of file once the process is gone; take everything before answering.
        if !lock.withLock({ drainedStreams }) {
            for _ in 0..<2 {
                guard drained.wait(timeout: .now() + 10) == .success else {
                    throw E2EError(description: "livery's output did not end after it exited")
                }
            }
            lock.withLock { drainedStreams = true }
        }
        return process?.terminationStatus ?? -1
    }

    /// Sends `signal` and returns the exit status.
    func stop(signal: Int32) throws -> Int32 {
        process?.send(signal)
        return try waitForExit(seconds: 20)
    }

    deinit { process?.terminateInBackground() }
}

/// The waits of `LiveryProcess` for async tests: the same waits run through `blocking`, so a test awaiting its
/// server's exit or readiness holds no thread of the cooperative pool (two on CI) while it polls. In an async
/// function these are the ones chosen; a `defer` or a `blocking` closure still calls the synchronous ones.
extension LiveryProcess {
    /// Sends `signal` and returns the exit status (`stop(signal:)`, off the pool).
    func stop(signal: Int32) async throws -> Int32 {
        try await blocking { try self.stop(signal: signal) }
    }

    /// Waits (up to `seconds`) until this process answers `/readyz` with 200 (off the pool).
    func waitUntilReady(seconds: Double = readinessBound) async throws {
        try await blocking { try self.waitUntilReady(seconds: seconds) }
    }

    /// Waits (up to `seconds`) for the process to exit and returns its status (off the pool).
    func waitForExit(seconds: Double) async throws -> Int32 {
        try await blocking { try self.waitForExit(seconds: seconds) }
    }

    /// Runs `livery` to completion (up to 20 s; off the pool) and returns its exit status and combined output.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: String? = nil
    ) async throws -> (status: Int32, output: String) {
        try await blocking { try run(arguments, environment: environment, directory: directory) }
    }
}

/// One HTTP/1.1 request over a raw socket to 127.0.0.1, read until the server closes.
enum RawHTTP {
    static func get(port: Int, path: String) throws -> String {
        let client = try TestClient(port: port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        return String(decoding: try client.readUntilClosed(), as: UTF8.self)
    }
}
