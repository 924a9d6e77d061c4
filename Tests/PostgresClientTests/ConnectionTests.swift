import Foundation
import PostgresClient
import PostgresTestSupport
import TestSupport
import Testing

@Suite(.postgresServer)
struct ConnectionTests {
    @Test func connectsOverTheUnixSocketFolderGivenInTheHostParameter() async throws {
        let (_, database, connection) = try await connectToFreshDatabase()
        let row = try await connection.query("SELECT current_database(), inet_server_addr() IS NULL").singleRow()
        #expect(try row.string(0) == database)
        #expect(try row.bool(1), "a Unix-socket session has no server address")
    }

    @Test(arguments: ["postgres://", "postgresql://"])
    func acceptsBothURISchemes(scheme: String) async throws {
        let server = try PostgresServer.forSuite()
        let uri = server.uri().replacingOccurrences(of: "postgresql://", with: scheme)
        let connection = try await PostgresConnection.connect(PostgresConfiguration(uri: uri))
        #expect(try await connection.query("SELECT 1").singleRow().int(0) == 1)
    }

    @Test(arguments: ["mysql://u@h/db", "host=/tmp dbname=x", "", "/tmp/socket", "postgresql:///db\0?host=/elsewhere"])
    func refusesAnythingButAPostgresURI(uri: String) {
        #expect {
            _ = try PostgresConfiguration(uri: uri)
        } throws: { error in
            if case .invalidConfiguration = error as? PostgresError { return true }
            return false
        }
    }

    @Test func failsToConnectWhenNoServerListensThere() async throws {
        let empty = try ScratchDirectory(prefix: "livery-no-server")
        let configuration = try PostgresConfiguration(uri: "postgresql:///postgres?host=\(empty.path)")
        await #expect {
            _ = try await PostgresConnection.connect(configuration)
        } throws: { error in
            guard case .connectionFailed(let message) = error as? PostgresError else { return false }
            return message.contains(empty.path)
        }
    }

    @Test func bindsParametersAsValuesNeverAsSQL() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        let hostile = "'); DROP TABLE t; -- ünïcödé ☃"
        try await connection.query("CREATE TABLE t (name text, count integer, flag boolean)")
        try await connection.query("INSERT INTO t VALUES ($1, $2, $3)", [.text(hostile), .int(-42), .bool(true)])
        try await connection.query("INSERT INTO t VALUES ($1, $2, $3)", [nil, nil, nil])
        let result = try await connection.query("SELECT name, count, flag FROM t ORDER BY name NULLS LAST")
        #expect(result.columns == ["name", "count", "flag"])
        #expect(result.rows.count == 2)
        #expect(try result.rows[0].string(0) == hostile)
        #expect(try result.rows[0].int(1) == -42)
        #expect(try result.rows[0].bool(2))
        #expect(try result.rows[1].isNull(0))
        #expect(try result.rows[1].optionalString(0) == nil)
        #expect(try result.rows[1].optionalInt(1) == nil)
        #expect(throws: PostgresError.decoding(column: "count", reason: "is NULL")) { try result.rows[1].int(1) }
        #expect(try await connection.query("DELETE FROM t WHERE count = $1", [.int(-42)]).affectedRows == 1)
    }

    @Test func refusesATextParameterHoldingANULByteInsteadOfCuttingIt() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        await #expect(throws: PostgresError.invalidParameter(position: 2, reason: "text holds a NUL byte")) {
            try await connection.query("SELECT $1::text, $2::text", ["fine", "cut\0here"])
        }
        #expect(try await connection.query("SELECT 1").singleRow().int(0) == 1, "the connection stays usable")
    }

    @Test func roundTripsEveryByteValueThroughBytea() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        var random = SplitMix64(seed: 14)
        let every = [UInt8](0...255)
        let noise = (0..<200_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        try await connection.query("CREATE TABLE blobs (id integer PRIMARY KEY, data bytea)")
        for (id, blob) in [every, noise, [], [0, 0, 0]].enumerated() {
            try await connection.query("INSERT INTO blobs VALUES ($1, $2)", [.int(id), .bytes(blob)])
        }
        try await connection.query("INSERT INTO blobs VALUES (9, NULL)")
        let rows = try await connection.query("SELECT data, length(data) FROM blobs ORDER BY id").rows
        #expect(try rows.map { try $0.optionalBytes(0) } == [every, noise, [], [0, 0, 0], nil])
        #expect(try rows[1].int(1) == noise.count, "the server stored every byte, not a C string's prefix")
    }

    @Test func refusesValuesThatAreNotWhatTheCallerAskedFor() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        try await connection.query("SET bytea_output = escape")
        let row = try await connection.query("SELECT '\\x0001'::bytea, 'twelve', 'maybe'").singleRow()
        #expect(throws: PostgresError.decoding(column: "bytea", reason: "not a bytea in hex format")) {
            try row.bytes(0)
        }
        #expect(throws: PostgresError.decoding(column: "?column?", reason: "not an integer: twelve")) { try row.int(1) }
        #expect(throws: PostgresError.decoding(column: "?column?", reason: "not a boolean: maybe")) { try row.bool(2) }
        #expect(throws: PostgresError.decoding(column: "#3", reason: "the row has 3 columns")) { try row.string(3) }
    }

    @Test func reportsServerErrorsWithTheirSQLState() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        try await connection.query("CREATE TABLE skins (id text CONSTRAINT skins_pkey PRIMARY KEY)")
        try await connection.query("INSERT INTO skins VALUES ('xmas')")
        do {
            try await connection.query("INSERT INTO skins VALUES ($1)", ["xmas"])
            Issue.record("a duplicate key was accepted")
        } catch {
            guard case .server(let server) = error else { throw error }
            #expect(server.sqlState == .uniqueViolation)
            #expect(server.constraint == "skins_pkey")
            #expect(server.detail?.contains("xmas") == true)
            #expect(!error.isConnectionProblem)
        }
        await #expect { try await connection.query("SELEC 1") } throws: {
            ($0 as? PostgresError)?.sqlState == .syntaxError
        }
        await #expect { try await connection.query("SELECT * FROM missing") } throws: {
            ($0 as? PostgresError)?.sqlState == .undefinedTable
        }
        #expect(try await connection.query("SELECT count(*) FROM skins").singleRow().int(0) == 1)
    }

    @Test func reportsASerializationFailureAsTransient() async throws {
        let (server, database, first) = try await connectToFreshDatabase()
        let second = try await PostgresConnection.connect(PostgresConfiguration(uri: server.uri(database: database)))
        try await first.query("CREATE TABLE counter (value integer)")
        try await first.query("INSERT INTO counter VALUES (0)")
        try await first.query("BEGIN ISOLATION LEVEL REPEATABLE READ")
        #expect(try await first.query("SELECT value FROM counter").singleRow().int(0) == 0)
        try await second.query("UPDATE counter SET value = value + 1")
        await #expect {
            try await first.query("UPDATE counter SET value = value + 10")
        } throws: { error in
            (error as? PostgresError)?.sqlState == .serializationFailure
                && (error as? PostgresError)?.sqlState?.isTransient == true
        }
        try await first.query("ROLLBACK")
        #expect(try await first.query("SELECT value FROM counter").singleRow().int(0) == 1)
    }

    @Test func tellsALostConnectionApartFromAFailedStatement() async throws {
        let (server, database, connection) = try await connectToFreshDatabase()
        let other = try await PostgresConnection.connect(PostgresConfiguration(uri: server.uri(database: database)))
        let pid = try await connection.withSession { $0.serverProcessID }
        #expect(try await other.query("SELECT pg_terminate_backend($1)", [.int(pid)]).singleRow().bool(0))
        await #expect {
            try await connection.query("SELECT 1")
        } throws: { error in
            guard let error = error as? PostgresError, case .connectionLost = error else { return false }
            return error.isConnectionProblem && error.sqlState == nil
        }
        #expect(await connection.isConnected == false)
    }

    @Test func runsEveryCallOffTheCallersThread() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        let threadName = { @Sendable (_: PostgresSession) in
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
                ?? ""
        }
        let first = try await connection.withSession(threadName)
        let second = try await connection.withSession(threadName)
        #expect(first == "pg connection")
        #expect(second == first)
    }

    @Test func refusesCallsAfterClose() async throws {
        let (_, _, connection) = try await connectToFreshDatabase()
        await connection.close()
        await #expect(throws: PostgresError.closed) { try await connection.query("SELECT 1") }
    }
}
