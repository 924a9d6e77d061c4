import Foundation
import PostgresClient
import PostgresSkinStore
import PostgresTestSupport
import SkinStore
import SkinStoreConformance
import TestSupport

/// A fresh database on the suite's PostgreSQL and a local cache folder: the storage of one `PostgresSkinStore`
/// (or of several replicas sharing it).
struct PostgresStoreStorage: StoreStorage {
    let server: PostgresServer
    let database: String
    let cache: ScratchDirectory

    init() async throws {
        server = try PostgresServer.forSuite()
        database = try await server.createDatabase()
        cache = try ScratchDirectory(prefix: "livery-pg-cache")
    }

    var configuration: PostgresConfiguration {
        get throws { try PostgresConfiguration(uri: server.uri(database: database)) }
    }

    func open(clock: @escaping @Sendable () -> Date) async throws -> any SkinStore {
        try await openReplica(clock: clock)
    }

    /// A store on this database with a cache folder of its own (`replica` names it), as another replica would open.
    func openReplica(
        _ replica: String = "a", clock: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> PostgresSkinStore {
        try await PostgresSkinStore.open(configuration, cacheDirectory: cache.path(replica), clock: clock)
    }

    /// Flips one bit in the middle of the blob's bytes in its row: same size, another digest.
    func damage(digest: String) async throws -> String {
        // `digest` is 64 hex characters (the suite's own), safe to put in the statement.
        try await server.psql(
            """
            UPDATE livery_blobs SET bytes = set_byte(bytes, length(bytes) / 2, get_byte(bytes, length(bytes) / 2) # 1)
            WHERE sha256 = '\(digest)'
            """, database: database)
        return "sha256=\(digest)"
    }
}
