import PostgresClient
import PostgresTestSupport
import TestSupport

/// A fresh database on the suite's server and a connection to it.
func connectToFreshDatabase() async throws -> (server: PostgresServer, database: String, connection: PostgresConnection)
{
    let server = try PostgresServer.forSuite()
    let database = try await server.createDatabase()
    let connection = try await PostgresConnection.connect(PostgresConfiguration(uri: server.uri(database: database)))
    return (server, database, connection)
}

/// Thrown by `within` when the work did not finish in time.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// The result of `body`, or `TimedOut` if it takes longer than `limit` (the work is cancelled then).
func within<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut(what: what) }
        return value
    }
}

/// The next event of `listener`, waiting at most `limit`; nil when the stream ended.
func nextEvent(
    of listener: PostgresListener, within limit: Duration = .seconds(60)
) async throws -> PostgresListener.Event? {
    let events = listener.events
    return try await within(limit, "a listener event") {
        var iterator = events.makeAsyncIterator()
        return await iterator.next()
    }
}
