import Foundation
import LiveryCrypto
import LiveryHTTP
import LiveryJSON
import SkinModel
import SkinPackage
import SkinServing
import SkinStore
import ZipArchive
import ZipReading

/// The admin API's changes: upload, release, rollout change, rollback, stop, delete, kill switch.
/// See `AdminAPI` for the order every change follows.
extension AdminAPI {
    // MARK: - POST /skins

    /// What an accepted upload turned into, before it is stored.
    struct PreparedUpload: Sendable {
        let skinID: String
        let app: String
        let files: [String: [UInt8]]
        let metadata: [UInt8]
        let report: ValidationReport
        let signs: [(PackageVariant, String)]
        let skipped: [String]
        let strippedFolder: String?
    }

    /// Reads, checks and validates an uploaded archive. Blocking (inflate, validation, hashing).
    static func prepare(
        archive: [UInt8], archiveLimits: ZipArchiveReader.Limits, limits: ValidationLimits
    ) throws(APIError) -> PreparedUpload {
        let upload: UploadReader.Upload
        do throws(UploadError) {
            upload = try UploadReader(limits: archiveLimits).read(archive)
        } catch {
            throw APIError.upload(error)
        }
        let source = upload.source
        let report = SkinValidator(limits: limits).validate(source)
        guard let skin = report.skin else { throw APIError.invalidSkin(report) }
        let packager: SkinPackager
        do {
            packager = try SkinPackager(skin: skin, source: source)
        } catch {
            // An in-memory source always reads; this is a bug, not bad input.
            throw APIError.internalError
        }
        let signs = (PackageVariant.all + PackageVariant.bothAppearances).map { ($0, packager.sign(for: $0)) }
        let metadata: JSONValue = [
            "source": "upload", "archiveSha256": .string(SHA256.hexHash(archive)),
            "archiveBytes": AdminJSON.number(archive.count), "skipped": .array(upload.skipped.map { .string($0) }),
            "strippedFolder": upload.strippedFolder.map(JSONValue.string) ?? .null,
            "skin": skin.manifest.jsonValue, "report": report.jsonValue,
        ]
        return PreparedUpload(
            skinID: skin.manifest.id.rawValue, app: skin.manifest.app, files: upload.files, metadata: metadata.serialized(.compact),
            report: report, signs: signs, skipped: upload.skipped, strippedFolder: upload.strippedFolder)
    }

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
            let archive = request.body
            let archiveLimits = configuration.archiveLimits
            let limits = limits
            let prepared = try await uploads.withPermit { () async throws(APIError) -> PreparedUpload in
                try await BlockingWorkRunner.onOwnThread(name: "livery.upload") { () throws(APIError) -> PreparedUpload in
                    try Self.prepare(archive: archive, archiveLimits: archiveLimits, limits: limits)
                }
            }
            let actor = AdminAuth.actor(of: request)
            let (skinID, app) = (prepared.skinID, prepared.app)
            let outcome = try await change(
                actor: actor, field: "body", request: request,
                upload: StoreUpload(skinID: skinID, files: prepared.files, metadata: prepared.metadata)
            ) { state throws(APIError) in
                try AdminRules.push(skinID: skinID, app: app, force: force, condition: condition, state: state)
            }
            let added = outcome.changed
            guard let version = outcome.state.skins[skinID]?.latestVersion else { throw APIError.internalError }
            if added {
                await catalog.publishLatest()
                changes.increment(action: "push")
            }
            logger.info(
                added ? "skin version uploaded" : "skin upload unchanged; the latest version holds the same files",
                metadata: ["skin.id": "\(version.skinID)", "skin.version": "\(version.number)", "actor": "\(actor)"])
            var signs = JSONObject()
            for (variant, sign) in prepared.signs { signs[variant.description] = .string(sign) }
            var body = JSONObject()
            body["skinId"] = .string(version.skinID)
            body["version"] = AdminJSON.number(version.number)
            body["unchanged"] = .bool(!added)
            body["digest"] = .string(version.digest)
            body["fileCount"] = AdminJSON.number(version.files.count)
            body["size"] = AdminJSON.number(version.totalSize)
            body["warnings"] = AdminJSON.number(prepared.report.warnings.count)
            body["report"] = prepared.report.jsonValue
            body["signs"] = .object(signs)
            body["skipped"] = .array(prepared.skipped.map { .string($0) })
            body["strippedFolder"] = prepared.strippedFolder.map(JSONValue.string) ?? .null
            let etag = AdminETag.tag(outcome.state.revision(ofSkin: version.skinID))
            var response = Self.json(.object(body), status: added ? .created : .ok, etag: etag)
            response.headers.add(
                name: "Location", value: "\(Self.prefix)/skins/\(version.skinID)/versions/\(version.number)")
            return response
        }
        // The upload's files, parsed documents and package plans are freed by now.
        await MemoryRelease.returnFreedMemory()
        return response
    }

    // MARK: - Releases

    /// A release request, checked: which version (nil: the latest) with which plan.
    struct ReleaseRequest {
        let version: Int?
        let plan: ReleasePlan
    }

    /// Parses a release object (`version` plus the fields of `release` in `skin.json`).
    static func releaseRequest(_ object: JSONObject) throws(APIError) -> ReleaseRequest {
        var version: Int?
        if let field = object["version"], !field.isNull {
            guard let number = field.intValue, number >= 1 else {
                throw APIError.invalidField(
                    "version", "must be a version number (a whole number from 1), not \(field.compactText)",
                    code: "invalid_release", status: .unprocessableContent)
            }
            version = number
        }
        // Only a holiday release needs a window; ReleasePlan.parse checks a theme's (both halves or none) and
        // names a bad kind first.
        let isHoliday = object["kind"] == nil || object["kind"] == .string(SkinKind.holiday.rawValue)
        for key in ["startsAt", "endsAt"] where object[key] == nil && isHoliday {
            throw APIError.invalidField(
                key, "is required: an ISO 8601 date-time such as 2027-02-05T00:00:00+08:00", code: "invalid_release",
                status: .unprocessableContent)
        }
        let parsed = ReleasePlan.parse(.object(object), file: nil, pointer: .root, allowingExtraKeys: ["version"])
        guard let plan = parsed.value else { throw APIError.invalidRelease(parsed.issues) }
        return ReleaseRequest(version: version, plan: plan)
    }

    /// How many times a release prepares packages for a version that another change then moved away from before
    /// it gives up (503, try again).
    static let releaseAttempts = 5

    /// Releases what `kind` means for skin `id`: decides the version on the current state, builds its packages
    /// (outside any lock or transaction: other writes, the kill switch first, go on meanwhile), then decides again
    /// inside the store's change and commits only if the state still means that version — else builds the
    /// version it now means and tries again. Publishes the catalog before returning.
    func release(
        id: String, kind: AdminRules.ReleaseKind, condition: AdminETag.Condition, action: String, request: HTTPRequest
    ) async throws(APIError) -> SkinState {
        let now = clock()
        let actor = AdminAuth.actor(of: request)
        var state = try await currentState(request)
        var prepared: SkinVersion?
        for _ in 0..<Self.releaseAttempts {
            let (version, plan) = try AdminRules.release(kind, id: id, condition: condition, now: now, state: state)
            if prepared?.number != version.number || prepared?.digest != version.digest {
                try await prepare(version: version, plan: plan, id: id, request: request)
                prepared = version
            }
            let built = (number: version.number, digest: version.digest)
            let outcome = try await change(actor: actor, field: "version", request: request) { state throws(APIError) in
                try AdminRules.releaseDecision(
                    kind, id: id, condition: condition, now: now, action: action, prepared: built, state: state)
            }
            guard case .released(let number, let plan) = outcome.value, let updated = outcome.state.skins[id] else {
                state = outcome.state
                continue
            }
            await catalog.publishLatest()
            changes.increment(action: action == "release.rollback" ? "rollback" : "release")
            logger.info(
                "skin released",
                metadata: ["skin.id": "\(id)", "skin.version": "\(number)", "action": "\(action)", "actor": "\(actor)",
                           "release.rollout": "\(plan.rollout)"])
            return updated
        }
        throw APIError.store(
            .unavailable(reason: "the version to release kept changing while its packages were built; try again"))
    }

    /// Builds the packages of `version` (every variant), so the catalog that releases it never waits for one.
    private func prepare(
        version: SkinVersion, plan: ReleasePlan, id: String, request: HTTPRequest
    ) async throws(APIError) {
        do throws(ServingError) {
            try await catalog.builder.prepare(version: version, plan: plan)
        } catch {
            if case .invalidVersion = error {} else {
                logger.error(
                    "cannot prepare a release",
                    metadata: ["request.id": "\(request.requestID)", "skin.id": "\(id)", "error": "\(error)"])
            }
            throw APIError.notServable(error)
        }
    }

    /// The answer to a change of a skin: the skin, with its new `ETag`.
    static func skinAnswer(_ skin: SkinState) -> HTTPResponse {
        json(AdminJSON.skin(skin), etag: AdminETag.tag(skin.revision))
    }

    /// `PUT /skins/{id}/release`: releases a version (default: the released one, or the latest when the skin is
    /// not released) with the given plan, replacing the current release whole.
    func putRelease(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let wanted = try Self.releaseRequest(Self.jsonObject(request))
            let skin = try await release(
                id: id, kind: .put(version: wanted.version, plan: wanted.plan), condition: condition,
                action: AuditAction.setRelease, request: request)
            return Self.skinAnswer(skin)
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
            let skin = try await release(
                id: id, kind: .patch(patch), condition: condition, action: AuditAction.setRelease, request: request)
            return Self.skinAnswer(skin)
        }
    }

    /// RFC 7396's merge of `patch` into `target`: a `null` member removes the target's, an object member is merged
    /// into the target's object (replacing anything else), any other value replaces the target's.
    static func mergePatch(_ target: JSONObject, with patch: JSONObject) -> JSONObject {
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

    /// `POST /skins/{id}/rollback`: releases the highest version below the released one, with the same settings.
    func rollback(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let skin = try await release(
                id: id, kind: .rollback, condition: condition, action: "release.rollback", request: request)
            return Self.skinAnswer(skin)
        }
    }

    /// `DELETE /skins/{id}/release`: stops serving the skin. Harmless when it is not released.
    func deleteRelease(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let actor = AdminAuth.actor(of: request)
            let outcome = try await change(actor: actor, request: request) { state throws(APIError) in
                try AdminRules.stop(id: id, condition: condition, state: state)
            }
            guard let skin = outcome.state.skins[id] else { throw APIError.store(.unknownSkin(id), field: "id") }
            if outcome.changed {
                await catalog.publishLatest()
                changes.increment(action: "release_stop")
            }
            logger.info("skin release stopped", metadata: ["skin.id": "\(id)", "actor": "\(actor)"])
            return Self.skinAnswer(skin)
        }
    }

    /// `DELETE /skins/{id}[?force=true]`: deletes the skin (409 while released unless forced). Its versions stay
    /// in the audit log and its version numbers are never reused.
    func deleteSkin(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let force = try Self.force(request)
            let actor = AdminAuth.actor(of: request)
            let outcome = try await change(actor: actor, request: request) { state throws(APIError) in
                try AdminRules.delete(id: id, force: force, condition: condition, state: state)
            }
            let revision = outcome.state.revision
            await catalog.publishLatest()
            changes.increment(action: "delete")
            logger.info("skin deleted", metadata: ["skin.id": "\(id)", "actor": "\(actor)", "forced": "\(force)"])
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
            let actor = AdminAuth.actor(of: request)
            let outcome = try await change(actor: actor, request: request) { state throws(APIError) in
                try AdminRules.killSwitch(
                    app: app, enabled: enabled, reason: reason, force: force, condition: condition, state: state)
            }
            let switches = outcome.state.killSwitches
            // Served at once by the catalog already published, whatever is being built; the rest of the
            // catalog catches up in the background.
            catalog.applyKillSwitches(of: outcome.state)
            catalog.publishLatestInBackground()
            changes.increment(action: "killswitch")
            logger.notice(
                "kill switch set",
                metadata: ["app": "\(app ?? "*")", "enabled": "\(enabled)", "actor": "\(actor)"])
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
