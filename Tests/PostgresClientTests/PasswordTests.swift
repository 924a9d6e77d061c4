import Foundation
import PostgresClient
import PostgresTestSupport
import TestSupport
import Testing

/// Serialized: one test sets PGPASSWORD, which libpq reads from the process environment.
@Suite(.postgresServer, .serialized)
struct PasswordTests {
    static let role = "app_user"
    static let password = "s3cr#t:p@ss/word"

    private func server() async throws -> PostgresServer {
        let server = try PostgresServer.forSuite()
        let exists = try await server.psql("SELECT count(*) FROM pg_roles WHERE rolname = '\(Self.role)'")
        if exists.hasPrefix("0") {
            try await server.psql(
                "CREATE ROLE \(Self.role) LOGIN PASSWORD '\(Self.password)' IN ROLE \(PostgresServer.passwordRole)")
        }
        return server
    }

    @Test func connectsWithThePasswordInTheURI() async throws {
        let server = try await server()
        let connection = try await PostgresConnection.connect(
            PostgresConfiguration(uri: server.uri(role: Self.role, password: Self.password)))
        #expect(try await connection.query("SELECT current_user").singleRow().string(0) == Self.role)
    }

    @Test func refusesAWrongPasswordWithoutShowingIt() async throws {
        let server = try await server()
        let wrong = "wrong-Pa55word"
        let configuration = try PostgresConfiguration(uri: server.uri(role: Self.role, password: wrong))
        await #expect {
            _ = try await PostgresConnection.connect(configuration)
        } throws: { error in
            guard case .connectionFailed(let message) = error as? PostgresError else { return false }
            return message.contains("password authentication failed") && !"\(error)".contains(wrong)
        }
    }

    @Test func connectsWithThePasswordFromAMountedFile() async throws {
        let server = try await server()
        let folder = try ScratchDirectory(prefix: "livery-password")
        let file = try folder.write("password", Array((Self.password + "\n").utf8))
        let configuration = try PostgresConfiguration(uri: server.uri(role: Self.role), passwordFile: file)
        let connection = try await PostgresConnection.connect(configuration)
        #expect(try await connection.query("SELECT current_user").singleRow().string(0) == Self.role)
        #expect(!configuration.description.contains(Self.password))
    }

    @Test func refusesAnUnreadablePasswordFileByName() async throws {
        let server = try await server()
        let configuration = try PostgresConfiguration(uri: server.uri(role: Self.role), passwordFile: "/nonexistent/pw")
        await #expect(throws: PostgresError.invalidConfiguration("cannot read the password file /nonexistent/pw")) {
            _ = try await PostgresConnection.connect(configuration)
        }
    }

    @Test func connectsWithThePasswordFromPGPASSWORD() async throws {
        let server = try await server()
        let configuration = try PostgresConfiguration(uri: server.uri(role: Self.role))
        setenv("PGPASSWORD", Self.password, 1)
        defer { unsetenv("PGPASSWORD") }
        let connection = try await PostgresConnection.connect(configuration)
        #expect(try await connection.query("SELECT current_user").singleRow().string(0) == Self.role)
    }

    @Test func neverShowsTheURIPasswordInADescription() throws {
        let uri =
            "postgresql://livery:\(Self.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")@db.internal:5432/livery?sslmode=require&password=other-secret"
        let configuration = try PostgresConfiguration(uri: uri)
        for text in [configuration.description, configuration.redactedURI, "\(configuration)"] {
            #expect(!text.contains("s3cr"), "\(text)")
            #expect(!text.contains("other-secret"), "\(text)")
        }
        #expect(
            configuration.redactedURI == "postgresql://livery:***@db.internal:5432/livery?sslmode=require&password=***")
    }

    @Test(arguments: [
        ("postgres://u:pw@host/db", "postgres://u:***@host/db"),
        ("postgresql://u@host/db", "postgresql://u@host/db"),
        ("postgresql:///db?host=/run/pg&password=pw", "postgresql:///db?host=/run/pg&password=***"),
        ("postgresql://u:p@ss@host/db", "postgresql://u:***@host/db"),
        ("postgresql://host:5432/db?PASSWORD=x&user=u", "postgresql://host:5432/db?PASSWORD=***&user=u")
    ])
    func redactsEveryPlaceAPasswordCanSit(uri: String, redacted: String) {
        #expect(PostgresConfiguration.redact(uri) == redacted)
    }

    @Test func keepsTheURIPasswordOutOfLibpqsErrorMessages() async throws {
        // libpq quotes a badly percent-encoded password in its message; the error must not carry it.
        let server = try PostgresServer.forSuite()
        let configuration = try PostgresConfiguration(
            uri: "postgresql://user:Top%zzsecret@/postgres?host=\(server.socketDirectory)")
        await #expect {
            _ = try await PostgresConnection.connect(configuration)
        } throws: { error in
            guard case .connectionFailed(let message) = error as? PostgresError else { return false }
            return message.contains("percent-encoded") && !message.contains("Top%zz") && !"\(error)".contains("Top%zz")
        }
    }
}
