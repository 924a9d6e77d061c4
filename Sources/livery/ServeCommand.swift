import ArgumentParser
import Dispatch
import Foundation
import LiveryHTTP
import LiveryServer
import Logging

/// `livery serve`: runs the HTTP server until SIGTERM or SIGINT, then drains and exits 0.
///
/// Settings come from flags, then environment variables, then defaults. Routes come from `makeRouter`, the one
/// place to register what the server answers.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP server.",
        discussion: """
            Once listening, prints one line `LIVERY_LISTENING <host>:<port>` (IPv6 hosts in brackets) on standard \
            output, for scripts and tests to wait on. SIGTERM or SIGINT stops accepting, lets in-flight requests \
            finish (up to --drain-timeout seconds) and exits 0; a second signal closes everything at once.
            """)

    static let defaultHost = "0.0.0.0"
    static let defaultPort = 8080

    @Option(help: "Address to listen on: 0.0.0.0, ::, 127.0.0.1, ::1 or a host name. Env LIVERY_HOST. Default 0.0.0.0.")
    var host: String?

    @Option(help: "TCP port; 0 picks a free port. Env LIVERY_PORT. Default 8080.")
    var port: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical. Env LIVERY_LOG_LEVEL. Default info.")
    var logLevel: String?

    @Option(help: "Folder whose subfolders are the skins to serve. Env LIVERY_SKINS_DIR. Default skins.")
    var skinsDir: String?

    @Option(help: "Folder for state and the package cache. Env LIVERY_DATA_DIR. Default data.")
    var dataDir: String?

    @Option(help: "Most seconds a poll answer may be cached (Cache-Control max-age). Env LIVERY_CACHE_MAX_AGE. Default 60.")
    var cacheMaxAge: Int?

    @Option(help: "Seconds in-flight requests get to finish on shutdown. Default 10.")
    var drainTimeout: Double = 10

    @Option(help: "Admin tokens file (NAME ROLE SHA256HEX lines; see `livery token create`). Without it the admin API is off. Env LIVERY_TOKENS_FILE.")
    var tokensFile: String?

    @Option(help: "Largest skin upload accepted by the admin API, in bytes. Env LIVERY_UPLOAD_LIMIT. Default 67108864 (64 MiB).")
    var uploadLimit: Int?

    @Option(
        help: ArgumentHelp(
            "Benchmark only: serve this file's bytes from memory at GET /bench as application/json (see bench/README.md).",
            valueName: "path"))
    var benchBody: String?

    /// The settings after applying flag > environment > default.
    struct Settings: Equatable {
        var host: String
        var port: Int
        var logLevel: Logger.Level
        var skinsDirectory: String
        var dataDirectory: String
        var cacheMaxAge: Int
    }

    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        let host = host ?? environment["LIVERY_HOST"] ?? Self.defaultHost
        guard !host.isEmpty else { throw ValidationError("The host must not be empty.") }

        let resolvedPort: Int
        if let port {
            resolvedPort = port
        } else if let text = environment["LIVERY_PORT"] {
            guard let parsed = Int(text) else { throw ValidationError("LIVERY_PORT must be a number, got '\(text)'.") }
            resolvedPort = parsed
        } else {
            resolvedPort = Self.defaultPort
        }
        guard (0...65535).contains(resolvedPort) else {
            throw ValidationError("The port must be between 0 and 65535, got \(resolvedPort).")
        }

        let levelText = logLevel ?? environment["LIVERY_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ValidationError("Unknown log level '\(levelText)'.")
        }
        let skinsDirectory = skinsDir ?? environment["LIVERY_SKINS_DIR"] ?? "skins"
        let dataDirectory = dataDir ?? environment["LIVERY_DATA_DIR"] ?? "data"
        let maxAge: Int
        if let cacheMaxAge {
            maxAge = cacheMaxAge
        } else if let text = environment["LIVERY_CACHE_MAX_AGE"] {
            guard let parsed = Int(text) else {
                throw ValidationError("LIVERY_CACHE_MAX_AGE must be a number of seconds, got '\(text)'.")
            }
            maxAge = parsed
        } else {
            maxAge = 60
        }
        guard maxAge >= 0 else { throw ValidationError("The cache max-age must be >= 0 seconds, got \(maxAge).") }
        return Settings(
            host: host, port: resolvedPort, logLevel: level, skinsDirectory: skinsDirectory,
            dataDirectory: dataDirectory, cacheMaxAge: maxAge)
    }

    func validate() throws {
        _ = try settings()
        _ = try adminConfiguration()
        guard drainTimeout >= 0, drainTimeout.isFinite else { throw ValidationError("--drain-timeout must be >= 0.") }
    }

    func run() async throws {
        let settings = try settings()
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "livery")

        var benchBytes: [UInt8]?
        if let benchBody {
            guard let data = FileManager.default.contents(atPath: benchBody) else {
                throw ValidationError("Cannot read --bench-body file '\(benchBody)'.")
            }
            benchBytes = Array(data)
        }

        var serviceConfiguration = LiveryService.Configuration()
        serviceConfiguration.skinsDirectory = settings.skinsDirectory
        serviceConfiguration.dataDirectory = settings.dataDirectory
        serviceConfiguration.client.maxAge = settings.cacheMaxAge
        serviceConfiguration.admin = try adminConfiguration()
        let service: LiveryService
        do {
            service = try LiveryService(configuration: serviceConfiguration, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(2)
        }
        let reload = TokenReloadSignal(service: service)

        var configuration = HTTPServer.Configuration(host: settings.host, port: settings.port)
        configuration.drainTimeout = .milliseconds(Int64(drainTimeout * 1000))
        let server = HTTPServer(
            configuration: configuration, router: Self.makeRouter(service: service, benchBody: benchBytes),
            logger: logger)

        let signals = ShutdownSignals(server: server, logger: logger)
        let address: SocketAddress
        do {
            address = try server.start()
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode.failure
        }
        // Unbuffered, so a script reading a pipe sees the line at once.
        FileHandle.standardOutput.write(Data("LIVERY_LISTENING \(address)\n".utf8))
        let loading = Task {
            do {
                try await service.loadCatalog()
            } catch {
                logger.critical("cannot load the catalog: \(error) (--skins-dir / LIVERY_SKINS_DIR)")
                server.beginShutdown(drainTimeout: .zero)
                return false
            }
            return true
        }
        await server.waitUntilStopped()
        withExtendedLifetime((signals, reload)) {}
        let loaded = await loading.value
        // After the load (an import in progress must finish its change), so the store is released cleanly.
        service.close()
        if !loaded { throw ExitCode(2) }
    }

    /// Every route `livery serve` answers. Extend here (or move to LiveryServer) as the product grows.
    ///
    /// Responses to fixed content are built once, here, so answering them costs no allocation.
    static func makeRouter(service: LiveryService, benchBody: [UInt8]?) -> Router {
        let router = Router()
        service.register(on: router)
        if let benchBody {
            let bench = HTTPResponse.json(.ok, benchBody)
            router.get("/bench") { _ in bench }
        }
        return router
    }
}

/// SIGTERM and SIGINT as Dispatch sources: the first begins a graceful shutdown, a second forces it.
///
/// The signals are ignored first so their default action (terminating the process) never runs; Dispatch still
/// delivers them to the sources.
final class ShutdownSignals {
    private let sources: [any DispatchSourceSignal]

    init(server: HTTPServer, logger: Logger) {
        let queue = DispatchQueue(label: "livery.signals")
        let received = SignalCount()
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received.increment() == 1 {
                    logger.notice("signal \(number): draining")
                    server.beginShutdown()
                } else {
                    logger.notice("signal \(number) again: closing all connections now")
                    server.beginShutdown(drainTimeout: .zero)
                }
            }
            source.activate()
            return source
        }
    }
}

/// Counts signals; used only on the signal queue.
private final class SignalCount: @unchecked Sendable {
    // Invariant: only touched on the serial "livery.signals" queue.
    private var count = 0
    func increment() -> Int {
        count += 1
        return count
    }
}
