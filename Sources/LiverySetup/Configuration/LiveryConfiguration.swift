import Foundation
import Logging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every setting of `livery serve`, resolved with the precedence flag > environment variable > default and checked.
///
/// `resolve(flags:environment:)` parses values (numbers, ranges, names); `checkFiles()` then checks what is on
/// disk (the skins folder exists, the data folder is writable, named files are readable). Both fail with a
/// `ConfigurationError` whose description is one line naming the setting. An environment variable set to the empty
/// string counts as unset, as container tooling often passes empty values for "not configured".
public struct LiveryConfiguration: Sendable, Equatable {
    /// Listen address. Default `0.0.0.0`.
    public var host: String = "0.0.0.0"
    /// API port; 0 picks a free one. Default 8080.
    public var port: Int = 8080
    /// Folder whose subfolders are skins. Default `skins`.
    public var skinsDirectory: String = "skins"
    /// Folder for state and the package cache. Default `data`.
    public var dataDirectory: String = "data"
    /// PostgreSQL connection URI of a shared store; nil keeps the file store under `dataDirectory`. Default nil.
    /// Never shown in errors or logs as given (it may hold a password).
    public var store: String?
    /// File holding the password of `store`. Default nil.
    public var storePasswordFile: String?
    /// File with the admin API tokens; nil leaves the admin API off. Default nil.
    public var tokensFile: String?
    /// Largest admin upload in bytes (1...2^31). Default 64 MiB.
    public var uploadLimit: Int = 64 << 20
    /// Upper bound of poll answers' `max-age`, in seconds (0...86400). Default 60.
    public var cacheMaxAge: Int = 60
    /// How far ahead a catalog document looks, in seconds (3600...31536000). Default 1209600 (14 days).
    public var catalogHorizon: Int = 1_209_600
    /// Lowest level logged. Default `.info`.
    public var logLevel: Logger.Level = .info
    /// How log records are written. Default `.text`.
    public var logFormat: LogFormat = .text
    /// Separate port for `/metrics`; nil serves it on the main port. Default nil.
    public var metricsPort: Int?
    /// PEM certificate chain for HTTPS on `port`; set together with `tlsKey`. Default nil (plain HTTP).
    public var tlsCert: String?
    /// PEM private key of `tlsCert`. Default nil.
    public var tlsKey: String?
    /// With TLS, a second port serving the same routes in plain HTTP. Default nil.
    public var plainPort: Int?
    /// Private key file (`livery keys create`) that signs every poll answer. Default nil (answers unsigned).
    public var signingKey: String?
    /// Time between scrubs of the store and the package cache; zero turns them off. Default 86,400 s (a day).
    public var scrubInterval: Duration = .seconds(86_400)
    /// How long a start may take to become ready before the process exits 2 naming what it waited for; nil waits
    /// forever (`0`). Default 600 s.
    public var startTimeout: Duration? = .seconds(600)
    /// How long in-flight requests may finish on shutdown. Default 10 s.
    public var drainTimeout: Duration = .seconds(10)
    /// How long after SIGTERM the listener stays open while `/readyz` answers 503. Default 0.
    public var shutdownDelay: Duration = .zero
    /// Open connections above which new ones get a 503. Default 16,384.
    public var maxConnections: Int = 16_384
    /// Largest request head in bytes. Default 16 KiB.
    public var maxHeaderBytes: Int = 16 * 1024
    /// Time to receive a request head. Default 10 s.
    public var headerTimeout: Duration = .seconds(10)
    /// Keep-alive idle time and longest transfer stall. Default 60 s.
    public var idleTimeout: Duration = .seconds(60)
    /// Event-loop threads. Default: one per core (at most 64).
    public var eventLoops: Int = min(64, max(1, ProcessInfo.processInfo.activeProcessorCount))
    /// Whether event loops are pinned to CPUs (`--event-loop-affinity cpus`).
    public var pinsEventLoops = false
    /// Most package builds at once. Default 2.
    public var maxParallelBuilds: Int = 2
    /// Report requests one device may send per hour. Default 12.
    public var reportDeviceRate: Int = 12
    /// Report requests one address may send per second. Default 50.
    public var reportAddressRate: Int = 50
    /// Days phones' reports are kept. Default 90.
    public var reportRetentionDays: Int = 90
    /// The guard's webhook, `http[s]://HOST[:PORT][/PATH]`. Default nil (none).
    public var notifyUrl: String?
    /// File holding the webhook's HMAC key. Default nil (calls unsigned).
    public var notifySecretFile: String?
    /// PEM file of the CAs an `https://` webhook must be signed by. Default nil (the system's CAs).
    public var notifyCaFile: String?
    /// Benchmark only: a file served from memory at `GET /bench`. Default nil.
    public var benchBody: String?
    /// Where each setting's value came from (every setting has an entry after `resolve`).
    public var sources: [Setting: Source] = [:]

