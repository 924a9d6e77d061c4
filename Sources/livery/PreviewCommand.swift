import ArgumentParser
import LiveryJSON
import SkinModel

/// The client a `preview` or `themes` command asks about, as `/admin/v1/preview` reads it.
struct ClientQueryOptions: ParsableArguments {
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

    @Option(help: "light, dark or any (default light).")
    var appearance: String?

    @Flag(help: "Preview an app no stored skin belongs to (otherwise refused as unknown_app).")
    var force = false

    @Flag(help: "Print the server's JSON answer.")
    var json = false

    /// Asks the server for this client's preview and prints it: as JSON with `--json`, else the lines `describe`
    /// makes of the answer.
    func show(_ server: ServerOptions, _ describe: (JSONObject?) -> [String]) throws {
        try OpsCommand.run { () throws(AdminClientError) in
            let answer = try preview(server)
            if json {
                CommandInput.writeStandardOutput(answer.serialized(.pretty))
            } else {
                OpsCommand.print(describe(answer.objectValue).joined(separator: "\n"))
            }
        }
    }

    /// The server's preview for this client.
    func preview(_ server: ServerOptions) throws(AdminClientError) -> JSONValue {
        var query = [("app", app), ("platform", platform), ("appVersion", appVersion)]
        if let deviceId { query.append(("deviceId", deviceId)) }
        if let at { query.append(("at", at)) }
        if let scale { query.append(("scale", String(scale))) }
        if let appearance { query.append(("appearance", appearance)) }
        if force { query.append(("force", "true")) }
        let text = query.map { "\($0.0)=\(OpsCommand.queryValue($0.1))" }.joined(separator: "&")
        return try server.session().call("GET", "/preview?" + text).json
    }

    /// `  <id> v<version>: <outcome> (<reason>)`: one considered skin or theme of a preview.
    static func outcome(of entry: JSONObject, id key: String) -> String {
        var line =
            "  \(entry[key]?.stringValue ?? "?") v\(entry["version"]?.intValue ?? 0): \(entry["outcome"]?.stringValue ?? "?")"
        if let reason = entry["reason"]?.stringValue { line += " (\(reason))" }
        return line
    }
}

/// `livery preview --app … --platform … --app-version … [--device-id] [--at]`.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show what an app would get from /api/v1/skin at an instant, and why.",
        discussion: """
            Prints the exact answer body, then every released skin of the app in precedence order with its \
            outcome (selected, outranked, or excluded and by which rule), then every released theme with its \
            outcome (listed, or excluded and by which rule). --json prints the server's answer.

            Exit status: 0 shown; 1 refused by the server (a parameter is invalid, or unknown_app: no stored \
            skin belongs to --app; --force previews it anyway); 2 bad arguments or \
            LIVERY_TOKEN unset; 3 server unreachable or failing.
            """)

    @OptionGroup var client: ClientQueryOptions

    @OptionGroup var server: ServerOptions

    func run() throws {
        try client.show(server) { body in
            var lines = ["at \(body?["at"]?.stringValue ?? "?"): \(body?["answer"]?.compactText ?? "?")"]
            if body?["killSwitch"] == .bool(true) { lines.append("kill switch: ON for this app") }
            for skin in body?["considered"]?.arrayValue ?? [] {
                guard let skin = skin.objectValue else { continue }
                lines.append(
                    ClientQueryOptions.outcome(of: skin, id: "skinId") + (skin["next"] == .bool(true) ? " [next]" : ""))
            }
            if body?["considered"]?.arrayValue?.isEmpty ?? true { lines.append("  no skin is released for this app") }
            // Themes the app lists beside its skin (`livery themes` shows the list itself).
            let themes = body?["themes"]?.arrayValue ?? []
            lines.append("themes:")
            for theme in themes {
                guard let theme = theme.objectValue else { continue }
                lines.append(ClientQueryOptions.outcome(of: theme, id: "themeId"))
            }
            if themes.isEmpty { lines.append("  no theme is released for this app") }
            return lines
        }
    }
}

/// `livery themes --app … --platform … --app-version … [--device-id] [--at]`.
struct ThemesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "themes",
        abstract: "Show the themes an app would list from /api/v1/themes at an instant, and why.",
        discussion: """
            Prints the themes listed, in list order (id, title, package sign), then every released theme of the \
            app with its outcome (listed, or excluded and by which rule). --json prints the server's answer.

            Exit status: 0 shown; 1 refused by the server (a parameter is invalid, or unknown_app: no stored \
            skin belongs to --app; --force shows it anyway); 2 bad arguments or LIVERY_TOKEN unset; 3 server \
            unreachable or failing.
            """)

    @OptionGroup var client: ClientQueryOptions

    @OptionGroup var server: ServerOptions

    func run() throws {
        try client.show(server) { body in
            let listed = body?["themeList"]?.objectValue?["themes"]?.arrayValue ?? []
            var lines = ["at \(body?["at"]?.stringValue ?? "?"): \(listed.count) theme(s) listed"]
            if body?["killSwitch"] == .bool(true) { lines.append("kill switch: ON for this app") }
            for (position, theme) in listed.enumerated() {
                let entry = theme.objectValue
                lines.append(
                    "  \(position + 1). \(entry?["id"]?.stringValue ?? "?") \"\(entry?["title"]?.stringValue ?? "")\" "
                        + "sign \(entry?["sign"]?.stringValue ?? "?")")
            }
            lines.append("considered:")
            for theme in body?["themes"]?.arrayValue ?? [] {
                guard let theme = theme.objectValue else { continue }
                lines.append(ClientQueryOptions.outcome(of: theme, id: "themeId"))
            }
            if body?["themes"]?.arrayValue?.isEmpty ?? true { lines.append("  no theme is released for this app") }
            return lines
        }
    }
}
