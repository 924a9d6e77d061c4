import Foundation
import LiveryJSON
import SkinModel

/// A release request, checked: which version (nil: the released one, else the latest) with which plan. What
/// `PUT …/release` sends, and what a `PATCH` makes of the current release merged with its patch.
public struct ReleaseRequest: Sendable {
    public let version: Int?
    public let plan: ReleasePlan

    public init(version: Int?, plan: ReleasePlan) {
        self.version = version
        self.plan = plan
    }

    /// Parses a release object (`version` plus the fields of `release` in `skin.json`).
    ///
    /// - Throws: `invalidRelease` naming `version` (not a whole number from 1) or a missing half of a holiday's
    ///   window; `invalidReleasePlan` with `ReleasePlan.parse`'s issues.
    /// A recurring release (`recurs`) needs no window; its rule is checked from `now`.
    public static func parse(_ object: JSONObject, now: Date = Date()) throws(ChangeError) -> ReleaseRequest {
        var version: Int?
        if let field = object["version"], !field.isNull {
            guard let number = field.intValue, number >= 1 else {
                throw .invalidRelease(
                    field: "version",
                    reason: "must be a version number (a whole number from 1), not \(field.compactText)")
            }
            version = number
        }
        // Only a holiday release needs a window; ReleasePlan.parse checks a theme's (both halves or none) and
        // names a bad kind first.
        let isHoliday = object["kind"] == nil || object["kind"] == .string(SkinKind.holiday.rawValue)
        let recurring = object["recurs"].map { !$0.isNull } ?? false
        for key in ["startsAt", "endsAt"] where object[key] == nil && isHoliday && !recurring {
            throw .invalidRelease(
                field: key, reason: "is required: an ISO 8601 date-time such as 2027-02-05T00:00:00+08:00")
        }
        let parsed = ReleasePlan.parse(
            .object(object), file: nil, pointer: .root, allowingExtraKeys: ["version"], now: now)
        guard let plan = parsed.value else { throw .invalidReleasePlan(parsed.issues) }
        return ReleaseRequest(version: version, plan: plan)
    }

    /// A `PATCH` of a release: RFC 7396's merge, where a window and a rule exclude each other: a patch that sets
    /// `recurs` removes `startsAt` and `endsAt`, one that sets `startsAt` or `endsAt` removes `recurs` and
    /// `occurrences`.
    public static func mergeReleasePatch(_ target: JSONObject, with patch: JSONObject) -> JSONObject {
        var base = target
        func sets(_ key: String) -> Bool { patch[key].map { !$0.isNull } ?? false }
        if sets("recurs") {
            base["startsAt"] = nil
            base["endsAt"] = nil
        }
        if sets("startsAt") || sets("endsAt") {
            base["recurs"] = nil
            base["occurrences"] = nil
        }
        return mergePatch(base, with: patch)
    }

    /// RFC 7396's merge of `patch` into `target`: a `null` member removes the target's, an object member is merged
    /// into the target's object (replacing anything else), any other value replaces the target's.
    public static func mergePatch(_ target: JSONObject, with patch: JSONObject) -> JSONObject {
        var merged = target
        for member in patch {
            if member.value.isNull {
                merged[member.key] = nil
            } else if let object = member.value.objectValue {
                merged[member.key] = .object(mergePatch(merged[member.key]?.objectValue ?? JSONObject(), with: object))
            } else {
                merged[member.key] = member.value
            }
        }
        return merged
    }
}
