import Foundation
import LiveryJSON
import SkinModel
import SkinServing
import SkinStore

/// How store values look in admin API answers. Every answer is a JSON object whose keys appear in a fixed order.
enum AdminJSON {
    /// `date` as ISO 8601 in UTC with milliseconds: `2027-01-15T08:00:00.000Z`.
    static func instant(_ date: Date) -> JSONValue {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return .string(formatter.string(from: date))
    }

    /// Parses an ISO 8601 instant with an offset (`2027-02-05T00:00:00+08:00`, `…Z`, optional fraction) with the
    /// one strict parser (`ISO8601Instant`): nothing may follow the offset. (Foundation's `ISO8601DateFormatter`
    /// took `…Zjunk`.)
    static func parseInstant(_ text: String) -> Date? { ISO8601Instant.parse(text) }

    static func number(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    /// A release: `{"version", <the plan's fields>, "guard" (the effective guard), "paused" (or null), "releasedAt",
    /// "releasedBy"}`; a recurring one also lists its
    /// next five occurrences from `now` as `"nextOccurrences": [{"year", "startsAt", "endsAt", "source"}]`
    /// (`source`: `rule`, `override` or `skip`).
    static func release(_ release: Release, now: Date = Date()) -> JSONValue {
        var object = JSONObject()
        object["version"] = number(release.version)
        if let document = try? JSONValue.parse(release.document) {
            for member in document.objectValue ?? JSONObject() where member.key != "version" {
                object[member.key] = member.value
            }
            let plan = ReleasePlan.parse(document, file: nil, pointer: .root, allowingExtraKeys: ["version"], now: now)
                .value
            (object["guard"], object["paused"]) = guardStatus(of: plan)
            if document.objectValue?["recurs"] != nil, let plan {
                object["nextOccurrences"] = .array(
                    plan.occurrences(notEndedAt: now, count: 5).map { occurrence in
                        [
                            "year": number(occurrence.year), "startsAt": instant(occurrence.startsAt),
                            "endsAt": instant(occurrence.endsAt), "source": .string(occurrence.source.rawValue)
                        ]
                    })
            }
        }
        object["releasedAt"] = instant(release.releasedAt)
        object["releasedBy"] = .string(release.actor)
        return .object(object)
    }

    /// A release's guard in force (every member; the standard guard when the release names none or there is no
    /// plan) and its pause or `null`: what `GET …/skins/{id}` shows in `release` and the health endpoint beside
    /// the figures.
    static func guardStatus(of plan: ReleasePlan?) -> (guard: JSONValue, paused: JSONValue) {
        ((plan?.effectiveGuard ?? .standard).jsonValue, plan?.paused?.jsonValue ?? .null)
    }

    /// One version: number, time, who, digest, file count and total size, title/app, and with `files` every file.
    static func version(_ version: SkinVersion, files: Bool = false) -> JSONValue {
        let info = VersionInfo(version)
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
    static func skinSummary(_ skin: SkinState, now: Date = Date()) -> JSONObject {
        let latest = skin.latestVersion
        let info = latest.map(VersionInfo.init)
        var object = JSONObject()
        object["id"] = .string(skin.id)
        object["title"] = info?.title.map(JSONValue.string) ?? .null
        object["app"] = info?.app.map(JSONValue.string) ?? .null
        object["revision"] = number(skin.revision)
        object["etag"] = .string(AdminETag.tag(skin.revision))
        object["latestVersion"] = latest.map { number($0.number) } ?? .null
        object["versionCount"] = number(skin.versions.count)
        object["release"] = skin.release.map { release($0, now: now) } ?? .null
        return object
    }

    /// One skin with every version, and its damaged versions: `[{"skin", "version", "reason"}]`.
    static func skin(_ skin: SkinState, damaged: [DamagedVersion] = [], now: Date = Date()) -> JSONValue {
        var object = skinSummary(skin, now: now)
        object["versions"] = .array(skin.versions.map { version($0) })
        object["damaged"] = .array(
            damaged.map { damage in
                ["skin": .string(damage.skinID), "version": number(damage.version), "reason": .string(damage.reason)]
            })
        return .object(object)
    }

    /// The kill switches: `{"global": setting or null, "apps": {app: setting}, "revision", "etag"}`.
    static func killSwitches(_ switches: KillSwitches) -> JSONValue {
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
        object["etag"] = .string(AdminETag.tag(switches.revision))
        return .object(object)
    }

    /// One audit entry; `before`/`after` are the store's JSON descriptions, embedded as JSON.
    static func auditEntry(_ entry: AuditEntry) -> JSONValue {
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
