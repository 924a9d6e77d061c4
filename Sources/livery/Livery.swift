import ArgumentParser

@main
struct Livery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Livery: a holiday skin package server.",
        subcommands: [
            ServeCommand.self, ValidateCommand.self, ResolveCommand.self, PackCommand.self, HealthcheckCommand.self,
            TokenCommand.self, PushCommand.self, ReleaseCommand.self, RollbackCommand.self, KillSwitchCommand.self,
            PreviewCommand.self, KeysCommand.self, VerifyCommand.self,
        ])
}
