import Foundation
import LiveryJSON

extension ReleasePlan {
    /// The keys a release object may hold.
    public static let knownKeys: [String] = [
        "startsAt", "endsAt", "timeZone", "priority", "platforms", "minAppVersion", "maxAppVersion", "rollout", "kind",
        "order", "recurs", "occurrences", "guard", "paused"
    ]

    /// Parses a release object (`skin.json`'s `release`, or an admin `PUT …/release` body).
    ///
    /// Required: `startsAt`, `endsAt`. Optional: `timeZone` (IANA name, required when a date-time has no offset),
    /// `priority` (integer, default 0), `platforms` (non-empty array of `ios`/`android`/`harmony`/`macos`, default all),
    /// `minAppVersion`/`maxAppVersion` (dotted versions or null), `rollout` (integer 0–100, default 100), `kind`
    /// (`holiday`, the default, or `theme`), `order` (themes only: an integer 0–1000000, ascending). A theme's
    /// window is optional: without `startsAt` and `endsAt` it is always active; with one, the other is required.
    /// `guard` (``ReleaseGuard``: absent members take the standard guard's values) and `paused` (``ReleasePause``,
    /// written by the guard's trip) are optional. Keys outside ``knownKeys`` and `extraKeys` are errors, so a typo never silently changes a schedule.
    ///
    /// Instead of `startsAt`/`endsAt`, a release may carry `recurs` (a ``RecurrenceRule``, checked from `now`'s year;
    /// `timeZone` is then required) and `occurrences`: per Gregorian year of the anchor day (`"2027"`), `"skip"` or
    /// `{"startsAt", "endsAt"}` read like the release's own. `startsAt`/`endsAt` then hold the occurrence in force
    /// at `now`.
    ///
    /// - Parameters:
    ///   - file: reported as the issues' file (`nil` for a request body).
    ///   - pointer: where the release object sits in its document (`/release` in `skin.json`, root for a body).
    /// - Returns: the plan when there are no errors, plus every issue found, each with its pointer.
    public static func parse(
        _ value: JSONValue, file: String? = "skin.json", pointer: JSONPointer = JSONPointer(tokens: ["release"]),
        allowingExtraKeys extraKeys: Set<String> = [], now: Date = Date()
    ) -> ParseResult<ReleasePlan> {
        var issues = IssueCollector(file: file)
        guard let object = value.objectValue else {
            issues.error(
                .releaseNotObject, pointer, value: value,
                "The release must be an object, not a \(value.kindName).",
                fix:
                    "Write release as {\"startsAt\": \"2027-02-05T00:00:00+08:00\", \"endsAt\": \"2027-02-20T00:00:00+08:00\"}, or remove it to store the skin without serving it."
            )
            return ParseResult(value: nil, issues: issues.issues)
        }
        for member in object where !knownKeys.contains(member.key) && !extraKeys.contains(member.key) {
            let suggestion = closestMatch(to: member.key, among: knownKeys).map { "Did you mean \"\($0)\"? " } ?? ""
            issues.error(
                .releaseKeyUnknown, pointer.appending(member.key), value: .string(member.key),
                "The release has an unknown key \"\(member.key)\".",
                fix: "\(suggestion)Release keys are \(knownKeys.joined(separator: ", ")).")
        }

        var kind = SkinKind.holiday
        if let field = object["kind"], !field.isNull {
            if let text = field.stringValue, let parsed = SkinKind(rawValue: text) {
                kind = parsed
            } else {
                issues.error(
                    .releaseFieldInvalid, pointer.appending("kind"), value: field,
                    "kind must be \"holiday\" or \"theme\", not \(field.compactText).",
                    fix:
                        "Write \"kind\": \"theme\" for a skin users pick, or remove kind for a holiday skin (the default)."
                )
            }
        }
        var order: Int?
        if let field = object["order"], !field.isNull {
            if kind != .theme {
                issues.error(
                    .releaseFieldInvalid, pointer.appending("order"), value: field,
                    "order places a theme in the themes list, but this release is a holiday skin.",
                    fix: "Add \"kind\": \"theme\", or remove order.")
            } else if let number = field.intValue, (0...1_000_000).contains(number) {
                order = number
            } else {
                issues.error(
                    .releaseFieldInvalid, pointer.appending("order"), value: field,
                    "order must be a whole number from 0 to 1000000, not \(field.compactText).",
                    fix: "Write order as an integer such as 1; themes are listed by order, ascending.")
            }
        }
        // A theme may be permanent: no window at all. With half a window, the other half is still required.
        let recurring = object["recurs"].map { !$0.isNull } ?? false
        let windowless = kind == .theme && object["startsAt"] == nil && object["endsAt"] == nil && !recurring
        if recurring {
            for key in ["startsAt", "endsAt"] where object[key] != nil {
                issues.error(
                    .releaseFieldInvalid, pointer.appending(key), value: object[key],
                    "A release has either recurs or \(key), not both.",
                    fix: "Remove \(key) to follow the rule every year, or remove recurs for a single window.")
            }
        } else if let field = object["occurrences"], !field.isNull {
            issues.error(
                .releaseFieldInvalid, pointer.appending("occurrences"), value: field,
                "occurrences overrides the years of a recurs rule, but this release has no recurs.",
                fix: "Add recurs, or remove occurrences.")
        }

        // Time zone first: local date-times need it.
        var zone: TimeZone?
        var zoneName: String?
        switch object["timeZone"] {
        case nil, .null?: break
        case .string(let name)?:
            if let found = TimeZone(identifier: name) {
                zone = found
                zoneName = name
            } else {
                issues.error(
                    .releaseTimeZoneUnknown, pointer.appending("timeZone"), value: .string(name),
                    "\"\(name)\" is not an IANA time zone name.",
                    fix: "Use a name from the IANA time zone database, such as \"Asia/Shanghai\" or \"Europe/Berlin\".")
            }
        case let other?:
            issues.error(
                .releaseFieldInvalid, pointer.appending("timeZone"), value: other,
                "timeZone must be a string, not a \(other.kindName).",
                fix: "Write the IANA zone name as a string, such as \"Asia/Shanghai\".")
        }
        let zoneIsUsable = zone != nil || object["timeZone"] == nil || object["timeZone"] == .null
        if recurring && zone == nil && zoneIsUsable {
            issues.error(
                .releaseTimeZoneMissing, pointer.appending("timeZone"), value: nil,
                "A release with recurs needs a timeZone: the rule's days and times are read in it.",
                fix: "Add \"timeZone\": \"Asia/Shanghai\" (or the holiday's zone).")
        }

        func instant(_ key: String, in container: JSONObject, at base: JSONPointer) -> (Date, String, Bool)? {
            let place = base.appending(key)
            guard let field = container[key] else {
                if windowless { return nil }
                // A theme's half window names the missing half (a holiday release names the release object, as always).
                issues.error(
                    .releaseFieldMissing, kind == .theme ? base.appending(key) : base, value: nil,
                    "The release has no \(key).",
                    fix:
                        "Add \"\(key)\": \"2027-02-05T00:00:00+08:00\" (ISO 8601 with an offset), or a local time with \"timeZone\"."
                )
                return nil
            }
            guard let text = field.stringValue else {
                issues.error(
                    .releaseFieldInvalid, place, value: field,
                    "\(key) must be an ISO 8601 date-time string, not a \(field.kindName).",
                    fix: "Write \(key) as a string such as \"2027-02-05T00:00:00+08:00\".")
                return nil
            }
            guard let parsed = ISO8601DateTime(text) else {
                issues.error(
                    .releaseDateInvalid, place, value: field,
                    "\"\(text)\" is not an ISO 8601 date-time.",
                    fix:
                        "Write \(key) as YYYY-MM-DDTHH:MM:SS with an offset (\"2027-02-05T00:00:00+08:00\", \"…Z\"), or without one plus \"timeZone\"."
                )
                return nil
            }
            if let date = parsed.instant { return (date, text, true) }
            guard let zone else {
                if zoneIsUsable {
                    issues.error(
                        .releaseTimeZoneMissing, place, value: field,
                        "\"\(text)\" has no UTC offset and the release has no timeZone, so the instant is unknown.",
                        fix:
                            "Add \"timeZone\": \"Asia/Shanghai\" (or the holiday's zone) to the release, or append an offset such as +08:00."
                    )
                }
                return nil
            }
            guard let date = parsed.instant(in: zone) else {
                issues.error(
                    .releaseTimeNonexistent, place, value: field,
                    "\"\(text)\" does not exist in \(zone.identifier): the clocks skip it for daylight saving time.",
                    fix: "Pick a time outside the daylight-saving gap, such as an hour later.")
                return nil
            }
            return (date, text, false)
        }
        let start = recurring ? nil : instant("startsAt", in: object, at: pointer)
        let end = recurring ? nil : instant("endsAt", in: object, at: pointer)
        var rule: RecurrenceRule?
        var overrides: [Int: OccurrenceOverride] = [:]
        if recurring, let field = object["recurs"], let zone {
            let parsedRule = RecurrenceRule.parse(
                field, file: file, pointer: pointer.appending("recurs"), timeZone: zone, now: now)
            issues.append(contentsOf: parsedRule.issues)
            rule = parsedRule.value
        }
        if recurring, let field = object["occurrences"], !field.isNull {
            let place = pointer.appending("occurrences")
            if let years = field.objectValue {
                for member in years {
                    let yearPlace = place.appending(member.key)
                    guard member.key.count == 4, member.key.allSatisfy({ $0.isASCII && $0.isNumber }),
                        let year = Int(member.key),
                        year >= 1000
                    else {
                        issues.error(
                            .releaseFieldInvalid, yearPlace, value: .string(member.key),
                            "\"\(member.key)\" is not a year: occurrences are keyed by the Gregorian year of the anchor day.",
                            fix: "Write the year with four digits, such as \"2027\".")
                        continue
                    }
                    if member.value == .string("skip") {
                        overrides[year] = .skip
                    } else if let window = member.value.objectValue {
                        for inner in window where inner.key != "startsAt" && inner.key != "endsAt" {
                            issues.error(
                                .releaseKeyUnknown, yearPlace.appending(inner.key), value: .string(inner.key),
                                "An occurrence has only startsAt and endsAt, not \"\(inner.key)\".",
                                fix: "Remove \"\(inner.key)\".")
                        }
                        if let from = instant("startsAt", in: window, at: yearPlace),
                            let to = instant("endsAt", in: window, at: yearPlace)
                        {
                            if from.0 < to.0 {
                                overrides[year] = .window(
                                    startsAt: from.0, endsAt: to.0, startsAtText: from.1, endsAtText: to.1)
                            } else {
                                issues.error(
                                    .releaseWindowEmpty, yearPlace.appending("endsAt"), value: .string(to.1),
                                    "endsAt (\(to.1)) is not after startsAt (\(from.1)) in the \(year) occurrence.",
                                    fix: "Set endsAt to an instant after startsAt.")
                            }
                        }
                    } else {
                        issues.error(
                            .releaseFieldInvalid, yearPlace, value: member.value,
                            "An occurrence override is \"skip\" or {\"startsAt\", \"endsAt\"}, not \(member.value.compactText).",
                            fix:
                                "Write \"\(member.key)\": \"skip\", or \"\(member.key)\": {\"startsAt\": …, \"endsAt\": …}."
                        )
                    }
                }
            } else {
                issues.error(
                    .releaseFieldInvalid, place, value: field,
                    "occurrences must be an object keyed by year, not a \(field.kindName).",
                    fix: "Write occurrences as {\"2027\": \"skip\"} or {\"2027\": {\"startsAt\": …, \"endsAt\": …}}.")
            }
        }
        if let start, let end {
            if !(start.0 < end.0) {
                issues.error(
                    .releaseWindowEmpty, pointer.appending("endsAt"), value: .string(end.1),
                    "endsAt (\(end.1)) is not after startsAt (\(start.1)), so the skin would never be active.",
                    fix: "Set endsAt to an instant after startsAt.")
            }
            if zoneName != nil, start.2, end.2 {
                issues.warning(
                    .releaseTimeZoneUnused, pointer.appending("timeZone"), value: object["timeZone"],
                    "timeZone is ignored because startsAt and endsAt both carry a UTC offset.",
                    fix: "Remove timeZone, or write startsAt and endsAt as local date-times without an offset.")
            }
        }

        var priority = 0
        if let field = object["priority"], !field.isNull {
            if let number = field.intValue {
                priority = number
            } else {
                issues.error(
                    .releaseFieldInvalid, pointer.appending("priority"), value: field,
                    "priority must be an integer, not \(field.compactText).",
                    fix: "Write priority as a whole number such as 10; higher wins when windows overlap.")
            }
        }

        var platforms = Set(Platform.allCases)
        if let field = object["platforms"], !field.isNull {
            if let elements = field.arrayValue {
                var chosen = Set<Platform>()
                for (position, element) in elements.enumerated() {
                    let place = pointer.appending("platforms").appending(position)
                    guard let name = element.stringValue, let platform = Platform(rawValue: name) else {
                        issues.error(
                            .releasePlatformInvalid, place, value: element,
                            "\(element.compactText) is not a platform.",
                            fix: "Use \"ios\", \"android\", \"harmony\" or \"macos\" (lowercase).")
                        continue
                    }
                    if !chosen.insert(platform).inserted {
                        issues.error(
                            .releasePlatformInvalid, place, value: element,
                            "The platform \"\(name)\" is listed twice.", fix: "List each platform once.")
                    }
                }
                if elements.isEmpty {
                    issues.error(
                        .releasePlatformInvalid, pointer.appending("platforms"), value: field,
                        "platforms is empty, so no client would ever get the skin.",
                        fix:
                            "List at least one of \"ios\", \"android\", \"harmony\", \"macos\", or remove platforms to target all."
                    )
                }
                platforms = chosen
            } else {
                issues.error(
                    .releasePlatformInvalid, pointer.appending("platforms"), value: field,
                    "platforms must be an array, not a \(field.kindName).",
                    fix: "Write platforms as an array such as [\"ios\", \"android\"].")
            }
        }

        func version(_ key: String) -> AppVersion? {
            guard let field = object[key], !field.isNull else { return nil }
            if let text = field.stringValue, let parsed = AppVersion(text) { return parsed }
            issues.error(
                .releaseVersionInvalid, pointer.appending(key), value: field,
                "\(field.compactText) is not an app version.",
                fix: "Write \(key) as a string of 1 to 4 dot-separated numbers, such as \"7.0.0\", or null.")
            return nil
        }
        let minAppVersion = version("minAppVersion")
        let maxAppVersion = version("maxAppVersion")
        if let minAppVersion, let maxAppVersion, !(minAppVersion < maxAppVersion) {
            issues.error(
                .releaseVersionInvalid, pointer.appending("maxAppVersion"), value: .string(maxAppVersion.text),
                "maxAppVersion \(maxAppVersion) is not above minAppVersion \(minAppVersion), so no app version is served (max is exclusive).",
                fix: "Raise maxAppVersion above minAppVersion, or set it to null.")
        }

        var rollout = 100
        if let field = object["rollout"], !field.isNull {
            if let number = field.intValue, (0...100).contains(number) {
                rollout = number
            } else {
                issues.error(
                    .releaseRolloutInvalid, pointer.appending("rollout"), value: field,
                    "rollout must be a whole percentage from 0 to 100, not \(field.compactText).",
                    fix: "Write rollout as an integer from 0 to 100, such as 30.")
            }
        }

        var releaseGuard: ReleaseGuard?
        if let field = object["guard"], !field.isNull {
            releaseGuard = ReleaseGuard.parse(field, pointer: pointer.appending("guard"), issues: &issues)
        }
        var paused: ReleasePause?
        if let field = object["paused"], !field.isNull {
            paused = ReleasePause.parse(field, pointer: pointer.appending("paused"), issues: &issues)
        }

        var window: (start: (Date, String, Bool), end: (Date, String, Bool))?
        if recurring {
            if let rule, !issues.hasErrors {
                var probe = ReleasePlan(startsAt: now, endsAt: now)
                probe.timeZone = zoneName
                probe.recurrence = rule
                probe.occurrenceOverrides = overrides
                if let current = probe.occurrence(inForceAt: now) {
                    window = (
                        (current.startsAt, ISO8601DateTime.utcText(current.startsAt), true),
                        (current.endsAt, ISO8601DateTime.utcText(current.endsAt), true)
                    )
                } else {
                    issues.error(
                        .releaseRecurrenceEmpty, pointer.appending("occurrences"), value: object["occurrences"],
                        "Every occurrence ahead is skipped, so the skin would never be active.",
                        fix: "Remove a \"skip\" from occurrences.")
                }
            }
        } else if windowless {
            window = ((Date.distantPast, "", true), (Date.distantFuture, "", true))
        } else if let start, let end {
            window = (start, end)
        }
        guard !issues.hasErrors, let window else { return ParseResult(value: nil, issues: issues.issues) }
        let plan = ReleasePlan(
            startsAt: window.start.0, endsAt: window.end.0, startsAtText: window.start.1, endsAtText: window.end.1,
            timeZone: zoneName, priority: priority, platforms: platforms, minAppVersion: minAppVersion,
            maxAppVersion: maxAppVersion, rollout: rollout, kind: kind, order: order)
        var recurringPlan = plan
        recurringPlan.recurrence = rule
        recurringPlan.occurrenceOverrides = overrides
        recurringPlan.releaseGuard = releaseGuard
        recurringPlan.paused = paused
        return ParseResult(value: recurringPlan, issues: issues.issues)
    }

