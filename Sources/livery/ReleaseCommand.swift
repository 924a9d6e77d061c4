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

            A release may recur every year instead of having one window: --every chinese:1-1 (Spring Festival; \
            chinese:L6-15 is the 15th of a leap sixth month) or gregorian:12-25, with --from-offset -7d and \
            --to-offset 15d around that day and --time-zone; --skip 2027 leaves a year out and \
            --occurrence 2027=START/END gives a year its own window. `livery occurrences ID` lists the years.

            A release's guard pauses it by itself when too many reporting devices fail (docs/OPERATING.md, \
            Guarded releases); --resume clears the pause and serves the rollout from before it (it may be \
            combined with other options, such as --rollout 10 to resume more carefully).

            Exit status: 0 done; 1 refused by the server (unknown skin or version, invalid field, a window wholly \
            in the past, stale --if-match, token); 2 bad arguments or LIVERY_TOKEN unset; 3 server unreachable or \
            failing.
            """)

    @Argument(help: "The skin id.")
    var id: String

    @Option(help: "The version to serve. Default: the latest (PUT) or the released one (PATCH).")
    var version: Int?

    @Option(
        help:
            "Start of the window (inclusive), ISO 8601 such as 2027-02-05T00:00:00+08:00, or local time with --time-zone."
    )
    var from: String?

    @Option(help: "End of the window (exclusive), same format as --from.")
    var until: String?

    @Option(help: "IANA time zone for --from/--until written without an offset, such as Asia/Shanghai.")
    var timeZone: String?

    @Option(
        help:
            "Recur every year on a day: chinese:1-1, chinese:L6-15 (leap month), gregorian:12-25. Replaces --from/--until."
    )
    var every: String?

    @Option(parsing: .unconditional, help: "Days from the recurring day to the window's start, such as -7d.")
    var fromOffset: String?

    @Option(parsing: .unconditional, help: "Days from the recurring day to the window's last day, such as 15d.")
    var toOffset: String?

    @Option(help: "A year (of the recurring day) without a window, such as 2027. Repeatable.")
    var skip: [Int] = []

    @Option(
        help:
            "A year's own window, YEAR=START/END in ISO 8601 (2027=2027-02-01T00:00:00/2027-02-18T00:00:00). Repeatable."
    )
    var occurrence: [String] = []

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

    @Option(
        help:
            "holiday (the poll serves it in its window; the default) or theme (users pick it; the window is optional).")
    var kind: String?

    @Option(help: "Where a theme is listed, ascending (1 comes first); 'none' removes it. Themes only.")
    var order: String?

    @Option(help: "Only if the skin's ETag is still this (from a previous answer), e.g. '\"42\"' or 42.")
    var ifMatch: String?

    @Flag(help: "Replace the whole release (needs --from and --until): options not given are reset to their defaults.")
    var replace = false

    @Flag(
        help:
            "Resume a release its guard paused: serve the rollout from before the pause again (PATCH {\"paused\": null})."
    )
    var resume = false

    @OptionGroup var server: ServerOptions

    /// `chinese:1-1`, `chinese:L6-15`, `gregorian:12-25` as (calendar, month, day, leap month).
    static func anchor(_ text: String) -> (calendar: String, month: Int, day: Int, leap: Bool)? {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, RecurrenceRule.CalendarKind(rawValue: String(parts[0])) != nil else { return nil }
        var date = Substring(parts[1])
        let leap = date.hasPrefix("L")
        if leap { date = date.dropFirst() }
        let numbers = date.split(separator: "-", omittingEmptySubsequences: false)
        guard numbers.count == 2, let month = Int(numbers[0]), let day = Int(numbers[1]) else { return nil }
        return (String(parts[0]), month, day, leap)
    }

    /// `-7d`, `15d` or `15` as days.
    static func offsetDays(_ text: String) -> Int? {
        Int(text.hasSuffix("d") ? String(text.dropLast()) : text)
    }

    /// `2027=START/END` as the year and the window's texts.
    static func override(_ text: String) -> (year: String, start: String, end: String)? {
        let sides = text.split(separator: "=", maxSplits: 1)
        guard sides.count == 2, Int(sides[0]) != nil else { return nil }
        let window = sides[1].split(separator: "/", omittingEmptySubsequences: false)
        guard window.count == 2, !window[0].isEmpty, !window[1].isEmpty else { return nil }
        return (String(sides[0]), String(window[0]), String(window[1]))
    }

    var recurring: Bool { every != nil || fromOffset != nil || toOffset != nil || !skip.isEmpty || !occurrence.isEmpty }

    func validate() throws {
        if let every, Self.anchor(every) == nil {
            throw ValidationError(
                "--every must be chinese:MONTH-DAY, chinese:LMONTH-DAY (leap month) or gregorian:MONTH-DAY, got '\(every)'."
            )
        }
        for (name, value) in [("--from-offset", fromOffset), ("--to-offset", toOffset)] {
            if let value, Self.offsetDays(value) == nil {
                throw ValidationError("\(name) must be days such as -7d or 15d, got '\(value)'.")
            }
        }
        for text in occurrence where Self.override(text) == nil {
            throw ValidationError("--occurrence must be YEAR=START/END, got '\(text)'.")
        }
        if every != nil && (from != nil || until != nil) {
            throw ValidationError("--every recurs every year: give it without --from/--until.")
        }
        if replace && every == nil && (from == nil || until == nil) && kind != SkinKind.theme.rawValue {
            throw ValidationError(
                "--replace sets the whole release: give --from and --until (or --every) with it (a theme may have no window: --kind theme)."
            )
        }
        if let kind, SkinKind(rawValue: kind) == nil {
            throw ValidationError("--kind must be holiday or theme, got '\(kind)'.")
        }
        if let order, order != "none", Int(order) == nil {
            throw ValidationError("--order must be a whole number or 'none', got '\(order)'.")
        }
        if let rollout, !(0...100).contains(rollout) {
            throw ValidationError("--rollout must be 0-100, got \(rollout).")
        }
        if let version, version < 1 { throw ValidationError("--version must be 1 or more, got \(version).") }
        if resume && replace {
            throw ValidationError("--resume changes the current release; give it without --replace.")
        }
        let whole = (from != nil && until != nil) || every != nil
        if !whole && !recurring && !resume && version == nil && rollout == nil && priority == nil && platforms == nil
            && minAppVersion == nil
            && maxAppVersion == nil && timeZone == nil && from == nil && until == nil && kind == nil && order == nil
        {
            throw ValidationError(
                "Nothing to change: give --from and --until for a new release, or the options to change (such as --rollout 50)."
            )
        }
    }

    /// The request body from the options.
    func body() -> JSONValue {
        var object = JSONObject()
        if let version { object["version"] = .number(JSONNumber(version)) }
        if let from { object["startsAt"] = .string(from) }
        if let until { object["endsAt"] = .string(until) }
        if let timeZone { object["timeZone"] = .string(timeZone) }
        var rule = JSONObject()
        if let every, let anchor = Self.anchor(every) {
            rule["calendar"] = .string(anchor.calendar)
            rule["month"] = .number(JSONNumber(anchor.month))
            rule["day"] = .number(JSONNumber(anchor.day))
            rule["leapMonth"] =
                anchor.calendar == RecurrenceRule.CalendarKind.chinese.rawValue ? .bool(anchor.leap) : .null
        }
        if let days = fromOffset.flatMap(Self.offsetDays) { rule["startOffsetDays"] = .number(JSONNumber(days)) }
        if let days = toOffset.flatMap(Self.offsetDays) { rule["endOffsetDays"] = .number(JSONNumber(days)) }
        if !rule.isEmpty { object["recurs"] = .object(rule) }
        var years = JSONObject()
        for year in skip { years[String(year)] = .string("skip") }
        for text in occurrence {
            guard let window = Self.override(text) else { continue }
            years[window.year] = .object(
                JSONObject([
                    .init(key: "startsAt", value: .string(window.start)),
                    .init(key: "endsAt", value: .string(window.end))
                ]))
        }
        if !years.isEmpty { object["occurrences"] = .object(years) }
        if let priority { object["priority"] = .number(JSONNumber(priority)) }
        if let platforms {
            object["platforms"] = .array(
                platforms.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        }
        if let minAppVersion { object["minAppVersion"] = minAppVersion == "none" ? .null : .string(minAppVersion) }
        if let maxAppVersion { object["maxAppVersion"] = maxAppVersion == "none" ? .null : .string(maxAppVersion) }
        if let rollout { object["rollout"] = .number(JSONNumber(rollout)) }
        if let kind { object["kind"] = .string(kind) }
        if let order { object["order"] = Int(order).map { .number(JSONNumber($0)) } ?? .null }
        if resume { object["paused"] = .null }
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
                    OpsCommand.print(
                        "--replace resets what is not given:\n" + reset.map { "  " + $0 }.joined(separator: "\n"))
                }
                OpsCommand.print(Self.describe(try session.call("PUT", path, json: body(), headers: headers)))
                return
            }
            // Change only what is given; a skin without a release gets a whole one from --from/--until.
            let patched = try session.request("PATCH", path, json: body(), headers: headers)
            let code = patched.json.objectValue?["error"]?.objectValue?["code"]?.stringValue
            if patched.status == 409, code == "not_released" {
                guard (from != nil && until != nil) || every != nil || kind == SkinKind.theme.rawValue else {
                    throw .rejected(
                        AdminSession.describe(
                            patched.status, patched.json,
                            hint: "\(id) is not released yet: give --from and --until for its first release"))
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
        if kind == SkinKind.theme.rawValue {
            text += "\n  order:     \(release["order"]?.intValue.map(String.init) ?? "none")"
        }
        if let rule = release["recurs"]?.objectValue {
            let leap = rule["leapMonth"] == .bool(true) ? "L" : ""
            text +=
                "\n  recurs:    \(rule["calendar"]?.stringValue ?? "?"):\(leap)\(rule["month"]?.intValue ?? 0)-\(rule["day"]?.intValue ?? 0)"
            text += " from \(rule["startOffsetDays"]?.intValue ?? 0)d to \(rule["endOffsetDays"]?.intValue ?? 0)d"
            if let zone = release["timeZone"]?.stringValue { text += " (\(zone))" }
            for next in release["nextOccurrences"]?.arrayValue ?? [] {
                guard let year = next.objectValue?["year"]?.intValue else { continue }
                text +=
                    "\n    \(year): \(next.objectValue?["startsAt"]?.stringValue ?? "?") until \(next.objectValue?["endsAt"]?.stringValue ?? "?")"
                if let source = next.objectValue?["source"]?.stringValue, source != "rule" { text += " (\(source))" }
            }
        } else if let start = release["startsAt"]?.stringValue, let end = release["endsAt"]?.stringValue {
            text += "\n  window:    \(start) until \(end)"
            if let zone = release["timeZone"]?.stringValue { text += " (\(zone))" }
        } else {
            text += "\n  window:    none (always, as a theme)"
        }
        text += "\n  rollout:   \(release["rollout"]?.intValue ?? 0)%"
        if let paused = release["paused"]?.objectValue {
            text +=
                " (paused by its guard at \(paused["at"]?.stringValue ?? "?"): \(paused["action"]?.stringValue ?? "pause");"
            text += " `livery release \(id) --resume` serves \(paused["rollout"]?.intValue ?? 0)% again)"
        }
        text += "\n  priority:  \(release["priority"]?.intValue ?? 0)"
        text += "\n  platforms: \(platforms)"
        let minimum = release["minAppVersion"]?.stringValue ?? "-"
        let maximum = release["maxAppVersion"]?.stringValue ?? "-"
        text += "\n  app versions: \(minimum) up to (excluding) \(maximum)"
        text += "\n  ETag:      \(etag)"
        return text
    }
}
