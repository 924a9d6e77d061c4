import Foundation
import PostgresTestSupport
import TestSupport
import Testing

struct PostgresServerTests {
    @Test func runsAsAnUnprivilegedUserOnASocketInsideItsFolderOnly() async throws {
        try await PostgresServer.withServer { server in
            #expect(try await server.psql("SHOW listen_addresses") == "\n", "no TCP listener")
            #expect(try await server.psql("SHOW unix_socket_directories") == server.socketDirectory + "\n")
            #expect(FileManager.default.fileExists(atPath: server.socketDirectory + "/.s.PGSQL.5432"))
            let pid = try #require(server.processID)
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst()
                .first
            #expect(uid != nil && uid != "0", "the server does not run as root")
        }
    }

    @Test func stopsRestartsSurvivesSIGKILLAndLeavesNoProcessBehind() async throws {
        let group = try await PostgresServer.withServer { server in
            let database = try await server.createDatabase()
            try await server.psql("CREATE TABLE kept (value integer); INSERT INTO kept VALUES (14)", database: database)
            try await server.stop()
            #expect(!server.isRunning)
            await #expect(throws: (any Error).self) { try await server.psql("SELECT 1") }
            try await server.start()
            let killed = try #require(server.processID)
            try await server.kill()
            #expect(!PostgresServer.groupIsAlive(killed), "SIGKILL took every server process")
            try await server.start()
            #expect(try await server.psql("SELECT value FROM kept", database: database) == "14\n")
            return try #require(server.processID)
        }
        #expect(!PostgresServer.groupIsAlive(group), "shut down at the end: no stray server")
    }
}
