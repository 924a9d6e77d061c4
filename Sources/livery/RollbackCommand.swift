import ArgumentParser

/// `livery rollback ID`: releases the version below the released one with the same settings.
struct RollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Serve the previous version of a skin again, with the same release settings.",
        discussion: "Exit status as for `livery release`.")

    @Argument(help: "The skin id.")
    var id: String

    @OptionGroup var server: ServerOptions

    func run() throws {
        try OpsCommand.run { () throws(AdminClientError) in
            let answer = try server.session().call("POST", "/skins/\(OpsCommand.queryValue(id))/rollback")
            OpsCommand.print(ReleaseCommand.describe(answer))
        }
    }
}