    /// Log output formats.
    public enum LogFormat: String, Sendable, CaseIterable {
        /// swift-log's human-readable lines.
        case text
        /// One JSON object per line.
        case json
    }

    /// Every value at its default.
    public init() {}

    /// Resolves every setting: a flag wins over its environment variable, which wins over the default.
    ///
    /// - Parameters:
    ///   - flags: the values of the flags that were given, by setting.
    ///   - environment: the process environment; only `LIVERY_*` variables of known settings are read.
    /// - Throws: the first setting (in table order) whose value does not parse or is out of range.
    public static func resolve(
        flags: [Setting: String], environment: [String: String]
    ) throws(ConfigurationError) -> LiveryConfiguration {
        var configuration = LiveryConfiguration()
        for setting in Setting.allCases {
            if let value = flags[setting] {
                configuration.sources[setting] = .flag
                try configuration.apply(setting, value, source: .flag)
            } else if let value = environment[setting.environmentVariable], !value.isEmpty {
                configuration.sources[setting] = .environment
                try configuration.apply(setting, value, source: .environment)
            } else {
                configuration.sources[setting] = .defaultValue
            }
        }
        if let metricsPort = configuration.metricsPort, metricsPort != 0, metricsPort == configuration.port {
            throw configuration.error(
                .metricsPort, "\(metricsPort)", "must differ from \(Setting.port.flag) \(configuration.port)")
        }
        return configuration
    }

    /// Where `setting`'s value came from (`.defaultValue` for a configuration not made by `resolve`).
    public func source(of setting: Setting) -> Source { sources[setting] ?? .defaultValue }

    /// An error about `setting`'s current value, attributed to where that value came from.
    public func error(_ setting: Setting, _ value: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(setting: setting, source: source(of: setting), value: value, problem: problem)
    }

