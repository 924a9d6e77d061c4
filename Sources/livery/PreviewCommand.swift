import ArgumentParser
import SkinModel

/// `livery preview --app … --platform … --app-version … [--device-id] [--at]`.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show what an app would get from /api/v1/skin at an instant, and why.",
        discussion: """
            Prints the exact answer body, then every released skin of the app in precedence order with its \
            outcome (selected, outranked, or excluded and by which rule). --json prints the server's answer.

            Exit status: 0 shown; 1 refused by the server (a parameter is invalid, or unknown_app: no stored \
            skin belongs to --app; --force previews it anyway); 2 bad arguments or \
            LIVERY_TOKEN unset; 3 server unreachable or failing.
            """)

    @Option(help: "The app id.")
    var app: String

    @Option(help: "ios, android, harmony or macos.")
    var platform: String

    @Option(help: "The app version, such as 7.2.0.")
    var appVersion: String

    @Option(help: "A device id, for rollout bucketing.")
    var deviceId: String?

    @Option(help: "The instant, ISO 8601 with an offset (default: now).")
    var at: String?

    @Option(help: "1, 2 or 3 (default 3).")
    var scale: Int?

    @Option(help: "light or dark (default light).")
    var appearance: String?

    @Flag(help: "Print the server's JSON answer.")
    var json = false

    @Flag(help: "Preview an app no stored skin belongs to (otherwise refused as unknown_app).")
    var force = false

    @OptionGroup var server: ServerOptions

    func run() throws {
        try OpsCommand.run { () throws(AdminClientError) in
            var query = [("app", app), ("platform", platform), ("appVersion", appVersion)]
            if let deviceId { query.append(("deviceId", deviceId)) }
            if let at { query.append(("at", at)) }
            if let scale { query.append(("scale", String(scale))) }
            if let appearance { query.append(("appearance", appearance)) }
            if force { query.append(("force", "true")) }
            let text = query.map { "\($0.0)=\(OpsCommand.queryValue($0.1))" }.joined(separator: "&")
            let answer = try server.session().call("GET", "/preview?" + text)
            if json {
                CommandInput.writeStandardOutput(answer.json.serialized(.pretty))
                return
            }
            let body = answer.json.objectValue
            var lines = ["at \(body?["at"]?.stringValue ?? "?"): \(body?["answer"]?.compactText ?? "?")"]
            if body?["killSwitch"] == .bool(true) { lines.append("kill switch: ON for this app") }
            for skin in body?["considered"]?.arrayValue ?? [] {
                guard let skin = skin.objectValue else { continue }
                var line = "  \(skin["skinId"]?.stringValue ?? "?") v\(skin["version"]?.intValue ?? 0): \(skin["outcome"]?.stringValue ?? "?")"
                if let reason = skin["reason"]?.stringValue { line += " (\(reason))" }
                if skin["next"] == .bool(true) { line += " [next]" }
                lines.append(line)
            }
            if body?["considered"]?.arrayValue?.isEmpty ?? true { lines.append("  no skin is released for this app") }
            OpsCommand.print(lines.joined(separator: "\n"))
        }
    }
}
