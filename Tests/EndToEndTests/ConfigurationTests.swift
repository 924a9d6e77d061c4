import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery serve`'s settings as a real process: precedence, and every way a start can fail (exit 2, one line on
/// standard error naming the setting, nothing on standard output).
@Suite(.serialized) struct ConfigurationTests {
    /// A scratch folder with a regular file (`plain-file`) and a folder (`folder`) in it, for the filesystem errors.
    static func scratch() throws -> ScratchDirectory {
        let scratch = try ScratchDirectory(prefix: "livery-config")
        try scratch.write("plain-file", Array("x".utf8))
        try scratch.write([:], under: "folder")
        return scratch
    }

    struct StartupError: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let environment: [String: String]
        /// The start of the message after `livery: `, naming the setting as it was given.
        let names: String
        let problem: String
        var testDescription: String { "\(arguments.joined(separator: " ")) \(environment) → \(names)" }

        init(_ arguments: [String], _ environment: [String: String] = [:], names: String, problem: String) {
            self.arguments = arguments
            self.environment = environment
            self.names = names
            self.problem = problem
        }
    }

    /// `@FILE`, `@FOLDER` and `@MISSING` stand for paths in the test's scratch folder.
    static let startupErrors: [StartupError] = [
        StartupError(
            ["--port", "eighty"], names: "--port 'eighty'", problem: "the port must be a whole number from 0 to 65535"),
        StartupError([], ["LIVERY_PORT": "eighty"], names: "LIVERY_PORT='eighty'", problem: "whole number"),
        StartupError(["--port", "70000"], names: "--port '70000'", problem: "from 0 to 65535"),
        StartupError([], ["LIVERY_PORT": "-1"], names: "LIVERY_PORT='-1'", problem: "from 0 to 65535"),
        StartupError(["--cache-max-age", "soon"], names: "--cache-max-age 'soon'", problem: "the cache max-age"),
        StartupError([], ["LIVERY_CACHE_MAX_AGE": "1e3"], names: "LIVERY_CACHE_MAX_AGE='1e3'", problem: "whole number"),
        StartupError(
            [], ["LIVERY_DRAIN_TIMEOUT": "-1"], names: "LIVERY_DRAIN_TIMEOUT='-1'", problem: "seconds from 0 to 3600"),
        StartupError(["--shutdown-delay", "forever"], names: "--shutdown-delay 'forever'", problem: "seconds"),
        StartupError(["--header-timeout", "0"], names: "--header-timeout '0'", problem: "seconds"),
        StartupError([], ["LIVERY_IDLE_TIMEOUT": "nan"], names: "LIVERY_IDLE_TIMEOUT='nan'", problem: "seconds"),
        StartupError(["--max-connections", "0"], names: "--max-connections '0'", problem: "the connection limit"),
        StartupError(["--max-header-bytes", "10"], names: "--max-header-bytes '10'", problem: "from 256"),
        StartupError([], ["LIVERY_EVENT_LOOPS": "65"], names: "LIVERY_EVENT_LOOPS='65'", problem: "from 1 to 64"),
        StartupError(["--max-parallel-builds", "two"], names: "--max-parallel-builds 'two'", problem: "whole number"),
        StartupError(["--log-level", "loud"], names: "--log-level 'loud'", problem: "trace, debug, info"),
        StartupError([], ["LIVERY_LOG_FORMAT": "xml"], names: "LIVERY_LOG_FORMAT='xml'", problem: "text or json"),
        StartupError([], ["LIVERY_UPLOAD_LIMIT": "0"], names: "LIVERY_UPLOAD_LIMIT='0'", problem: "the upload limit"),
        StartupError(["--metrics-port", "x"], names: "--metrics-port 'x'", problem: "the metrics port"),
        StartupError(
            ["--port", "8181", "--metrics-port", "8181"], names: "--metrics-port '8181'", problem: "must differ"),
        StartupError(["--host", ""], names: "--host ''", problem: "an IP address or a host name"),
        StartupError(["--host", "no such host.invalid"], names: "--host 'no such host.invalid'", problem: "host name"),
        StartupError(
            ["--skins-dir", "@MISSING"], names: "--skins-dir '@MISSING'", problem: "no such file or directory"),
        StartupError([], ["LIVERY_SKINS_DIR": "@FILE"], names: "LIVERY_SKINS_DIR='@FILE'", problem: "not a folder"),
        StartupError(["--data-dir", "@FILE"], names: "--data-dir '@FILE'", problem: "not a folder"),
        StartupError(
            [], ["LIVERY_DATA_DIR": "@FILE/data"], names: "LIVERY_DATA_DIR='@FILE/data'", problem: "cannot be created"),
        StartupError(["--tokens-file", "@MISSING"], names: "--tokens-file '@MISSING'", problem: "no such file"),
        StartupError(
            [], ["LIVERY_TOKENS_FILE": "@FOLDER"], names: "LIVERY_TOKENS_FILE='@FOLDER'", problem: "not a regular file"),
        StartupError(["--bench-body", "@MISSING"], names: "--bench-body '@MISSING'", problem: "no such file")
    ]

    @Test(arguments: startupErrors)
    func badSettingStopsTheStartWithOneLineAndStatusTwo(_ startup: StartupError) async throws {
        let scratch = try Self.scratch()
        @Sendable func expand(_ text: String) -> String {
            text.replacingOccurrences(of: "@FILE", with: scratch.path("plain-file"))
                .replacingOccurrences(of: "@FOLDER", with: scratch.path("folder"))
                .replacingOccurrences(of: "@MISSING", with: scratch.path("missing"))
        }
        // Loopback and a free port unless the case sets them (a flag would hide the case's environment variable).
        var arguments = ["serve"]
        if !startup.arguments.contains("--host") { arguments += ["--host", "127.0.0.1"] }
        if !startup.arguments.contains("--port"), startup.environment["LIVERY_PORT"] == nil {
            arguments += ["--port", "0"]
        }
        arguments += startup.arguments.map(expand)
        let environment = startup.environment.mapValues(expand)
        let command = arguments
        try await blocking {
            let result = try LiveryProcess.runSeparately(command, environment: environment)
            #expect(result.status == 2, "\(result.output)")
            #expect(result.standardOutput.isEmpty, "nothing on standard output: \(result.standardOutput)")
            let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "exactly one line: \(result.standardError)")
            #expect(
                result.standardError.hasPrefix("livery: " + expand(startup.names) + ": "), "\(result.standardError)")
            #expect(result.standardError.contains(startup.problem), "\(result.standardError)")
        }
    }

    @Test func missingDefaultSkinsFolderNamesTheFlagAndTheVariable() async throws {
        let scratch = try Self.scratch()
        try await blocking {
            // Run in an empty folder with LIVERY_SKINS_DIR empty (which counts as unset): the default `skins` is missing.
            let result = try LiveryProcess.runSeparately(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: ["LIVERY_SKINS_DIR": ""],
                directory: scratch.path("folder"))
            #expect(result.status == 2)
            #expect(
                result.standardError
                    == "livery: --skins-dir default 'skins' (LIVERY_SKINS_DIR not set): the folder cannot be opened: no such file or directory\n"
            )
        }
    }

    @Test func portInUseStopsTheStartWithOneLine() async throws {
        try await blocking {
            let first = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"])
            defer { _ = try? first.stop(signal: SIGKILL) }
            let second = try LiveryProcess.runSeparately(
                ["serve", "--host", "127.0.0.1"], environment: ["LIVERY_PORT": "\(first.port)"])
            #expect(second.status == 2)
            #expect(
                second.standardError
                    == "livery: LIVERY_PORT='\(first.port)': address 127.0.0.1 port \(first.port) is already in use\n")
            #expect(!second.standardOutput.contains("LIVERY_LISTENING"))
        }
    }

    @Test func metricsPortInUseStopsTheStartWithOneLine() async throws {
        try await blocking {
            let first = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"])
            defer { _ = try? first.stop(signal: SIGKILL) }
            let second = try LiveryProcess.runSeparately(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--metrics-port", "\(first.port)"])
            #expect(second.status == 2)
            #expect(
                second.standardError
                    == "livery: --metrics-port '\(first.port)': address 127.0.0.1 port \(first.port) is already in use\n"
            )
        }
    }

    /// The poll answer's max-age shows which value won: 7 from the flag, 5 from the environment, 60 by default.
    @Test(arguments: [
        (["--cache-max-age", "7"], ["LIVERY_CACHE_MAX_AGE": "5"], 7),
        ([], ["LIVERY_CACHE_MAX_AGE": "5"], 5),
        ([], ["LIVERY_CACHE_MAX_AGE": ""], 60),
        (["--cache-max-age", "7"], ["LIVERY_CACHE_MAX_AGE": "not even a number"], 7)
    ])
    func flagWinsOverEnvironmentWhichWinsOverDefault(
        flags: [String], environment: [String: String], maxAge: Int
    ) async throws {
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"] + flags, environment: environment)
            // Until the catalog is loaded polls get 503 not_ready; then an app with no skins has no window boundary, so the configured max-age is used as is.
            try AdminCall(port: livery.port, token: nil).waitUntilReady()
            let answer = try TestClient(port: livery.port).get(
                "/api/v1/skin?app=nothing-here&platform=ios&appVersion=1.0")
            #expect(answer.status == 200)
            #expect(answer.header("Cache-Control") == "public, max-age=\(maxAge)")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func helpListsEveryFlagWithItsVariableAndDefault() async throws {
        try await blocking {
            let result = try LiveryProcess.run(["serve", "--help"])
            #expect(result.status == 0)
            let help = result.output.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(
                separator: " ")
            for (flag, variable, defaultValue) in [
                ("--host", "LIVERY_HOST", "0.0.0.0"), ("--port", "LIVERY_PORT", "8080"),
                ("--skins-dir", "LIVERY_SKINS_DIR", "skins"), ("--data-dir", "LIVERY_DATA_DIR", "data"),
                ("--tokens-file", "LIVERY_TOKENS_FILE", "none"), ("--upload-limit", "LIVERY_UPLOAD_LIMIT", "67108864"),
                ("--cache-max-age", "LIVERY_CACHE_MAX_AGE", "60"),
                ("--log-level", "LIVERY_LOG_LEVEL", "info"), ("--log-format", "LIVERY_LOG_FORMAT", "text"),
                ("--metrics-port", "LIVERY_METRICS_PORT", "none"), ("--drain-timeout", "LIVERY_DRAIN_TIMEOUT", "10"),
                ("--shutdown-delay", "LIVERY_SHUTDOWN_DELAY", "0"),
                ("--max-connections", "LIVERY_MAX_CONNECTIONS", "16384"),
                ("--max-header-bytes", "LIVERY_MAX_HEADER_BYTES", "16384"),
                ("--header-timeout", "LIVERY_HEADER_TIMEOUT", "10"), ("--idle-timeout", "LIVERY_IDLE_TIMEOUT", "60"),
                ("--event-loops", "LIVERY_EVENT_LOOPS", "one per core"),
                ("--max-parallel-builds", "LIVERY_MAX_PARALLEL_BUILDS", "2"),
                ("--bench-body", "LIVERY_BENCH_BODY", "none")
            ] {
                #expect(help.contains(flag + " <"), "\(flag)")
                #expect(help.contains("Env \(variable). Default \(defaultValue)"), "\(variable)")
            }
        }
    }
}
