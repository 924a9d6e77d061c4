import Testing

@testable import PostgresClient

/// What libpq is given besides the URI: defaults the URI may override.
@Suite struct ConnectionParameterTests {
    @Test func aSilentlyUnreachableServerIsNoticedWithinSecondsUnlessTheURISaysOtherwise() throws {
        var configuration = try PostgresConfiguration(uri: "postgresql://livery@db/livery?tcp_user_timeout=30000")
        configuration.tcpTimeoutSeconds = 7
        let (keywords, values, _) = try configuration.connectionParameters()
        let given = Dictionary(zip(keywords, values), uniquingKeysWith: { $1 })
        #expect(given["tcp_user_timeout"] == "7000")
        #expect(given["keepalives"] == "1" && given["keepalives_idle"] == "5")
        #expect(given["keepalives_interval"] == "2" && given["keepalives_count"] == "3")
        // libpq lets later entries win, and expands the URI where `dbname` is: it comes after the defaults.
        let uriPosition = try #require(keywords.firstIndex(of: "dbname"))
        #expect(keywords.firstIndex(of: "tcp_user_timeout").map { $0 < uriPosition } == true)
        #expect(values[uriPosition] == configuration.uri)
    }
}
