import ArgumentParser
import LiveryJSON
import SkinModel

/// `livery killswitch on|off|status [--app APP] [--reason TEXT]`.
struct KillSwitchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "killswitch",
        abstract: "Switch every skin off (or back on), for all apps or one app; or show the switches.",
        discussion: """
            `on` makes every poll answer {"skinSign": ""} (apps show their default look) before this command \
            returns; `off` serves skins again. Without --app the global switch is set. An --app no stored skin \
            belongs to is refused (unknown_app, naming the closest known app) unless --force.

            Exit status: 0 done; 1 refused by the server; 2 bad arguments or LIVERY_TOKEN unset; 3 server \
            unreachable or failing.
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case on, off, status
    }

    @Argument(help: "on, off, or status.")
    var action: Action

    @Option(help: "Only this app (its id as apps send it). Default: all apps.")
    var app: String?

    @Option(help: "Why, for the audit log and other operators.")
    var reason: String?

    @Flag(help: "Set the switch for --app even though no stored skin belongs to it (otherwise refused as unknown_app).")
    var force = false

    @OptionGroup var server: ServerOptions

    func run() throws {
        try OpsCommand.run { () throws(AdminClientError) in
            let session = try server.session()
            let answer: AdminSession.Answer
            if action == .status {
                answer = try session.call("GET", "/killswitch")
            } else {
                var body = JSONObject()
                body["app"] = app.map(JSONValue.string) ?? .null
                body["enabled"] = .bool(action == .on)
                body["reason"] = .string(reason ?? "")
                answer = try session.call("PUT", "/killswitch" + (force ? "?force=true" : ""), json: .object(body))
            }
            OpsCommand.print(Self.describe(answer.json))
        }
    }

    static func describe(_ json: JSONValue) -> String {
        guard let object = json.objectValue else { return json.compactText }
        func line(_ name: String, _ setting: JSONValue?) -> String {
            guard let setting = setting?.objectValue else { return "\(name): never set (skins served)" }
            let enabled = setting["enabled"] == .bool(true)
            let reason = setting["reason"]?.stringValue ?? ""
            return "\(name): \(enabled ? "ON (no skins served)" : "off (skins served)")"
                + (reason.isEmpty ? "" : " — \(reason)")
                + " [\(setting["changedBy"]?.stringValue ?? "?") at \(setting["changedAt"]?.stringValue ?? "?")]"
        }
        var lines = [line("global", object["global"])]
        for member in object["apps"]?.objectValue ?? JSONObject() {
            lines.append(line("app \(member.key)", member.value))
        }
        return lines.joined(separator: "\n")
    }
}
