import ArgumentParser
import CoreMetrics
import Dispatch
import Foundation
import LiveryHTTP
import LiveryServer
import LiverySetup
import Logging
import PostgresSkinStore

/// `livery serve`: runs the HTTP server until SIGTERM or SIGINT, then drains and exits 0.
///
/// Settings come from flags, then environment variables, then defaults (`LiveryConfiguration`); a bad one stops the
/// start with one line on standard error and exit status 2. Routes come from `makeRouter`, the one place to register
/// what the server answers.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP server.",
        discussion: """
            Every setting has a flag and a LIVERY_* environment variable; the flag wins, then the variable, then \
            the default. A value that does not parse, a missing skins folder, an unwritable data folder, an \
            unreadable file or a port in use stops the start with one line on standard error, exit status 2.

            Once listening, prints one line `LIVERY_LISTENING <host>:<port>` (IPv6 hosts in brackets) on standard \
            output, for scripts and tests to wait on (with --metrics-port, a `LIVERY_METRICS_LISTENING` line comes \
            first); with --log-format json it is the message of a JSON record. SIGTERM or SIGINT makes /readyz \
            answer 503, waits --shutdown-delay seconds, stops accepting, lets in-flight requests finish (up to \
            --drain-timeout seconds) and exits 0; a second signal closes everything at once.
            """)

    @OptionGroup var options: ServeOptions

    func run() async throws {
        let settings: LiveryConfiguration
        do {
            settings = try LiveryConfiguration.resolve(
                flags: options.values, environment: ProcessInfo.processInfo.environment)
            try settings.checkFiles()
        } catch {
            Self.failStartup(error)
        }
        let output = LogOutput(format: settings.logFormat)
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in output.makeHandler(label: label, level: level) }
        let logger = Logger(label: "livery")
        Self.raiseDescriptorLimit(maxConnections: settings.maxConnections, logger: logger)
        // Before anything makes a metric: ClientAPI and PackageCache take the process-wide factory.
        let metrics = LiveryMetrics()
        MetricsSystem.bootstrap(metrics.factory)

        var benchBytes: [UInt8]?
        if let benchBody = settings.benchBody {
            guard let data = FileManager.default.contents(atPath: benchBody) else {
                Self.failStartup(settings.error(.benchBody, benchBody, "the file cannot be read"))
            }
            benchBytes = Array(data)
        }

        var serviceConfiguration = LiveryService.Configuration()
        serviceConfiguration.skinsDirectory = settings.skinsDirectory
        serviceConfiguration.dataDirectory = settings.dataDirectory
        serviceConfiguration.maxParallelBuilds = settings.maxParallelBuilds
        serviceConfiguration.reports.deviceRequestsPerHour = settings.reportDeviceRate
        serviceConfiguration.reports.addressRequestsPerSecond = settings.reportAddressRate
        serviceConfiguration.reportRetention = .seconds(Int64(settings.reportRetentionDays) * 86_400)
        serviceConfiguration.client.maxAge = settings.cacheMaxAge
        serviceConfiguration.client.catalogHorizon = settings.catalogHorizon
        serviceConfiguration.client.signingKey = Self.loadSigningKey(settings, logger: logger)
        serviceConfiguration.admin = Self.adminConfiguration(settings)
        serviceConfiguration.notifier = Self.guardNotifier(settings, logger: logger)
        let sharedStore = Self.sharedStore(settings, logger: logger)
        let service: LiveryService
        do {
            service = try LiveryService(configuration: serviceConfiguration, store: sharedStore, logger: logger)
        } catch {
            if case .tokens = error {
                Self.failStartup(settings.error(.tokensFile, settings.tokensFile ?? "", "\(error)"))
            }
            Self.failStartup(settings.error(.dataDir, settings.dataDirectory, "\(error)"))
        }
        var configuration = HTTPServer.Configuration(host: settings.host, port: settings.port)
        configuration.drainTimeout = settings.drainTimeout
        configuration.maxConnections = settings.maxConnections
        configuration.maxHeaderBytes = settings.maxHeaderBytes
        configuration.headerTimeout = settings.headerTimeout
        configuration.idleTimeout = settings.idleTimeout
        configuration.eventLoopCount = settings.eventLoops
        configuration.pinsEventLoops = settings.pinsEventLoops
        configuration.observer = metrics.httpObserver
        configuration.openFiles = service.openFiles
        let requestLog = Self.requestLog(output: output, level: level, logger: logger)
        configuration.requestLog = requestLog
        var plainConfiguration = configuration
        if let certificate = settings.tlsCert, let key = settings.tlsKey {
            configuration.tls = HTTPServer.TLSConfiguration(certificatePath: certificate, privateKeyPath: key)
        }
        let router = Self.makeRouter(service: service, benchBody: benchBytes)
        var servers: [HTTPServer] = []
        if let metricsPort = settings.metricsPort {
            // Scrapes stay off the public port (and out of the request series).
            let metricsRouter = Router()
            metrics.register(on: metricsRouter)
            var metricsConfiguration = HTTPServer.Configuration(host: settings.host, port: metricsPort)
            metricsConfiguration.eventLoopCount = 1
            metricsConfiguration.drainTimeout = settings.drainTimeout
            metricsConfiguration.requestLog = requestLog
            let metricsServer = HTTPServer(configuration: metricsConfiguration, router: metricsRouter, logger: logger)
            do {
                let address = try metricsServer.start()
                output.announce("LIVERY_METRICS_LISTENING \(address)", metadata: ["http.address": "\(address)"])
            } catch {
                Self.failStartup(settings.error(.metricsPort, "\(metricsPort)", "\(error)"))
            }
            servers.append(metricsServer)
        } else {
            metrics.register(on: router)
        }
        let server = HTTPServer(configuration: configuration, router: router, logger: logger)
        let address: SocketAddress
        do {
            address = try server.start()
        } catch {
            if case .invalidAddress = error { Self.failStartup(settings.error(.host, settings.host, "\(error)")) }
            if case .tls(let problem) = error {
                let isKey = problem.path == settings.tlsKey && problem.path != settings.tlsCert
                Self.failStartup(
                    isKey
                        ? settings.error(.tlsKey, settings.tlsKey ?? "", problem.reason)
                        : settings.error(.tlsCert, settings.tlsCert ?? "", "\(problem)"))
            }
            Self.failStartup(settings.error(.port, "\(settings.port)", "\(error)"))
        }
        if let plainPort = settings.plainPort {
            // The same routes in plain HTTP, for a TLS-terminating proxy's health checks (and traffic, if it
            // forwards unencrypted). One loop: it is not the main path.
            plainConfiguration.port = plainPort
            plainConfiguration.eventLoopCount = 1
            let plainServer = HTTPServer(configuration: plainConfiguration, router: router, logger: logger)
            do {
                let plainAddress = try plainServer.start()
                output.announce("LIVERY_PLAIN_LISTENING \(plainAddress)", metadata: ["http.address": "\(plainAddress)"])
            } catch {
                Self.failStartup(settings.error(.plainPort, "\(plainPort)", "\(error)"))
            }
            servers.append(plainServer)
        }
        servers.insert(server, at: 0)
        let reload = ReloadSignal(
            service: service, tlsServer: configuration.tls == nil ? nil : server, logger: logger)
        let running = servers
        let signals = ShutdownSignals(
            servers: running, service: service, shutdownDelay: settings.shutdownDelay, logger: logger)
        output.announce("LIVERY_LISTENING \(address)", metadata: ["http.address": "\(address)"])
        let loading = Task {
            do {
                if let sharedStore {
                    // Until PostgreSQL answers and the catalog is loaded, polls get 503 not_ready (never "no skin").
                    try await Self.load(service, from: sharedStore, logger: logger)
                } else {
                    try await service.loadCatalog()
                }
            } catch {
                // Stopped (SIGTERM) while waiting for PostgreSQL, importing or building: a clean shutdown, not a
                // failure.
                if Task.isCancelled {
                    logger.notice("stopped before the catalog was loaded; the next start carries on from the store")
                    return true
                }
                // A PostgreSQL store's own failure was logged naming --store.
                if !(error is PostgresStoreError) {
                    logger.critical("cannot load the catalog: \(error) (\(LiveryConfiguration.Setting.skinsDir.flag))")
                }
                for server in running { server.beginShutdown(drainTimeout: .zero) }
                return false
            }
            return true
        }
        // A start that never gets ready (PostgreSQL gone, a lock held by a stuck process) must not hang unnoticed
        // behind a 200 /healthz: past --start-timeout it exits 2 naming what it waited for, so it gets restarted.
        let startTimer = Task {
            guard let timeout = settings.startTimeout else { return }
            do { try await Task.sleep(for: timeout) } catch { return }
            guard !service.isReady, !Task.isCancelled else { return }
            let what =
                await sharedStore?.describeWait()
                ?? "the catalog to load (the first import of the skins folder and its package builds)"
            guard !service.isReady else { return }
            let setting = LiveryConfiguration.Setting.startTimeout
            let message =
                "not ready after \(Self.seconds(timeout)) s (\(setting.flag) / \(setting.environmentVariable)): "
                + "waited for \(what)"
            logger.critical("\(message)")
            Self.failStartup(StartTimedOut(description: message))
        }
        // Changes committed through other replicas: served within a poll interval (500 ms), or at once on NOTIFY.
        let following = Task {
            guard let sharedStore, await loading.value else { return }
            await sharedStore.follow(
                reachability: { reachable in
                    if reachable {
                        logger.notice(
                            "PostgreSQL answers again; following changes",
                            metadata: ["store": "\(sharedStore.redactedURI)"])
                    } else {
                        logger.warning(
                            "PostgreSQL unreachable: serving the last catalog, admin writes answer 503 store_unavailable",
                            metadata: ["store": "\(sharedStore.redactedURI)"])
                    }
                },
                retry: {
                    // The last catalog build failed on an unreachable store: built again at the next poll.
                    service.catalogNeedsRetry
                },
                withoutListener: {
                    let message =
                        "PostgreSQL connections do not keep their session between transactions (a pool such "
                        + "as PgBouncer in transaction mode): LISTEN cannot work there, so changes arrive by the revision "
                        + "poll (every 500 ms)"
                    logger.notice("\(message)", metadata: ["store": "\(sharedStore.redactedURI)"])
                }
            ) {
                await service.publishStoreChanges()
            }
        }
        let scrubbing = Self.scrubbing(settings, service: service, store: sharedStore, loaded: loading, logger: logger)
        for server in running { await server.waitUntilStopped() }
        // Every request line buffered so far reaches the log before the process exits.
        requestLog?.close()
        withExtendedLifetime((signals, reload)) {}
        scrubbing?.cancel()
        // A start still loading ends with the server: waiting for PostgreSQL at once; an import or a package build
        // in progress after its current skin (each skin's import is one store change), the rest left to the next start.
        loading.cancel()
        let loaded = await loading.value
        startTimer.cancel()
        following.cancel()
        await following.value
        // A catalog rebuild started by the last change gets a few seconds to end before the store is closed.
        await service.waitForCatalogBuilds(upTo: .seconds(5))
        // After the load, so the store is released cleanly.
        service.close()
        await sharedStore?.close()
        if !loaded { throw ExitCode(2) }
    }

    /// Raises the open-file limit to its hard limit, and warns when `--max-connections` cannot fit under it (past
    /// that many, new connections wait for a descriptor instead of getting the 503 the limit promises).
    static func raiseDescriptorLimit(maxConnections: Int, logger: Logger) {
        let limit = DescriptorLimit.raiseToMaximum()
        if let before = limit.raisedFrom {
            logger.info("raised the open-file limit (RLIMIT_NOFILE) from \(before) to its hard limit \(limit.current)")
        }
        guard limit.current > 0, !limit.fits(maxConnections: maxConnections) else { return }
        let flag = LiveryConfiguration.Setting.maxConnections.flag
        let message =
            "\(flag) \(maxConnections) cannot fit under the open-file limit \(limit.current) (hard limit \(limit.maximum)), "
            + "which also covers files being sent and \(DescriptorLimit.reserve) for the server itself: raise the limit "
            + "(ulimit -n, LimitNOFILE=, docker --ulimit nofile=) or lower \(flag)"
        logger.warning("\(message)")
    }

    /// Request lines at `info` skip swift-log's per-line path: each event loop buffers its own, written through
    /// `output` (the descriptor writer every line shares) at 64 KiB, within a second, and at shutdown. Lines a slow
    /// standard output cannot take are dropped, counted in `livery_log_lines_dropped_total` and warned of once per
    /// episode. Nil when the level hides request lines.
    static func requestLog(output: LogOutput, level: Logger.Level, logger: Logger) -> RequestLog? {
        guard level <= .info else { return nil }
        let dropped = Counter(label: "livery_log_lines_dropped_total")
        return RequestLog(
            format: output.format == .json ? .json : .text, label: logger.label,
            write: { output.write(line: $0) },
            warn: { count in
                let message =
                    "standard output cannot keep up with the log: dropped \(count) request lines "
                    + "(counted in livery_log_lines_dropped_total); warnings and errors are kept"
                logger.warning("\(message)")
            },
            dropped: { dropped.increment(by: $0) })
    }

    /// `duration` in seconds as a person writes them (`600`, `2.5`).
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Prints `error` as one line on standard error and exits with status 2.
    static func failStartup(_ error: any Error) -> Never {
        FileHandle.standardError.write(Data("livery: \(error)\n".utf8))
        Foundation.exit(2)
    }

    /// Every route `livery serve` answers. Extend here (or move to LiveryServer) as the product grows.
    ///
    /// Responses to fixed content are built once, here, so answering them costs no allocation.
    static func makeRouter(service: LiveryService, benchBody: [UInt8]?) -> Router {
        let router = Router()
        service.register(on: router)
        if let benchBody {
            let bench = HTTPResponse.json(.ok, benchBody)
            router.on(.get, "/bench", .sync { _ in bench })
        }
        return router
    }
}

/// A start that did not become ready within `--start-timeout`: what it waited for.
struct StartTimedOut: Error, CustomStringConvertible {
    let description: String
}
