import ArgumentParser

@main
struct Livery: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Livery: a holiday skin package server.",
        subcommands: [ValidateCommand.self, ResolveCommand.self, PackCommand.self])
}
