import Foundation
import LiveryJSON
import SkinModel
import SkinStore

/// How store values look in admin API answers: the bodies the admin API's reads (`Queries`) and changes (`Changes`)
/// answer with, rendered from the values they return, so the server's admin handlers never name a store type.
/// Every answer is a JSON object whose keys appear in a fixed order.
public enum AdminJSON {
    /// `date` as ISO 8601 in UTC with milliseconds: `2027-01-15T08:00:00.000Z`.
    public static func instant(_ date: Date) -> JSONValue {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return .string(formatter.string(from: date))
    }

    /// Parses an ISO 8601 instant with an offset (`2027-02-05T00:00:00+08:00`, `…Z`, optional fraction) with the
    /// one strict parser (`ISO8601Instant`): nothing may follow the offset. (Foundation's `ISO8601DateFormatter`
    /// took `…Zjunk`.)
    public static func parseInstant(_ text: String) -> Date? { ISO8601Instant.parse(text) }

    public static func number(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    /// The strong entity tag of a skin's or the kill switches' `revision` (RFC 9110 §8.8.3), quotes included
    /// (`"42"`): what the `etag` members say and the admin API's `ETag` header carries.
    public static func entityTag(_ revision: Int) -> String { "\"\(revision)\"" }

    /// A release: `{"version", <the plan's fields>, "guard" (the effective guard), "paused" (or null), "releasedAt",
    /// "releasedBy"}`; a recurring one also lists its
    /// next five occurrences from `now` as `"nextOccurrences": [{"year", "startsAt", "endsAt", "source"}]`
    /// (`source`: `rule`, `override` or `skip`). A damaged release (its stored document is not a plan) has no plan
    /// fields and says why in `damage`.
    static func release(_ release: Release, now: Date = Date()) -> JSONValue {
        var object = JSONObject()
        object["version"] = number(release.version)
        if let plan = release.plan {
            for member in plan.jsonValue.objectValue ?? JSONObject() { object[member.key] = member.value }
        }
        (object["guard"], object["paused"]) = guardStatus(of: release.plan)
        if let plan = release.plan, plan.recurrence != nil {
            object["nextOccurrences"] = .array(
                plan.occurrences(notEndedAt: now, count: 5).map { occurrence in
                    [
                        "year": number(occurrence.year), "startsAt": instant(occurrence.startsAt),
                        "endsAt": instant(occurrence.endsAt), "source": .string(occurrence.source.rawValue)
                    ]
                })
        }
        if let damage = release.damage { object["damage"] = .string(damage) }
        object["releasedAt"] = instant(release.releasedAt)
        object["releasedBy"] = .string(release.actor)
        return .object(object)
    }

    /// A release's guard in force (every member; the standard guard when the release names none or there is no
    /// plan) and its pause or `null`: what `GET …/skins/{id}` shows in `release` and the health endpoint beside
    /// the figures.
    public static func guardStatus(of plan: ReleasePlan?) -> (guard: JSONValue, paused: JSONValue) {
        ((plan?.effectiveGuard ?? .standard).jsonValue, plan?.paused?.jsonValue ?? .null)
    }

    /// `guardStatus` of `skin`'s release, for the health endpoint; both null when the skin is not released.
    public static func guardStatus(of skin: SkinState) -> (guard: JSONValue, paused: JSONValue) {
        guard let release = skin.release else { return (.null, .null) }
        return guardStatus(of: release.plan)
    }

    /// One version: number, time, who, digest, file count and total size, title/app, and with `files` every file.
    public static func version(_ version: SkinVersion, files: Bool = false) -> JSONValue {
        let info = version.metadata
        var object = JSONObject()
        object["skinId"] = .string(version.skinID)
        object["version"] = number(version.number)
        object["createdAt"] = instant(version.createdAt)
        object["createdBy"] = .string(version.actor)
        object["digest"] = .string(version.digest)
        object["title"] = info.title.map(JSONValue.string) ?? .null
        object["app"] = info.app.map(JSONValue.string) ?? .null
        object["source"] = info.source.map(JSONValue.string) ?? .null
        object["warnings"] = info.warnings.map(number) ?? .null
        if let damage = version.damage { object["damage"] = .string(damage) }
        object["fileCount"] = number(version.files.count)
        object["size"] = number(version.totalSize)
        if files {
            object["files"] = .array(
                version.files.map { file in
                    ["path": .string(file.path), "size": number(file.size), "sha256": .string(file.sha256)]
                })
        }
        return .object(object)
    }

    /// A skin in listings: id, title and app of its latest version, revision (its ETag), latest version number,
    /// version count, and the release or null.
    public static func skinSummary(_ skin: SkinState, now: Date = Date()) -> JSONObject {
        let latest = skin.latestVersion
        let info = latest?.metadata
        var object = JSONObject()
        object["id"] = .string(skin.id)
        object["title"] = info?.title.map(JSONValue.string) ?? .null
        object["app"] = info?.app.map(JSONValue.string) ?? .null
        object["revision"] = number(skin.revision)
        object["etag"] = .string(entityTag(skin.revision))
        object["latestVersion"] = latest.map { number($0.number) } ?? .null
        object["versionCount"] = number(skin.versions.count)
        object["release"] = skin.release.map { release($0, now: now) } ?? .null
        return object
    }

    /// One skin with every version, and its damaged versions: `[{"skin", "version", "reason"}]`.
    public static func skin(_ skin: SkinState, damaged: [DamagedVersion] = [], now: Date = Date()) -> JSONValue {
        var object = skinSummary(skin, now: now)
        object["versions"] = .array(skin.versions.map { version($0) })
        object["damaged"] = .array(
            damaged.map { damage in
                ["skin": .string(damage.skinID), "version": number(damage.version), "reason": .string(damage.reason)]
            })
        return .object(object)
    }

    /// The kill switches: `{"global": setting or null, "apps": {app: setting}, "revision", "etag"}`.
    public static func killSwitches(_ switches: KillSwitches) -> JSONValue {
        func setting(_ enabled: Bool, _ reason: String, _ actor: String, _ changedAt: Date) -> JSONValue {
            [
                "enabled": .bool(enabled), "reason": .string(reason), "changedBy": .string(actor),
                "changedAt": instant(changedAt)
            ]
        }
        var apps = JSONObject()
        for app in switches.apps.keys.sorted() {
            guard let value = switches.apps[app] else { continue }
            apps[app] = setting(value.enabled, value.reason, value.actor, value.changedAt)
        }
        var object = JSONObject()
        object["global"] = switches.global.map { setting($0.enabled, $0.reason, $0.actor, $0.changedAt) } ?? .null
        object["apps"] = .object(apps)
        object["revision"] = number(switches.revision)
        object["etag"] = .string(entityTag(switches.revision))
        return .object(object)
    }

    /// One audit entry; `before`/`after` are the store's JSON descriptions, embedded as JSON.
    public static func auditEntry(_ entry: AuditEntry) -> JSONValue {
        func embedded(_ bytes: [UInt8]?) -> JSONValue {
            guard let bytes else { return .null }
            return (try? JSONValue.parse(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
        }
        var object = JSONObject()
        object["sequence"] = number(entry.sequence)
        object["time"] = instant(entry.time)
        object["actor"] = .string(entry.actor)
        object["action"] = .string(entry.action)
        object["skinId"] = entry.skinID.map(JSONValue.string) ?? .null
        object["before"] = embedded(entry.before)
        object["after"] = embedded(entry.after)
        return .object(object)
    }
}
