import ArgumentParser
import Foundation
import LiveryJSON
import SkinModel

/// `livery occurrences ID`: the years of a recurring release, one line each: `YEAR START END [override|skip]`.
struct OccurrencesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "occurrences",
        abstract: "List the yearly windows of a recurring release: YEAR START END [override|skip].",
        discussion: """
            Reads the skin's release from the server and prints its next occurrences from now, one line per year \
            (the year of the recurring day, then the window's start and end in the release's time zone), marking \
            a year given its own window (override) or left out (skip). With --every instead of an ID, the rule \
            is computed here without a server: `livery occurrences --every chinese:1-1 --time-zone Asia/Shanghai`.

            Exit status: 0 listed; 1 refused by the server, or the release does not recur; 2 bad arguments or \
            LIVERY_TOKEN unset; 3 server unreachable or failing.
            """)

    @Argument(help: "The skin id (omit with --every).")
    var id: String?

    @Option(help: "How many years to list.")
    var count = 5

    @Option(help: "Compute a rule locally instead: chinese:1-1, chinese:L6-15, gregorian:12-25.")
    var every: String?

    @Option(
        parsing: .unconditional, help: "With --every: days from the recurring day to the window's start, such as -7d.")
    var fromOffset: String = "0d"

    @Option(
        parsing: .unconditional,
        help: "With --every: days from the recurring day to the window's last day, such as 15d.")
    var toOffset: String = "0d"

    @Option(help: "With --every: the IANA time zone, such as Asia/Shanghai.")
    var timeZone: String = "UTC"

    @Option(help: "List from this instant (ISO 8601) instead of now.")
    var at: String?

    @OptionGroup var server: ServerOptions

    func validate() throws {
        if (id == nil) == (every == nil) { throw ValidationError("Give a skin ID, or --every with a rule (not both).") }
        if !(1...100).contains(count) { throw ValidationError("--count must be 1-100, got \(count).") }
        if let at, ISO8601Instant.parse(at) == nil {
            throw ValidationError("--at must be an ISO 8601 instant, got '\(at)'.")
        }
    }

    func run() throws {
        let now = at.flatMap(ISO8601Instant.parse) ?? Date()
        if let every {
            guard let anchor = ReleaseCommand.anchor(every), let start = ReleaseCommand.offsetDays(fromOffset),
                let end = ReleaseCommand.offsetDays(toOffset)
            else {
                throw ValidationError(
                    "--every must be chinese:M-D, chinese:LM-D or gregorian:M-D with offsets such as -7d.")
            }
            var rule = JSONObject()
            rule["calendar"] = .string(anchor.calendar)
            rule["month"] = .number(JSONNumber(anchor.month))
            rule["day"] = .number(JSONNumber(anchor.day))
            if anchor.leap { rule["leapMonth"] = .bool(true) }
            rule["startOffsetDays"] = .number(JSONNumber(start))
            rule["endOffsetDays"] = .number(JSONNumber(end))
            var release = JSONObject()
            release["recurs"] = .object(rule)
            release["timeZone"] = .string(timeZone)
            try Self.list(.object(release), now: now, count: count)
            return
        }
        try OpsCommand.run { () throws(AdminClientError) in
            let session = try server.session()
            let skin = try session.call("GET", "/skins/\(OpsCommand.queryValue(id ?? ""))")
            guard let release = skin.json.objectValue?["release"], release.objectValue?["recurs"] != nil else {
                throw .rejected("\(id ?? ""): the release does not recur (no recurs)")
            }
            do {
                try Self.list(release, now: now, count: count)
            } catch {
                throw .rejected("\(error)")
            }
        }
    }

    /// Prints the occurrences of the release object `release` from `now`.
    static func list(_ release: JSONValue, now: Date, count: Int) throws {
        let parsed = ReleasePlan.parse(
            release, file: nil, pointer: .root,
            allowingExtraKeys: ["version", "releasedAt", "releasedBy", "nextOccurrences"], now: now)
        guard let plan = parsed.value else {
            throw ValidationError(
                parsed.issues.filter { $0.severity == .error }.map { "\($0.pointer): \($0.message)" }.joined(
                    separator: "\n"))
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = plan.timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(secondsFromGMT: 0)
        for occurrence in plan.occurrences(notEndedAt: now, count: count) {
            let mark = occurrence.source == .rule ? "" : " \(occurrence.source.rawValue)"
            OpsCommand.print(
                "\(occurrence.year) \(formatter.string(from: occurrence.startsAt)) \(formatter.string(from: occurrence.endsAt))\(mark)"
            )
        }
    }
}