    /// The plan as a release JSON object that ``parse(_:file:pointer:allowingExtraKeys:)`` reads back to an equal plan.
    ///
    /// Keys in a fixed order (`startsAt`, `endsAt` (both absent for a theme without a window), `timeZone` when
    /// set, `priority`, `platforms` in ios/android/harmony/macos order, `minAppVersion`, `maxAppVersion`,
    /// `rollout`, then `kind` and `order` for themes only, then `guard` (every member) and `paused` when set);
    /// date-times as originally written.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        if let recurrence {
            object["recurs"] = recurrence.jsonValue
            if !occurrenceOverrides.isEmpty {
                var years = JSONObject()
                for (year, override) in occurrenceOverrides.sorted(by: { $0.key < $1.key }) {
                    switch override {
                    case .skip: years[String(year)] = .string("skip")
                    case .window(_, _, let from, let to):
                        var window = JSONObject()
                        window["startsAt"] = .string(from)
                        window["endsAt"] = .string(to)
                        years[String(year)] = .object(window)
                    }
                }
                object["occurrences"] = .object(years)
            }
        } else if hasWindow {
            object["startsAt"] = .string(startsAtText)
            object["endsAt"] = .string(endsAtText)
        }
        if let timeZone { object["timeZone"] = .string(timeZone) }
        object["priority"] = .number(JSONNumber(priority))
        object["platforms"] = .array(platforms.sorted().map { .string($0.rawValue) })
        object["minAppVersion"] = minAppVersion.map { .string($0.text) } ?? .null
        object["maxAppVersion"] = maxAppVersion.map { .string($0.text) } ?? .null
        object["rollout"] = .number(JSONNumber(rollout))
        if kind == .theme {
            object["kind"] = .string(kind.rawValue)
            if let order { object["order"] = .number(JSONNumber(order)) }
        }
        // Absent unless set, so a release without a guard keeps its document byte for byte.
        if let releaseGuard { object["guard"] = releaseGuard.jsonValue }
        if let paused { object["paused"] = paused.jsonValue }
        return .object(object)
    }
}
