import Foundation
import LiveryServer
import LiverySetup
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

    /// Connects `store` and loads the service's catalog from it (importing the skins folder into an empty store),
    /// starting over while PostgreSQL cannot be reached (it may go away between the two).
    ///
    /// - Throws: what can never work: a schema newer than this binary, damaged rows (`PostgresStoreError`), an
    ///   import the store refuses (`LiveryServiceError`).
    static func load(_ service: LiveryService, from store: PostgresSkinStore, logger: Logger) async throws {
        while true {
            try await connect(store, logger: logger)
            do throws(LiveryServiceError) {
                try await service.loadCatalog()
                return
            } catch .store(.unavailable(let reason)) {
                logger.warning("PostgreSQL went away while loading; starting over", metadata: ["error": "\(reason)"])
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Connects `store` (migrating its schema and loading its state), waiting with backoff while PostgreSQL cannot
    /// be reached. Throws (and logs as critical) when it can never work: a schema newer than this binary, damaged
    /// rows.
    static func connect(_ store: PostgresSkinStore, logger: Logger) async throws(PostgresStoreError) {
        var attempts = 0
        do {
            try await store.connectRetrying { error, delay in
                attempts += 1
                // The 1st, 2nd, 4th, 8th… failure: an outage is logged without flooding the log.
                guard attempts & (attempts - 1) == 0 else { return }
                logger.warning(
                    "PostgreSQL unreachable; not ready until it answers",
                    metadata: [
                        "store": "\(store.redactedURI)", "error": "\(error)", "attempts": "\(attempts)",
                        "retry.in": "\(delay)"
                    ])
            }
            logger.info(
                "connected to PostgreSQL",
                metadata: ["store": "\(store.redactedURI)", "store.revision": "\(store.snapshot.revision)"])
        } catch {
            guard !Task.isCancelled else { throw error }
            logger.critical(
                "cannot use the PostgreSQL store: \(error) (\(LiveryConfiguration.Setting.store.flag))",
                metadata: ["store": "\(store.redactedURI)"])
            throw error
        }
    }
}
