import Foundation
import Logging
import TestSupport
import Testing

@testable import LiverySetup

/// Resolution of `livery serve` settings without a process: precedence, parsing, file checks, and the settings table
/// of docs/CONFIGURATION.md.
@Suite struct LiveryConfigurationTests {
    typealias Setting = LiveryConfiguration.Setting
    typealias Source = LiveryConfiguration.Source

    /// Two different valid values per setting (flag, environment).
    static func values(_ setting: Setting) -> (flag: String, environment: String) {
        switch setting {
        case .host: ("127.0.0.1", "::1")
        case .port: ("8081", "8082")
        case .skinsDir: ("/srv/a", "/srv/b")
        case .dataDir: ("/data/a", "/data/b")
        case .store: ("postgres://livery@db-a/livery", "postgresql:///livery?host=/run/postgresql")
        case .storePasswordFile: ("/run/secrets/pg-a", "/run/secrets/pg-b")
        case .startTimeout: ("30", "0")
        case .tokensFile: ("/run/secrets/a", "/run/secrets/b")
        case .uploadLimit: ("1048576", "2097152")
        case .cacheMaxAge: ("30", "45")
        case .catalogHorizon: ("86400", "3600")
        case .logLevel: ("debug", "WARNING")
        case .logFormat: ("json", "text")
        case .metricsPort: ("9090", "9091")
        case .tlsCert: ("/etc/livery/a.crt", "/etc/livery/b.crt")
        case .tlsKey: ("/etc/livery/a.key", "/etc/livery/b.key")
        case .plainPort: ("8088", "8089")
        case .signingKey: ("/run/secrets/a.pem", "/run/secrets/b.pem")
        case .drainTimeout: ("2.5", "30")
        case .shutdownDelay: ("5", "0.25")
        case .maxConnections: ("100", "200")
        case .maxHeaderBytes: ("8192", "4096")
        case .headerTimeout: ("3", "4")
        case .idleTimeout: ("120", "90")
        case .eventLoops: ("3", "4")
        case .eventLoopAffinity: ("cpus", "OFF")
        case .maxParallelBuilds: ("4", "8")
        case .scrubInterval: ("0", "3600")
        case .reportDeviceRate: ("60", "5")
        case .reportAddressRate: ("500", "7")
        case .reportRetentionDays: ("30", "365")
        case .notifyUrl: ("https://hooks.example.com/livery", "http://127.0.0.1:9000/hook")
        case .notifySecretFile: ("/run/secrets/hook-a", "/run/secrets/hook-b")
        case .notifyCaFile: ("/etc/livery/hook-ca-a.pem", "/etc/livery/hook-ca-b.pem")
        case .benchBody: ("/tmp/a.json", "/tmp/b.json")
        }
    }

    @Test(arguments: Setting.allCases)
    func flagWinsOverEnvironmentWhichWinsOverDefault(_ setting: Setting) throws {
        let (flag, environment) = Self.values(setting)
        let defaults = try LiveryConfiguration.resolve(flags: [:], environment: [:])
        let fromEnvironment = try LiveryConfiguration.resolve(
            flags: [:], environment: [setting.environmentVariable: environment])
        let fromFlag = try LiveryConfiguration.resolve(
            flags: [setting: flag], environment: [setting.environmentVariable: environment])
        #expect(defaults == LiveryConfiguration().withSources(.defaultValue))
        #expect(fromEnvironment.source(of: setting) == .environment)
        #expect(fromFlag.source(of: setting) == .flag)
        #expect(fromEnvironment != defaults)
        #expect(fromFlag != fromEnvironment)
        // Only that setting moved.
        for other in Setting.allCases where other != setting {
            #expect(fromFlag.source(of: other) == .defaultValue)
        }
    }

    @Test func parsedValuesHaveTheirUnits() throws {
        let configuration = try LiveryConfiguration.resolve(
            flags: [.drainTimeout: "2.5", .logLevel: "Debug", .metricsPort: "0"],
            environment: [
                "LIVERY_SHUTDOWN_DELAY": "0.25", "LIVERY_LOG_FORMAT": "JSON", "LIVERY_PORT": "0", "OTHER": "x"
            ])
        #expect(configuration.drainTimeout == .milliseconds(2500))
        #expect(configuration.shutdownDelay == .milliseconds(250))
        #expect(configuration.logLevel == .debug)
        #expect(configuration.logFormat == .json)
        #expect(configuration.port == 0 && configuration.metricsPort == 0, "two free ports do not clash")
    }

    @Test func emptyEnvironmentValuesCountAsUnset() throws {
        let configuration = try LiveryConfiguration.resolve(
            flags: [:], environment: ["LIVERY_PORT": "", "LIVERY_TOKENS_FILE": ""])
        #expect(configuration.port == 8080 && configuration.tokensFile == nil)
        #expect(configuration.source(of: .port) == .defaultValue)
    }

