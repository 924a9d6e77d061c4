import LiveryHTTP
import LiveryJSON
import SkinModel
import SkinServing

/// The admin API's changes: upload, release, rollout change, rollback, stop, delete, kill switch. Each handler reads
/// the request, calls its use case in `Changes` (the serving core, which decides, commits, publishes, counts and
/// logs) and renders what it returns; `APIError.change` maps its refusals.
extension AdminAPI {
    // MARK: - POST /skins

    /// `POST /skins`: stores a new version of the skin the archive holds (its `skin.json` names it).
    /// 201 with the version, its report (warnings) and its package signs. The version is not released.
    /// When the files are exactly those of the skin's latest version (a retried push), nothing is stored and no
    /// audit entry is written: 200 with that version and `unchanged: true`.
    func upload(_ request: HTTPRequest) async -> HTTPResponse {
        let response = await respond { () async throws(APIError) -> HTTPResponse in
            let type = request.headers["Content-Type"].map(Self.mediaType)
            guard type == "application/zip" || type == "application/x-zip-compressed" else {
                throw APIError.invalidField(
                    "Content-Type", "send the skin as a zip archive with Content-Type: application/zip",
                    code: "unsupported_media_type", status: .unsupportedMediaType)
            }
            let condition = try AdminETag.condition(request)
            let force = try Self.force(request)
            let pushed = try await perform { () async throws(ChangeError) in
                try await changes.push(archive: request.body, force: force, condition: condition, by: caller(request))
            }
            var signs = JSONObject()
            for (variant, sign) in pushed.signs { signs[variant.description] = .string(sign) }
            var body = JSONObject()
            body["skinId"] = .string(pushed.skinID)
            body["version"] = AdminJSON.number(pushed.version)
            body["unchanged"] = .bool(!pushed.added)
            body["digest"] = .string(pushed.digest)
            body["fileCount"] = AdminJSON.number(pushed.fileCount)
            body["size"] = AdminJSON.number(pushed.size)
            body["warnings"] = AdminJSON.number(pushed.report.warnings.count)
            body["report"] = pushed.report.jsonValue
            body["signs"] = .object(signs)
            body["skipped"] = .array(pushed.skipped.map { .string($0) })
            body["strippedFolder"] = pushed.strippedFolder.map(JSONValue.string) ?? .null
            let etag = AdminETag.tag(pushed.revision)
            var response = Self.json(.object(body), status: pushed.added ? .created : .ok, etag: etag)
            response.headers.add(
                name: "Location", value: "\(Self.prefix)/skins/\(pushed.skinID)/versions/\(pushed.version)")
            return response
        }
        // The upload's files, parsed documents and package plans are freed by now.
        await MemoryRelease.returnFreedMemory(afterReading: request.body.count)
        return response
    }

    // MARK: - Releases

    /// `PUT /skins/{id}/release`: releases a version (default: the released one, or the latest when the skin is
    /// not released) with the given plan, replacing the current release whole.
    func putRelease(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let object = try Self.jsonObject(request)
            let skin = try await perform { () async throws(ChangeError) in
                let wanted = try ReleaseRequest.parse(object, now: clock())
                return try await changes.release(
                    .put(version: wanted.version, plan: wanted.plan), skinID: id, condition: condition,
                    by: caller(request))
            }
            return Self.json(AdminJSON.skin(skin), etag: AdminETag.tag(skin.revision))
        }
    }

    /// `PATCH /skins/{id}/release`: changes some fields of the current release and keeps the others (JSON merge
    /// patch, RFC 7396: a key set to null is removed, which for optional fields means their default). The way to
    /// raise or lower the rollout alone: `{"rollout": 50}`.
    func patchRelease(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let patch = try Self.jsonObject(request, mediaTypes: Self.mergePatchMediaTypes)
            let skin = try await perform { () async throws(ChangeError) in
                try await changes.release(.patch(patch), skinID: id, condition: condition, by: caller(request))
            }
            return Self.json(AdminJSON.skin(skin), etag: AdminETag.tag(skin.revision))
        }
    }

    /// `POST /skins/{id}/rollback`: releases the highest version below the released one, with the same settings.
    func rollback(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let skin = try await perform { () async throws(ChangeError) in
                try await changes.release(.rollback, skinID: id, condition: condition, by: caller(request))
            }
            return Self.json(AdminJSON.skin(skin), etag: AdminETag.tag(skin.revision))
        }
    }

    /// `DELETE /skins/{id}/release`: stops serving the skin. Harmless when it is not released.
    func deleteRelease(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let skin = try await perform { () async throws(ChangeError) in
                try await changes.stop(skinID: id, condition: condition, by: caller(request))
            }
            return Self.json(AdminJSON.skin(skin), etag: AdminETag.tag(skin.revision))
        }
    }

    /// `DELETE /skins/{id}[?force=true]`: deletes the skin (409 while released unless forced). Its versions stay
    /// in the audit log and its version numbers are never reused.
    func deleteSkin(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let force = try Self.force(request)
            let revision = try await perform { () async throws(ChangeError) in
                try await changes.delete(skinID: id, force: force, condition: condition, by: caller(request))
            }
            return Self.json(["deleted": .string(id), "revision": AdminJSON.number(revision)])
        }
    }

    // MARK: - PUT /killswitch

    /// `PUT /killswitch` with `{"app": optional, "enabled": bool, "reason": "…"}`: sets the global switch (no
    /// `app`) or one app's. Takes effect for every poll before the answer is sent.
    func putKillSwitch(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let condition = try AdminETag.condition(request)
            let object = try Self.jsonObject(request)
            for key in object.keys where !["app", "enabled", "reason"].contains(key) {
                throw APIError.invalidField(key, "unknown key; the keys are app, enabled and reason")
            }
            let app = try Self.killSwitchApp(object["app"])
            let force = try Self.force(request)
            guard case .bool(let enabled)? = object["enabled"] else {
                throw APIError.invalidField("enabled", "is required: true switches skins off, false back on")
            }
            let reason: String
            switch object["reason"] {
            case nil, .null?: reason = ""
            case .string(let text)?: reason = text
            default: throw APIError.invalidField("reason", "must be a string")
            }
            let switches = try await perform { () async throws(ChangeError) in
                try await changes.setKillSwitch(
                    app: app, enabled: enabled, reason: reason, force: force, condition: condition, by: caller(request))
            }
            return Self.json(AdminJSON.killSwitches(switches), etag: AdminETag.tag(switches.revision))
        }
    }

    /// The `app` of a kill-switch body: nil (absent or null) for the global switch, or a checked app id.
    static func killSwitchApp(_ field: JSONValue?) throws(APIError) -> String? {
        guard let field, !field.isNull else { return nil }
        guard let text = field.stringValue, SkinRequest.isAppID(text) else {
            throw APIError.invalidField("app", "must be an app id: 1-64 characters of letters, digits, '.', '_' or '-'")
        }
        return text
    }
}
