import LiveryHTTP
import LiveryJSON
import SkinModel
import SkinServing

extension AdminAPI {
    /// `GET /skins/{id}/health`: what phones reported about the skin, per version, newest first:
    /// `{"versions": [{"version", "applied", "failed", "failedByStage", "byPlatform", "series"}], "guard", "paused"}`.
    /// Counts are counted reports (one per device, package sign and outcome), over the whole history; `series` is
    /// hour by hour (UTC hours by the time the store recorded them). 404 for a skin that does not exist.
    func health(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let id = try Self.skinID(request)
        let (skin, versions) = try await perform { () async throws(ChangeError) in
            try await queries.health(of: id, requestID: request.requestID)
        }
        // The release's guard (effective, defaults filled in) and its pause: what `GET …/skins/{id}` shows in
        // `release`; both null when the skin is not released.
        let release = AdminJSON.guardStatus(of: skin)
        var object = JSONObject()
        object["versions"] = .array(versions.map(Self.healthJSON))
        object["guard"] = release.guard
        object["paused"] = release.paused
        return Self.json(.object(object))
    }

    static func healthJSON(_ version: SkinHealth.Version) -> JSONValue {
        var object = JSONObject([JSONObject.Member(key: "version", value: AdminJSON.number(version.version))])
        for member in countsJSON(version.counts) { object[member.key] = member.value }
        var platforms = JSONObject()
        for (name, platform) in version.byPlatform.sorted(by: { $0.key < $1.key }) {
            var entry = countsJSON(platform.counts)
            var appVersions = JSONObject()
            for (appVersion, counts) in platform.byAppVersion.sorted(by: { $0.key < $1.key }) {
                appVersions[appVersion] = .object(countsJSON(counts))
            }
            entry["byAppVersion"] = .object(appVersions)
            platforms[name] = .object(entry)
        }
        object["byPlatform"] = .object(platforms)
        object["series"] = .array(
            version.series.map { hour -> JSONValue in
                [
                    "at": .string(ISO8601Instant.format(hour.at)), "applied": AdminJSON.number(hour.applied),
                    "failed": AdminJSON.number(hour.failed)
                ]
            })
        return .object(object)
    }

    private static func countsJSON(_ counts: SkinHealth.Counts) -> JSONObject {
        var stages = JSONObject()
        for (stage, count) in counts.failedByStage.sorted(by: { $0.key < $1.key }) {
            stages[stage] = AdminJSON.number(count)
        }
        var object = JSONObject()
        object["applied"] = AdminJSON.number(counts.applied)
        object["failed"] = AdminJSON.number(counts.failed)
        object["failedByStage"] = .object(stages)
        return object
    }
}
