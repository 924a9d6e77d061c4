import ArgumentParser
import Foundation
import LiveryJSON
import SkinModel

/// `livery release ID …`: releases a version, or changes fields of the current release (such as the rollout).
struct ReleaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release a skin version, or change the current release (rollout, window, targeting).",
        discussion: """
            On a skin that is released, this changes only the options given and keeps the rest of the current \
            release (PATCH), including the released version unless --version is given: e.g. \
            `livery release spring-2027 --rollout 60` raises the rollout alone, and \
            `livery release spring-2027 --from … --until …` moves the window alone. On a skin that is not released, \
            --from and --until are required and options not given take their defaults (priority 0, every \
            platform, no version bounds, rollout 100, the latest version). --replace sets the whole release even \
            on a released skin (PUT), printing every option it resets to its default; the version stays the \
            released one unless --version is given. --kind theme releases a theme (users pick it; the poll never \
            answers with one), which needs no window; --order places it in the themes list. The client API \
            serves the change before this command reports success.

            Exit status: 0 done; 1 refused by the server (unknown skin or version, invalid field, a window wholly \
            in the past, stale --if-match, token); 2 bad arguments or LIVERY_TOKEN unset; 3 server unreachable or \
            failing.
            """)

    @Argument(help: "The skin id.")
    var id: String

    @Option(help: "The version to serve. Default: the latest (PUT) or the released one (PATCH).")
    var version: Int?

    @Option(help: "Start of the window (inclusive), ISO 8601 such as 2027-02-05T00:00:00+08:00, or local time with --time-zone.")
    var from: String?

    @Option(help: "End of the window (exclusive), same format as --from.")
    var until: String?

    @Option(help: "IANA time zone for --from/--until written without an offset, such as Asia/Shanghai.")
    var timeZone: String?

    @Option(help: "Percentage of devices served, 0-100.")
    var rollout: Int?

    @Option(help: "Priority when windows overlap (higher wins).")
    var priority: Int?

    @Option(help: "Comma-separated platforms: ios, android, harmony, macos.")
    var platforms: String?

    @Option(help: "Lowest app version served (inclusive); 'none' removes the bound.")
    var minAppVersion: String?

    @Option(help: "First app version no longer served (exclusive); 'none' removes the bound.")
    var maxAppVersion: String?

    @Option(help: "holiday (the poll serves it in its window; the default) or theme (users pick it; the window is optional).")
    var kind: String?

    @Option(help: "Where a theme is listed, ascending (1 comes first); 'none' removes it. Themes only.")
    var order: String?

    @Option(help: "Only if the skin's ETag is still this (from a previous answer), e.g. '\"42\"' or 42.")
    var ifMatch: String?

    @Flag(help: "Replace the whole release (needs --from and --until): options not given are reset to their defaults.")
    var replace = false

    @OptionGroup var server: ServerOptions

    func validate() throws {
        if replace && (from == nil || until == nil) && kind != SkinKind.theme.rawValue {
            throw ValidationError("--replace sets the whole release: give --from and --until with it (a theme may have no window: --kind theme).")
        }
        if let kind, SkinKind(rawValue: kind) == nil { throw ValidationError("--kind must be holiday or theme, got '\(kind)'.") }
        if let order, order != "none", Int(order) == nil { throw ValidationError("--order must be a whole number or 'none', got '\(order)'.") }
        if let rollout, !(0...100).contains(rollout) { throw ValidationError("--rollout must be 0-100, got \(rollout).") }
        if let version, version < 1 { throw ValidationError("--version must be 1 or more, got \(version).") }
        let whole = from != nil && until != nil
        if !whole && version == nil && rollout == nil && priority == nil && platforms == nil && minAppVersion == nil
            && maxAppVersion == nil && timeZone == nil && from == nil && until == nil && kind == nil && order == nil
        {
            throw ValidationError("Nothing to change: give --from and --until for a new release, or the options to change (such as --rollout 50).")
        }
    }

    /// The request body from the options.
    func body() -> JSONValue {
        var object = JSONObject()
        if let version { object["version"] = .number(JSONNumber(version)) }
        if let from { object["startsAt"] = .string(from) }
        if let until { object["endsAt"] = .string(until) }
        if let timeZone { object["timeZone"] = .string(timeZone) }
        if let priority { object["priority"] = .number(JSONNumber(priority)) }
        if let platforms {
            object["platforms"] = .array(platforms.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        }
        if let minAppVersion { object["minAppVersion"] = minAppVersion == "none" ? .null : .string(minAppVersion) }
        if let maxAppVersion { object["maxAppVersion"] = maxAppVersion == "none" ? .null : .string(maxAppVersion) }
        if let rollout { object["rollout"] = .number(JSONNumber(rollout)) }
        if let kind { object["kind"] = .string(kind) }
        if let order { object["order"] = Int(order).map { .number(JSONNumber($0)) } ?? .null }
        return .object(object)
    }

    /// What a whole replacement (PUT) resets because its option was not given, as `option → default` lines.
    func resets() -> [String] {
        var lines: [String] = []
        if timeZone == nil { lines.append("--time-zone → none (--from/--until must carry an offset)") }
        if priority == nil { lines.append("--priority → 0") }
        if platforms == nil { lines.append("--platforms → ios,android,harmony,macos") }
        if minAppVersion == nil { lines.append("--min-app-version → none") }
        if maxAppVersion == nil { lines.append("--max-app-version → none") }
        if rollout == nil { lines.append("--rollout → 100") }
        if kind == nil { lines.append("--kind → holiday") }
        return lines
    }

    func run() throws {
        try OpsCommand.run { () throws(AdminClientError) in
            let session = try server.session()
            let path = "/skins/\(OpsCommand.queryValue(id))/release"
            var headers: [(String, String)] = []
            if let ifMatch { headers.append(("If-Match", ifMatch.hasPrefix("\"") ? ifMatch : "\"\(ifMatch)\"")) }
            if replace {
                let reset = resets()
                if !reset.isEmpty {
                    OpsCommand.print("--replace resets what is not given:\n" + reset.map { "  " + $0 }.joined(separator: "\n"))
                }
                OpsCommand.print(Self.describe(try session.call("PUT", path, json: body(), headers: headers)))
                return
            }
            // Change only what is given; a skin without a release gets a whole one from --from/--until.
            let patched = try session.request("PATCH", path, json: body(), headers: headers)
            let code = patched.json.objectValue?["error"]?.objectValue?["code"]?.stringValue
            if patched.status == 409, code == "not_released" {
                guard (from != nil && until != nil) || kind == SkinKind.theme.rawValue else {
                    throw .rejected(
                        AdminSession.describe(
                            patched.status, patched.json, hint: "\(id) is not released yet: give --from and --until for its first release"))
                }
                OpsCommand.print(Self.describe(try session.call("PUT", path, json: body(), headers: headers)))
                return
            }
            OpsCommand.print(Self.describe(try session.checked(patched)))
        }
    }

    /// `spring-2027: version 2 released …` from a skin answer.
    static func describe(_ answer: AdminSession.Answer) -> String {
        guard let skin = answer.json.objectValue else { return answer.json.compactText }
        let id = skin["id"]?.stringValue ?? "?"
        let etag = answer.headers["etag"] ?? "?"
        guard let release = skin["release"]?.objectValue else { return "\(id): not released (ETag \(etag))" }
        let platforms = release["platforms"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
        var text = "\(id): version \(release["version"]?.intValue ?? 0) released"
        let kind = release["kind"]?.stringValue ?? SkinKind.holiday.rawValue
        text += "\n  kind:      \(kind)"
        if kind == SkinKind.theme.rawValue { text += "\n  order:     \(release["order"]?.intValue.map(String.init) ?? "none")" }
        if let start = release["startsAt"]?.stringValue, let end = release["endsAt"]?.stringValue {
            text += "\n  window:    \(start) until \(end)"
            if let zone = release["timeZone"]?.stringValue { text += " (\(zone))" }
        } else {
            text += "\n  window:    none (always, as a theme)"
        }
        text += "\n  rollout:   \(release["rollout"]?.intValue ?? 0)%"
        text += "\n  priority:  \(release["priority"]?.intValue ?? 0)"
        text += "\n  platforms: \(platforms)"
        let minimum = release["minAppVersion"]?.stringValue ?? "-"
        let maximum = release["maxAppVersion"]?.stringValue ?? "-"
        text += "\n  app versions: \(minimum) up to (excluding) \(maximum)"
        text += "\n  ETag:      \(etag)"
        return text
    }
}
