import Foundation
import LiveryHTTP
import LiveryJSON
import SkinModel
import SkinServing

/// `GET /preview` and `GET /audit`: read-only answers computed from the current catalog and store (`Queries`).
extension AdminAPI {
    /// `GET /preview?app=&platform=&appVersion=&deviceId=&scale=&appearance=&at=`: exactly the body
    /// `/api/v1/skin` would answer at instant `at` (default: now) from the catalog clients see now, plus why: every
    /// released skin of the app, in precedence order, with its outcome (`selected`, `outranked` or `excluded`) and,
    /// when excluded, the rule that excluded it. The same for themes: exactly the body `/api/v1/themes` would
    /// answer (`themeList`), and every released theme of the app in list order, `listed` or `excluded` with the
    /// rule (`themes`).
    func preview(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let query: SkinRequest
        do throws(InvalidParameter) {
            query = try SkinRequest.parse(request.query.firstValues(of: SkinRequest.queryNames))
        } catch {
            throw APIError.invalidParameter(error)
        }
        try checkKnownApp(query.app, field: "app", force: Self.force(request))
        var at = clock()
        if let text = request.query["at"] {
            guard let parsed = AdminJSON.parseInstant(text) else {
                throw APIError.invalidField(
                    "at", "must be an ISO 8601 instant with an offset, such as 2027-02-05T00:00:00+08:00")
            }
            at = parsed
        }
        let (answer, decision, catalog) = client.preview(query, at: at)
        var considered: [JSONValue] = []
        // A recurring release is in the catalog once per occurrence: the preview lists each skin once, with the
        // occurrence in force at `at` (the open one, else the next, else the last ended).
        func rank(_ skin: ReleasedSkin) -> (Int, TimeInterval) {
            if skin.release.isActive(at: at) { return (0, 0) }
            if skin.release.startsAt > at { return (1, skin.release.startsAt.timeIntervalSince(at)) }
            return (2, at.timeIntervalSince(skin.release.endsAt))
        }
        let released = catalog.releases[query.app] ?? []
        var shown: [SkinID: ReleasedSkin] = [:]
        for skin in released where shown[skin.skinID].map({ rank(skin) < rank($0) }) ?? true {
            shown[skin.skinID] = skin
        }
        for skin in released where shown[skin.skinID] === skin {
            let exclusion = SkinResolver.exclusion(of: skin, for: query, at: at, killSwitch: catalog.killSwitch)
            let outcome: String
            let reason: JSONValue
            if let exclusion {
                outcome = "excluded"
                reason = .string(exclusion.rawValue)
            } else if decision.current?.skinID == skin.skinID {
                outcome = "selected"
                reason = .null
            } else {
                outcome = "outranked"
                reason = .string(Exclusion.outranked.rawValue)
            }
            var entry = JSONObject()
            entry["skinId"] = .string(skin.skinID.rawValue)
            entry["version"] = queries.releasedVersion(of: skin.skinID.rawValue).map(AdminJSON.number) ?? .null
            entry["outcome"] = .string(outcome)
            entry["reason"] = reason
            entry["next"] = .bool(decision.next?.skinID == skin.skinID)
            entry["sign"] = skin.packages[query.variant].map { .string($0.sign) } ?? .null
            entry["release"] = skin.release.jsonValue
            considered.append(.object(entry))
        }
        var requestObject = JSONObject()
        requestObject["app"] = .string(query.app)
        requestObject["platform"] = .string(query.platform.rawValue)
        requestObject["appVersion"] = .string(query.appVersion.text)
        requestObject["deviceId"] = query.deviceID.map(JSONValue.string) ?? .null
        requestObject["scale"] = AdminJSON.number(query.variant.scale)
        requestObject["appearance"] = .string(query.variant.appearance.rawValue)
        var body = JSONObject()
        body["at"] = AdminJSON.instant(at)
        body["request"] = .object(requestObject)
        body["answer"] = (try? JSONValue.parse(answer.body)) ?? .null
        body["etag"] = .string(answer.etag)
        body["killSwitch"] = .bool(catalog.killSwitch.blocks(app: query.app))
        body["considered"] = .array(considered)
        let themes = client.themesPreview(query, at: at)
        body["themeList"] = (try? JSONValue.parse(themes.answer.body)) ?? .null
        body["themes"] = .array(
            (themes.catalog.themes[query.app] ?? []).map { theme in
                let exclusion = SkinResolver.exclusion(
                    of: theme, for: query, at: at, killSwitch: themes.catalog.killSwitch)
                var entry = JSONObject()
                entry["themeId"] = .string(theme.skinID.rawValue)
                entry["version"] = queries.releasedVersion(of: theme.skinID.rawValue).map(AdminJSON.number) ?? .null
                entry["order"] = theme.release.order.map(AdminJSON.number) ?? .null
                entry["outcome"] = .string(exclusion == nil ? "listed" : "excluded")
                entry["reason"] = exclusion.map { .string($0.rawValue) } ?? .null
                entry["sign"] = theme.package(for: query.variant).map { .string($0.sign) } ?? .null
                return .object(entry)
            })
        return Self.json(.object(body))
    }

    /// `GET /audit?since=&limit=`: committed changes, oldest first. `since` is a sequence number (entries after
    /// it; page with the answer's `nextSince`) or an ISO 8601 instant (entries at or after it); `limit` is 1 to
    /// `Configuration.maxAuditPage` (default 100).
    func audit(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let cursor = try await perform { () async throws(ChangeError) in
            try Queries.auditCursor(since: request.query["since"])
        }
        var limit = 100
        if let text = request.query["limit"] {
            guard let parsed = Int(text), (1...configuration.maxAuditPage).contains(parsed) else {
                throw APIError.invalidField("limit", "must be a whole number from 1 to \(configuration.maxAuditPage)")
            }
            limit = parsed
        }
        let entries = try await perform { () async throws(ChangeError) in
            try await queries.audit(since: cursor, limit: limit, requestID: request.requestID)
        }
        return Self.json([
            "entries": .array(entries.map(AdminJSON.auditEntry)),
            "nextSince": entries.last.map { AdminJSON.number($0.sequence) } ?? .null
        ])
    }
}
