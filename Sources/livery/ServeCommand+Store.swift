import Foundation
import LiveryServer
import Logging
import PostgresClient
import PostgresSkinStore

extension ServeCommand {
    /// The PostgreSQL store `--store` names, not connected yet (`connect` does that once the server listens), or
    /// nil for the file store. An unusable URI or cache folder stops the start (exit 2); the URI is only ever shown
    /// redacted.
    static func sharedStore(_ settings: LiveryConfiguration, logger: Logger) -> PostgresSkinStore? {
        guard let uri = settings.store else { return nil }
        let redacted = PostgresConfiguration.redact(uri)
        let configuration: PostgresConfiguration
        do {
            configuration = try PostgresConfiguration(uri: uri, passwordFile: settings.storePasswordFile)
        } catch {
            failStartup(settings.error(.store, redacted, "\(error)"))
        }
        do {
            let store = try PostgresSkinStore(configuration, cacheDirectory: settings.dataDirectory + "/blobs-cache")
            logger.info("state in PostgreSQL", metadata: ["store": "\(redacted)"])
            return store
        } catch {
            failStartup(settings.error(.dataDir, settings.dataDirectory, "\(error)"))
        }
    }

    /// Connects `store` (migrating its schema and loading its state), waiting with backoff while PostgreSQL cannot
    /// be reached. False (logged as critical) when it can never work: a schema newer than this binary, damaged
    /// rows.
    static func connect(_ store: PostgresSkinStore, logger: Logger) async -> Bool {
        var attempts = 0
        do {
            try await store.connectRetrying { error, delay in
                attempts += 1
                // The 1st, 2nd, 4th, 8th… failure: an outage is logged without flooding the log.
                guard attempts & (attempts - 1) == 0 else { return }
                logger.warning(
                    "PostgreSQL unreachable; not ready until it answers",
                    metadata: ["store": "\(store.redactedURI)", "error": "\(error)", "attempts": "\(attempts)",
                               "retry.in": "\(delay)"])
            }
            logger.info("connected to PostgreSQL", metadata: ["store": "\(store.redactedURI)", "store.revision": "\(store.snapshot.revision)"])
            return true
        } catch {
            logger.critical(
                "cannot use the PostgreSQL store: \(error) (\(LiveryConfiguration.Setting.store.flag))",
                metadata: ["store": "\(store.redactedURI)"])
            return false
        }
    }
}
