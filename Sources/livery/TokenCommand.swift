import ArgumentParser
import LiveryCrypto
import LiveryServer

/// `livery token create NAME --role editor|viewer`.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Manage admin tokens.",
        subcommands: [Create.self])

    /// Prints a new random token and the tokens-file line to add.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Print a new random admin token and the line to add to the tokens file.",
            discussion: """
                Standard output gets two lines: the token (shown only now; the server keeps only its SHA-256), \
                then the line for the tokens file. Add the line to the file given to `livery serve \
                --tokens-file`; the server picks it up within a second, or at once on SIGHUP. To revoke a token, \
                delete its line.
                """)

        @Argument(help: "The token's name (1-64 characters of A-Z a-z 0-9 . _ -); it is the actor in the audit log.")
        var name: String

        @Option(help: "editor (may change everything) or viewer (read only).")
        var role: String

        func validate() throws {
            guard TokenFile.isValidName(name) else {
                throw ValidationError("The name must be 1-64 characters of A-Z a-z 0-9 . _ -, got '\(name)'.")
            }
            guard AdminRole(rawValue: role) != nil else {
                throw ValidationError("--role must be editor or viewer, got '\(role)'.")
            }
        }

        func run() throws {
            guard let role = AdminRole(rawValue: role) else { throw ExitCode(2) }
            let token: String
            do {
                token = try TokenFile.newToken()
            } catch {
                CommandInput.writeStandardError(Array("livery: the system random generator failed\n".utf8))
                throw ExitCode(3)
            }
            OpsCommand.print(token)
            OpsCommand.print(TokenFile.line(name: name, role: role, token: token))
            CommandInput.writeStandardError(
                Array(
                    """
                    Line 1 is the token: give it to its user (LIVERY_TOKEN) now, it is not stored anywhere.
                    Line 2 goes into the tokens file; the server reloads it within a second (or on SIGHUP).

                    """.utf8))
        }
    }
}
