import Foundation
import LiveryJSON

/// When a release stops itself (`release.guard`): once at least `minDevices` devices have reported on the released
/// version within the last `windowMinutes`, a failure rate (failed devices over reporting devices) above
/// `maxFailureRate` trips the guard, which takes `action`. Without a guard a release has ``standard``;
/// `{"action": "none"}` turns it off.
public struct ReleaseGuard: Sendable, Equatable {
    /// What a trip does.
    public enum Action: String, Sendable, CaseIterable {
        /// Serve rollout 0: no device gets the version any more.
        case pause
        /// Serve the skin's previous version instead (rollout 0 when it has none).
        case rollback
        /// The guard is off.
        case none
    }

    /// The highest failure rate tolerated, 0...1 (a trip needs a rate strictly above it). Default 0.05.
    public var maxFailureRate: Double
    /// How many distinct devices must have reported before the rate counts, 1...``maximumMinDevices``. Default 50.
    public var minDevices: Int
    /// How far back reports count, in minutes, 1...``maximumWindowMinutes``. Default 60.
    public var windowMinutes: Int
    /// What a trip does. Default `pause`.
    public var action: Action

    /// The guard of a release that names none: `{"maxFailureRate": 0.05, "minDevices": 50, "windowMinutes": 60,
    /// "action": "pause"}`.
    public static let standard = ReleaseGuard(maxFailureRate: 0.05, minDevices: 50, windowMinutes: 60, action: .pause)
    /// The largest `minDevices`.
    public static let maximumMinDevices = 100_000_000
    /// The largest `windowMinutes`: 30 days.
    public static let maximumWindowMinutes = 43_200

    public init(maxFailureRate: Double, minDevices: Int, windowMinutes: Int, action: Action) {
        self.maxFailureRate = maxFailureRate
        self.minDevices = minDevices
        self.windowMinutes = windowMinutes
        self.action = action
    }

    /// The guard as a JSON object, every member written (the effective guard).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["maxFailureRate"] = JSONNumber(maxFailureRate).map(JSONValue.number) ?? .null
        object["minDevices"] = .number(JSONNumber(minDevices))
        object["windowMinutes"] = .number(JSONNumber(windowMinutes))
        object["action"] = .string(action.rawValue)
        return .object(object)
    }

    /// Parses `release.guard`: an object whose absent members take ``standard``'s values.
    static func parse(_ value: JSONValue, pointer: JSONPointer, issues: inout IssueCollector) -> ReleaseGuard? {
        guard let object = value.objectValue else {
            issues.error(
                .releaseFieldInvalid, pointer, value: value,
                "guard must be an object, not a \(value.kindName).",
                fix:
                    "Write guard as {\"maxFailureRate\": 0.05, \"minDevices\": 50, \"windowMinutes\": 60, \"action\": \"pause\"}, or {\"action\": \"none\"} to turn it off."
            )
            return nil
        }
        let keys = ["maxFailureRate", "minDevices", "windowMinutes", "action"]
        var valid = true
        for member in object where !keys.contains(member.key) {
            issues.error(
                .releaseKeyUnknown, pointer.appending(member.key), value: .string(member.key),
                "The guard has an unknown key \"\(member.key)\".",
                fix: "Guard keys are \(keys.joined(separator: ", ")).")
            valid = false
        }
        var result = standard
        if let field = object["maxFailureRate"], !field.isNull {
            if case .number(let number) = field, (0...1).contains(number.doubleValue) {
                result.maxFailureRate = number.doubleValue
            } else {
                issues.error(
                    .releaseFieldInvalid, pointer.appending("maxFailureRate"), value: field,
                    "maxFailureRate must be a number from 0 to 1, not \(field.compactText).",
                    fix: "Write maxFailureRate as a fraction such as 0.05 (5 % of reporting devices failed).")
                valid = false
            }
        }
        func whole(_ key: String, upTo limit: Int, fix: String) -> Int? {
            guard let field = object[key], !field.isNull else { return nil }
            if let number = field.intValue, (1...limit).contains(number) { return number }
            issues.error(
                .releaseFieldInvalid, pointer.appending(key), value: field,
                "\(key) must be a whole number from 1 to \(limit), not \(field.compactText).", fix: fix)
            valid = false
            return nil
        }
        if let number = whole("minDevices", upTo: maximumMinDevices, fix: "Write minDevices as an integer such as 50.")
        {
            result.minDevices = number
        }
        if let number = whole(
            "windowMinutes", upTo: maximumWindowMinutes, fix: "Write windowMinutes as an integer such as 60.")
        {
            result.windowMinutes = number
        }
        if let field = object["action"], !field.isNull {
            if let text = field.stringValue, let action = Action(rawValue: text) {
                result.action = action
            } else {
                issues.error(
                    .releaseFieldInvalid, pointer.appending("action"), value: field,
                    "action must be \"pause\", \"rollback\" or \"none\", not \(field.compactText).",
                    fix:
                        "Write \"action\": \"pause\" to stop serving on a trip, \"rollback\" to serve the previous version, or \"none\" to turn the guard off."
                )
                valid = false
            }
        }
        return valid ? result : nil
    }
}

