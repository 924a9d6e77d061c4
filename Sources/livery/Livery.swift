import ArgumentParser
import Foundation
import LiveryCrypto

@main
struct Livery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Livery: a holiday skin package server.",
        subcommands: [
            ServeCommand.self, ValidateCommand.self, ResolveCommand.self, PackCommand.self, HealthcheckCommand.self,
            TokenCommand.self, PushCommand.self, ReleaseCommand.self, RollbackCommand.self, KillSwitchCommand.self,
            PreviewCommand.self, ThemesCommand.self, OccurrencesCommand.self, HealthCommand.self, KeysCommand.self,
            VerifyCommand.self, MigrateCommand.self, ImportCommand.self,
            StoreCommand.self
        ])

    /// The argument parser's `main`, except that bad arguments exit with status 2, as the docs state for
    /// every command (docs/ARCHITECTURE.md, livery), rather than the parser's 64 (`EX_USAGE`).
    static func main() async {
        OpenSSLProcess.keepLibraryUntilExit()
        do {
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            CommandInput.writeStandardError(Array((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}
