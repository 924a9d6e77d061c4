import TestSupport
import Testing

extension PostgresServer {
    /// The server of the suite being run, set by the `.postgresServer` trait for every test inside it.
    @TaskLocal public static var current: PostgresServer?

    /// The current suite's server; throws when the suite does not carry `.postgresServer`.
    public static func forSuite() throws -> PostgresServer {
        guard let current else { throw Failure(description: "the suite needs the .postgresServer trait") }
        return current
    }
}

/// Starts one real PostgreSQL (`PostgresServer`) for a whole suite, hands it to the suite's tests as
/// `PostgresServer.current`, and shuts it down when the suite ends, passed or failed.
public struct PostgresServerTrait: SuiteTrait, TestScoping {
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await PostgresServer.withServer { server in
            try await PostgresServer.$current.withValue(server) { try await function() }
        }
    }
}

extension Trait where Self == PostgresServerTrait {
    /// One real PostgreSQL server for the suite: see `PostgresServerTrait`.
    public static var postgresServer: Self { Self() }
}