    private mutating func apply(_ setting: Setting, _ text: String, source: Source) throws(ConfigurationError) {
        func fail(_ problem: String) -> ConfigurationError {
            ConfigurationError(setting: setting, source: source, value: text, problem: problem)
        }
        func integer(_ range: ClosedRange<Int>, _ noun: String) throws(ConfigurationError) -> Int {
            guard let value = Int(text), range.contains(value) else {
                throw fail("\(noun) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        func seconds(_ range: ClosedRange<Double>, _ noun: String) throws(ConfigurationError) -> Duration {
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw fail(
                    "\(noun) must be a number of seconds from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
                )
            }
            return .nanoseconds(Int64((value * 1_000_000_000).rounded()))
        }
        func path(_ noun: String) throws(ConfigurationError) -> String {
            guard !text.isEmpty, !text.utf8.contains(0) else { throw fail("\(noun) must be a non-empty path") }
            return text
        }

        switch setting {
        case .host:
            guard !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == "/" }) else {
                throw fail("the host must be an IP address or a host name")
            }
            host = text
        case .port: port = try integer(0...65535, "the port")
        case .skinsDir: skinsDirectory = try path("the skins folder")
        case .dataDir: dataDirectory = try path("the data folder")
        case .store:
            // The value is not repeated in the error: it may hold a password.
            guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), !text.utf8.contains(0) else {
                throw ConfigurationError(
                    setting: setting, source: source, value: String(text.prefix { $0 != ":" }) + "…",
                    problem: "the store must be a postgres:// or postgresql:// URI")
            }
            store = text
        case .storePasswordFile: storePasswordFile = try path("the store password file")
        case .tokensFile: tokensFile = try path("the tokens file")
        case .uploadLimit: uploadLimit = try integer(1...(1 << 31), "the upload limit")
        case .cacheMaxAge: cacheMaxAge = try integer(0...86_400, "the cache max-age")
        case .catalogHorizon: catalogHorizon = try integer(3600...31_536_000, "the catalog horizon")
        case .logLevel:
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw fail("the log level must be one of trace, debug, info, notice, warning, error, critical")
            }
            logLevel = level
        case .logFormat:
            guard let format = LogFormat(rawValue: text.lowercased()) else {
                throw fail("the log format must be text or json")
            }
            logFormat = format
        case .metricsPort: metricsPort = try integer(0...65535, "the metrics port")
        case .tlsCert: tlsCert = try path("the TLS certificate file")
        case .tlsKey: tlsKey = try path("the TLS key file")
        case .plainPort: plainPort = try integer(0...65535, "the plain HTTP port")
        case .signingKey: signingKey = try path("the signing key file")
        case .startTimeout:
            let timeout = try seconds(0...31_536_000, "the start timeout")
            startTimeout = timeout == .zero ? nil : timeout
        case .drainTimeout: drainTimeout = try seconds(0...3600, "the drain timeout")
        case .shutdownDelay: shutdownDelay = try seconds(0...3600, "the shutdown delay")
        case .maxConnections: maxConnections = try integer(1...1_000_000, "the connection limit")
        case .maxHeaderBytes: maxHeaderBytes = try integer(256...1_048_576, "the header limit")
        case .headerTimeout: headerTimeout = try seconds(0.001...3600, "the header timeout")
        case .idleTimeout: idleTimeout = try seconds(0.001...86_400, "the idle timeout")
        case .eventLoops: eventLoops = try integer(1...64, "the event-loop count")
        case .eventLoopAffinity:
            switch text.lowercased() {
            case "off": pinsEventLoops = false
            case "cpus": pinsEventLoops = true
            default: throw fail("the event-loop affinity must be off or cpus")
            }
        case .maxParallelBuilds: maxParallelBuilds = try integer(1...64, "the build limit")
        case .scrubInterval: scrubInterval = try seconds(0...31_536_000, "the scrub interval")
        case .reportDeviceRate: reportDeviceRate = try integer(1...3600, "the device report rate")
        case .reportAddressRate: reportAddressRate = try integer(1...100_000, "the address report rate")
        case .reportRetentionDays: reportRetentionDays = try integer(30...3650, "the report retention")
        case .notifyUrl:
            guard text.hasPrefix("http://") || text.hasPrefix("https://"),
                !text.contains(where: { $0.isWhitespace || $0.isNewline }), !text.utf8.contains(0)
            else { throw fail("the webhook must be an http:// or https:// URL") }
            notifyUrl = text
        case .notifySecretFile: notifySecretFile = try path("the webhook secret file")
        case .notifyCaFile: notifyCaFile = try path("the webhook CA file")
        case .benchBody: benchBody = try path("the benchmark body file")
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    // MARK: - Files

    /// TLS settings come as a pair (`--tls-cert` with `--tls-key`), and `--plain-port` only with them, on a port
    /// of its own. Part of `checkFiles`.
    public func checkTLSSettings() throws(ConfigurationError) {
        if (tlsCert == nil) != (tlsKey == nil) {
            let missing: Setting = tlsCert == nil ? .tlsCert : .tlsKey
            let given: Setting = missing == .tlsCert ? .tlsKey : .tlsCert
            throw error(
                given, (given == .tlsCert ? tlsCert : tlsKey) ?? "",
                "needs \(missing.flag) (\(missing.environmentVariable)) as well")
        }
        if let plainPort = plainPort {
            guard tlsCert != nil else {
                throw error(.plainPort, "\(plainPort)", "needs \(Setting.tlsCert.flag) and \(Setting.tlsKey.flag)")
            }
            if plainPort != 0, plainPort == port || plainPort == metricsPort {
                throw error(.plainPort, "\(plainPort)", "must differ from the other ports")
            }
        }
    }

    /// Checks the folders and files the settings name: the skins folder exists and can be listed, the data folder
    /// exists (it is created if missing) and accepts a new file, the tokens and benchmark files can be read.
    ///
    /// Writes and removes one empty probe file, `.livery-write-probe-<pid>`, in the data folder.
    public func checkFiles() throws(ConfigurationError) {
        try checkTLSSettings()
        if let problem = Self.folderProblem(skinsDirectory) { throw error(.skinsDir, skinsDirectory, problem) }
        if let problem = Self.writableFolderProblem(dataDirectory) {
            throw error(.dataDir, dataDirectory, problem)
        }
        if storePasswordFile != nil, store == nil {
            throw error(
                .storePasswordFile, storePasswordFile ?? "",
                "needs \(Setting.store.flag) (\(Setting.store.environmentVariable))")
        }
        for (setting, file) in [(Setting.notifySecretFile, notifySecretFile), (.notifyCaFile, notifyCaFile)]
        where file != nil && notifyUrl == nil {
            throw error(
                setting, file ?? "", "needs \(Setting.notifyUrl.flag) (\(Setting.notifyUrl.environmentVariable))")
        }
        for (setting, file) in [
            (Setting.tokensFile, tokensFile), (.benchBody, benchBody), (.tlsCert, tlsCert), (.tlsKey, tlsKey),
            (.storePasswordFile, storePasswordFile), (.notifySecretFile, notifySecretFile),
            (.notifyCaFile, notifyCaFile)
        ] {
            if let file, let problem = Self.readableFileProblem(file) { throw error(setting, file, problem) }
        }
    }

    static func folderProblem(_ path: String) -> String? {
        let info: stat
        do throws(SystemCallError) {
            info = try Syscall.pathStatus(path)
        } catch {
            return "the folder cannot be opened: \(Self.reason(error.errno))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "not a folder" }
        do throws(SystemCallError) {
            try SystemPath.checkAccess(path, R_OK | X_OK)
        } catch {
            return "the folder cannot be read: \(Self.reason(error.errno))"
        }
        return nil
    }

    static func writableFolderProblem(_ path: String) -> String? {
        if let info = try? Syscall.pathStatus(path) {
            guard info.st_mode & S_IFMT == S_IFDIR else { return "not a folder" }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                return "the folder does not exist and cannot be created"
            }
        }
        let probe = path + "/.livery-write-probe-\(Syscall.processID)"
        do throws(SystemCallError) {
            _ = try SystemFile.open(probe, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)  // closed when released
        } catch {
            return "the folder is not writable: \(Self.reason(error.errno))"
        }
        SystemPath.remove(probe)
        return nil
    }

    static func readableFileProblem(_ path: String) -> String? {
        let info: stat
        do throws(SystemCallError) {
            info = try Syscall.pathStatus(path)
        } catch {
            return "the file cannot be opened: \(Self.reason(error.errno))"
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return "not a regular file" }
        do throws(SystemCallError) {
            _ = try SystemFile.open(path, O_RDONLY)  // closed when released
        } catch {
            return "the file cannot be read: \(Self.reason(error.errno))"
        }
        return nil
    }

    private static func reason(_ code: Int32) -> String {
        SystemCallError.text(code).lowercased()
    }
}