/// What a guard's trip left on a release (`release.paused`): when, what it did, the rollout before it, and the
/// figures that tripped it. While it is set the release serves rollout 0 (`pause`) or the previous version
/// (`rollback`); a person clears it (`PATCH {"paused": null}`), which serves `rollout` again.
public struct ReleasePause: Sendable, Equatable {
    /// When the guard tripped.
    public var at: Date
    /// `at` as written (UTC ISO 8601).
    public var atText: String
    /// What the trip does: `pause` or `rollback`.
    public var action: ReleaseGuard.Action
    /// The release's rollout before the trip, 0...100.
    public var rollout: Int
    /// The figures that tripped it, as the guard wrote them (`{"reportingDevices", "failedDevices", …}`).
    public var figures: JSONObject

    public init(at: Date, action: ReleaseGuard.Action, rollout: Int, figures: JSONObject) {
        self.at = at
        self.atText = ISO8601DateTime.utcText(at)
        self.action = action
        self.rollout = rollout
        self.figures = figures
    }

    /// `{"at", "action", "rollout", "figures"}`.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["at"] = .string(atText)
        object["action"] = .string(action.rawValue)
        object["rollout"] = .number(JSONNumber(rollout))
        object["figures"] = .object(figures)
        return .object(object)
    }

    /// Parses a stored `release.paused` (the guard writes it; people only clear it).
    static func parse(_ value: JSONValue, pointer: JSONPointer, issues: inout IssueCollector) -> ReleasePause? {
        let fix = "paused is written by the release's guard when it trips; send \"paused\": null to resume."
        guard let object = value.objectValue else {
            issues.error(
                .releaseFieldInvalid, pointer, value: value,
                "paused must be null or an object, not a \(value.kindName).", fix: fix)
            return nil
        }
        guard let atText = object["at"]?.stringValue, let at = ISO8601Instant.parse(atText) else {
            issues.error(
                .releaseFieldInvalid, pointer.appending("at"), value: object["at"],
                "paused.at must be an ISO 8601 instant.", fix: fix)
            return nil
        }
        guard let actionText = object["action"]?.stringValue, let action = ReleaseGuard.Action(rawValue: actionText),
            action != .none
        else {
            issues.error(
                .releaseFieldInvalid, pointer.appending("action"), value: object["action"],
                "paused.action must be \"pause\" or \"rollback\".", fix: fix)
            return nil
        }
        guard let rollout = object["rollout"]?.intValue, (0...100).contains(rollout) else {
            issues.error(
                .releaseFieldInvalid, pointer.appending("rollout"), value: object["rollout"],
                "paused.rollout must be a whole percentage from 0 to 100.", fix: fix)
            return nil
        }
        guard let figures = object["figures"]?.objectValue else {
            issues.error(
                .releaseFieldInvalid, pointer.appending("figures"), value: object["figures"],
                "paused.figures must be an object.", fix: fix)
            return nil
        }
        var pause = ReleasePause(at: at, action: action, rollout: rollout, figures: figures)
        pause.atText = atText
        return pause
    }
}

extension ReleasePlan {
    /// The guard in force: the release's own, or ``ReleaseGuard/standard`` when it names none.
    public var effectiveGuard: ReleaseGuard { releaseGuard ?? .standard }

    /// The plan as served while `paused` is set: rollout 0 (a `rollback` pause serves the previous version
    /// instead, which `CatalogBuilder` chooses; with none it falls back to this). A guard never widens a rollout.
    public var served: ReleasePlan {
        guard paused != nil else { return self }
        var plan = self
        plan.rollout = 0
        return plan
    }
}
