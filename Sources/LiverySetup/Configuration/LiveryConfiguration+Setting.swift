extension LiveryConfiguration {
    /// One setting of `livery serve`: its flag, its environment variable, its default and what it means.
    ///
    /// This table is the single source of `livery serve --help`, of configuration errors and of the
    /// table in docs/CONFIGURATION.md (a test keeps the table in step with it).
    public enum Setting: String, CaseIterable, Sendable, Hashable {
        case host
        case port
        case skinsDir
        case dataDir
        case store
        case storePasswordFile
        case startTimeout
        case tokensFile
        case uploadLimit
        case cacheMaxAge
        case catalogHorizon
        case logLevel
        case logFormat
        case metricsPort
        case tlsCert
        case tlsKey
        case plainPort
        case signingKey
        case drainTimeout
        case shutdownDelay
        case maxConnections
        case maxHeaderBytes
        case headerTimeout
        case idleTimeout
        case eventLoops
        case eventLoopAffinity
        case maxParallelBuilds
        case scrubInterval
        case reportDeviceRate
        case reportAddressRate
        case reportRetentionDays
        case notifyUrl
        case notifySecretFile
        case notifyCaFile
        case benchBody

        /// The long flag without dashes, such as `skins-dir`.
        public var flagName: String {
            var name = ""
            for character in rawValue {
                if character.isUppercase {
                    name += "-" + character.lowercased()
                } else {
                    name.append(character)
                }
            }
            return name
        }

        /// The flag as typed, such as `--skins-dir`.
        public var flag: String { "--" + flagName }

        /// The environment variable, such as `LIVERY_SKINS_DIR`.
        public var environmentVariable: String {
            "LIVERY_" + flagName.uppercased().replacingOccurrences(of: "-", with: "_")
        }

        /// The placeholder shown in help, such as `seconds`.
        public var valueName: String {
            switch self {
            case .host: "address"
            case .port, .metricsPort, .plainPort: "port"
            case .skinsDir, .dataDir: "folder"
            case .tokensFile, .benchBody, .tlsCert, .tlsKey, .signingKey, .storePasswordFile, .notifySecretFile,
                .notifyCaFile:
                "file"
            case .notifyUrl: "url"
            case .store: "postgres-uri"
            case .cacheMaxAge, .catalogHorizon, .drainTimeout, .shutdownDelay, .headerTimeout, .idleTimeout,
                .startTimeout,
                .scrubInterval:
                "seconds"
            case .logLevel: "level"
            case .logFormat: "format"
            case .eventLoopAffinity: "mode"
            case .maxConnections, .maxHeaderBytes, .eventLoops, .maxParallelBuilds: "count"
            case .reportDeviceRate: "per-hour"
            case .reportAddressRate: "per-second"
            case .reportRetentionDays: "days"
            case .uploadLimit: "bytes"
            }
        }

        /// The default, as documented.
        public var defaultDescription: String {
            switch self {
            case .host: "0.0.0.0"
            case .port: "8080"
            case .skinsDir: "skins"
            case .dataDir: "data"
            case .store: "none (the file store under --data-dir)"
            case .storePasswordFile: "none"
            case .startTimeout: "600"
            case .tokensFile: "none (admin API off)"
            case .uploadLimit: "67108864 (64 MiB)"
            case .cacheMaxAge: "60"
            case .catalogHorizon: "1209600 (14 days)"
            case .logLevel: "info"
            case .logFormat: "text"
            case .metricsPort: "none (/metrics on the main port)"
            case .tlsCert, .tlsKey: "none (plain HTTP)"
            case .plainPort: "none"
            case .signingKey: "none (answers unsigned)"
            case .drainTimeout: "10"
            case .shutdownDelay: "0"
            case .maxConnections: "16384"
            case .maxHeaderBytes: "16384"
            case .headerTimeout: "10"
            case .idleTimeout: "60"
            case .eventLoops: "one per core"
            case .eventLoopAffinity: "off"
            case .maxParallelBuilds: "2"
            case .scrubInterval: "86400"
            case .reportDeviceRate: "12"
            case .reportAddressRate: "50"
            case .reportRetentionDays: "90"
            case .notifyUrl: "none (no webhook)"
            case .notifySecretFile: "none (unsigned)"
            case .notifyCaFile: "none (the system's CAs)"
            case .benchBody: "none"
            }
        }

        /// What the setting does, in one or two sentences.
        public var summary: String {
            switch self {
            case .host:
                "Address to listen on: 0.0.0.0, ::, 127.0.0.1, ::1 or a host name."
            case .port:
                "TCP port of the API; 0 picks a free port."
            case .skinsDir:
                "Folder whose subfolders are the skins to serve; must exist."
            case .dataDir:
                "Folder for state and the package cache; created if missing, must be writable."
            case .store:
                "Keep state in PostgreSQL at this libpq URI (postgres:// or postgresql://, handed to libpq as it is), "
                    + "shared by every replica; --data-dir then holds only local caches. The password is never logged."
            case .storePasswordFile:
                "File holding the PostgreSQL password of --store (a mounted secret; one trailing newline ignored)."
            case .startTimeout:
                "Seconds a starting server may take to become ready (PostgreSQL reachable, migrations and the first "
                    + "import done, the catalog loaded); past it, it exits with status 2 naming what it waited for "
                    + "(PostgreSQL, or the migration or import lock and who holds it). 0 waits forever."
            case .tokensFile:
                "File holding the admin API tokens; must be readable when set. Mount it as a secret."
            case .uploadLimit:
                "Largest skin upload the admin API accepts, in bytes (413 above)."
            case .cacheMaxAge:
                "Most seconds a poll answer may be cached (Cache-Control max-age), 0-86400."
            case .catalogHorizon:
                "How far ahead GET /api/v1/catalog lists skins and themes (its horizonEndsAt), in whole seconds, "
                    + "3600-31536000."
            case .logLevel:
                "Log level: trace, debug, info, notice, warning, error or critical."
            case .logFormat:
                "Log format: text (human-readable) or json (one object per line)."
            case .metricsPort:
                "Serve GET /metrics on this separate port instead of the main one; 0 picks a free port."
            case .tlsCert:
                "Serve HTTPS on --port with this PEM certificate chain (server certificate first); needs --tls-key. "
                    + "Reloaded on SIGHUP."
            case .tlsKey:
                "The unencrypted PEM private key of --tls-cert. Reloaded on SIGHUP."
            case .plainPort:
                "With TLS, also serve the same routes over plain HTTP on this port (for health checks from a "
                    + "TLS-terminating proxy); 0 picks a free port."
            case .signingKey:
                "Sign every poll answer with this private key file from `livery keys create` (mode 0600): a "
                    + "Livery-Signature header and expiresAt in the body."
            case .drainTimeout:
                "Seconds in-flight requests get to finish once the server stops accepting on shutdown."
            case .shutdownDelay:
                "Seconds between SIGTERM and closing the listener, while /readyz answers 503 so load balancers "
                    + "stop sending traffic."
            case .maxConnections:
                "Open connections above which new ones get a 503."
            case .maxHeaderBytes:
                "Largest request line plus headers, in bytes (431 above), 256-1048576."
            case .headerTimeout:
                "Seconds a client gets to send a complete request head (408 after)."
            case .idleTimeout:
                "Seconds a keep-alive connection may sit idle, or a transfer may stall."
            case .eventLoops:
                "Event-loop threads serving connections, 1-64."
            case .eventLoopAffinity:
                "off, or cpus: pin event loop i to the i-th CPU the process may run on, and serve each new "
                    + "connection on the loop of the CPU that received it unless that loop is far busier than the others."
            case .maxParallelBuilds:
                "Most package builds at once, 1-64."
            case .scrubInterval:
                "Seconds between scrubs: every blob, version and package record rehashed (as `livery store verify` "
                    + "does), damage logged and counted; 0 turns it off. With PostgreSQL one replica scrubs at a time."
            case .reportDeviceRate:
                "Report requests (POST /api/v1/reports) one device may send per hour, 1-3600; more get 429 with "
                    + "Retry-After. Per replica, in memory."
            case .reportAddressRate:
                "Report requests one client address may send per second (bursts of ten seconds' worth), 1-100000; "
                    + "more get 429. A rate, not a cap on devices: phones behind one NAT all count. Per replica."
            case .reportRetentionDays:
                "Days phones' reports are kept after the store recorded them, 30-3650 (30: the longest guard window); "
                    + "older ones are removed hourly, on disk and in memory, and leave the health figures."
            case .notifyUrl:
                "When a release's guard trips, POST a JSON body naming the skin, version, figures and action to this "
                    + "http:// or https:// URL (system CAs, or --notify-ca-file) from the one replica whose trip committed; 5 s per try, "
                    + "5 tries (docs/OPERATING.md, Guarded releases)."
            case .notifySecretFile:
                "File holding the webhook's HMAC-SHA256 key (one trailing newline ignored): each call carries "
                    + "Livery-Signature-HMAC: sha256=<hex> over the exact body. Needs --notify-url."
            case .notifyCaFile:
                "PEM file of the CA certificates an https:// --notify-url must be signed by, instead of the system's "
                    + "(a private CA). Needs --notify-url."
            case .benchBody:
                "Benchmark only: serve this file's bytes from memory at GET /bench (see bench/README.md)."
            }
        }

        /// The text `livery serve --help` shows for the setting.
        public var helpText: String {
            "\(summary) Env \(environmentVariable). Default \(defaultDescription)."
        }
    }

    /// Where a setting's value came from.
    public enum Source: Sendable, Hashable {
        /// The command-line flag.
        case flag
        /// The environment variable.
        case environment
        /// Neither was given.
        case defaultValue
    }
}