    @Test(arguments: [
        (Setting.port, "80a"), (.port, "65536"), (.metricsPort, "-1"), (.cacheMaxAge, "86401"), (.cacheMaxAge, "1.5"),
        (.drainTimeout, "inf"), (.drainTimeout, "3601"), (.shutdownDelay, "-0.5"), (.headerTimeout, "0"),
        (.idleTimeout, "nan"), (.maxConnections, "0"), (.maxHeaderBytes, "255"), (.eventLoops, "0"),
        (.maxParallelBuilds, "65"), (.catalogHorizon, "3599"), (.catalogHorizon, "14d"), (.uploadLimit, "0"),
        (.uploadLimit, "64MiB"), (.logLevel, "verbose"), (.logFormat, "yaml"), (.host, "a b"), (.host, "a/b"),
        (.dataDir, "a\u{0}b"), (.reportRetentionDays, "29"), (.reportRetentionDays, "90d"),
        (.eventLoopAffinity, "on")
    ])
    func rejectsBadValuesNamingWhereTheyCameFrom(_ setting: Setting, _ value: String) {
        let cases: [(Source, [Setting: String], [String: String], String)] = [
            (.flag, [setting: value], [:], "\(setting.flag) '"),
            (.environment, [:], [setting.environmentVariable: value], "\(setting.environmentVariable)='")
        ]
        for (source, flags, environment, prefix) in cases {
            do {
                _ = try LiveryConfiguration.resolve(flags: flags, environment: environment)
                Issue.record("\(setting) accepted \(value) from \(source)")
            } catch {
                #expect(error.setting == setting && error.source == source && error.value == value)
                #expect(error.description.hasPrefix(prefix), "\(error)")
                #expect(!error.description.contains("\n") && !error.description.contains("\u{0}"), "one printable line")
            }
        }
    }

    @Test func metricsPortMustDifferFromThePort() {
        #expect(throws: ConfigurationError.self) {
            try LiveryConfiguration.resolve(flags: [.port: "9000"], environment: ["LIVERY_METRICS_PORT": "9000"])
        }
    }

    @Test func errorMessagesNameTheSettingAsGiven() {
        let flag = ConfigurationError(setting: .port, source: .flag, value: "x", problem: "bad")
        let environment = ConfigurationError(setting: .port, source: .environment, value: "x", problem: "bad")
        let fallback = ConfigurationError(setting: .skinsDir, source: .defaultValue, value: "skins", problem: "missing")
        #expect(flag.description == "--port 'x': bad")
        #expect(environment.description == "LIVERY_PORT='x': bad")
        #expect(fallback.description == "--skins-dir default 'skins' (LIVERY_SKINS_DIR not set): missing")
    }

    @Test func fileChecksFindEachProblem() throws {
        let scratch = try ScratchDirectory(prefix: "livery-files")
        let root = scratch.path
        try FileManager.default.createDirectory(atPath: root + "/skins", withIntermediateDirectories: true)
        try Data("tokens".utf8).write(to: URL(fileURLWithPath: root + "/tokens"))
        var configuration = LiveryConfiguration()
        configuration.skinsDirectory = root + "/skins"
        configuration.dataDirectory = root + "/new/data"
        configuration.tokensFile = root + "/tokens"
        try configuration.checkFiles()
        #expect(FileManager.default.fileExists(atPath: root + "/new/data"), "a missing data folder is created")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/new/data").isEmpty, "the probe is removed")

        var missingSkins = configuration
        missingSkins.skinsDirectory = root + "/nope"
        #expect(throws: ConfigurationError.self) { try missingSkins.checkFiles() }
        var fileAsData = configuration
        fileAsData.dataDirectory = root + "/tokens"
        #expect(throws: ConfigurationError.self) { try fileAsData.checkFiles() }
        var folderAsTokens = configuration
        folderAsTokens.tokensFile = root + "/skins"
        #expect(throws: ConfigurationError.self) { try folderAsTokens.checkFiles() }
        var missingBench = configuration
        missingBench.benchBody = root + "/bench.json"
        #expect(throws: ConfigurationError.self) { try missingBench.checkFiles() }
    }

    @Test func aStoreMustBeAPostgresURIAndIsNeverEchoed() throws {
        for uri in ["postgres://a@db/x", "postgresql:///livery?host=/run/postgresql"] {
            #expect(try LiveryConfiguration.resolve(flags: [.store: uri], environment: [:]).store == uri)
        }
        #expect {
            try LiveryConfiguration.resolve(flags: [:], environment: ["LIVERY_STORE": "mysql://ops:hunter2@db/livery"])
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("LIVERY_STORE='mysql…': the store must be a postgres://") && !text.contains("hunter2")
        }

        let scratch = try ScratchDirectory(prefix: "livery-store-settings")
        try FileManager.default.createDirectory(atPath: scratch.path("skins"), withIntermediateDirectories: true)
        var passwordAlone = LiveryConfiguration()
        passwordAlone.skinsDirectory = scratch.path("skins")
        passwordAlone.dataDirectory = scratch.path("data")
        passwordAlone.storePasswordFile = scratch.path("skins")
        #expect(throws: ConfigurationError.self) { try passwordAlone.checkFiles() }
        passwordAlone.store = "postgres://a@db/x"
        #expect(throws: ConfigurationError.self, "a folder is not a password file") { try passwordAlone.checkFiles() }
    }

    /// docs/CONFIGURATION.md's table has a row per setting with its flag, variable and default.
    @Test func configurationDocListsEverySetting() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let document = try String(contentsOfFile: repository.path + "/docs/CONFIGURATION.md", encoding: .utf8)
        let rows = document.split(separator: "\n").filter { $0.hasPrefix("| `--") }
        #expect(rows.count == Setting.allCases.count)
        for setting in Setting.allCases {
            let row = rows.first { $0.hasPrefix("| `\(setting.flag) ") || $0.hasPrefix("| `\(setting.flag)`") }
            let found = try #require(row, "docs/CONFIGURATION.md has no row for \(setting.flag)")
            #expect(found.contains("`\(setting.environmentVariable)`"), "\(found)")
            #expect(found.contains(setting.defaultDescription), "\(found)")
        }
    }
}

extension LiveryConfiguration {
    /// This configuration with every setting attributed to `source`.
    fileprivate func withSources(_ source: Source) -> LiveryConfiguration {
        var copy = self
        for setting in Setting.allCases { copy.sources[setting] = source }
        return copy
    }
}
