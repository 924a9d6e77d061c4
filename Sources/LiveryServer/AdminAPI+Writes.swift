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
            let (version, added) = try await writes.withPermit { () async throws(APIError) -> (SkinVersion, Bool) in
                let snapshot = store.snapshot
                if !force, let stored = snapshot.skins[prepared.skinID]?.latestVersion,
                    let storedApp = AdminJSON.VersionInfo(stored).app, storedApp != prepared.app
                {
                    throw APIError.appMismatch(skinID: prepared.skinID, stored: storedApp, uploaded: prepared.app)
                }
                let current = snapshot.revision(ofSkin: prepared.skinID)
                if condition == .any && current == 0 { throw APIError.preconditionFailed(current: 0) }
                let expected = try AdminETag.expectedRevision(condition, current: current)
                let outcome: (version: SkinVersion, added: Bool)
                do throws(StoreError) {
                    outcome = try await store.addVersionUnlessUnchanged(
                        skinID: prepared.skinID, files: prepared.files, metadata: prepared.metadata,
                        expectedRevision: expected, actor: actor)
                } catch {
                    throw failure(error, field: "body", request: request)
                }
                if outcome.added {
                    await catalog.publishLatest()
                    changes.increment(action: "push")
                }
                return (outcome.version, outcome.added)
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
            let etag = AdminETag.tag(store.snapshot.revision(ofSkin: version.skinID))
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

    /// Releases `number` (nil: latest) of skin `id` with `plan`: prepares the packages, commits, publishes.
    /// Runs inside the write lock.
    func release(
        id: String, number: Int?, plan: ReleasePlan, condition: AdminETag.Condition, action: String,
        request: HTTPRequest
    ) async throws(APIError) -> SkinState {
        let skin = try Self.skin(id, in: store.snapshot)
        let expected = try AdminETag.expectedRevision(condition, current: skin.revision)
        // Without a version, the released one stays (a new window must not silently ship the latest upload).
        let wanted = number ?? skin.release?.version ?? skin.latestVersion?.number ?? 0
        guard let version = skin.version(wanted) else {
            throw APIError.unknownReleaseVersion(skinID: id, version: wanted)
        }
        guard plan.endsAt > clock() else {
            throw APIError.windowInPast(endsAt: AnswerFragments.instantText(plan.endsAt, written: plan.endsAtText, plan.timeZone))
        }
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
        let document = plan.jsonValue.serialized(.compact)
        let actor = AdminAuth.actor(of: request)
        let updated: SkinState
        do throws(StoreError) {
            updated = try await store.setRelease(
                skinID: id, version: version.number, document: document, expectedRevision: expected, actor: actor,
                action: action)
        } catch {
            throw failure(error, field: "version", request: request)
        }
        await catalog.publishLatest()
        changes.increment(action: action == "release.rollback" ? "rollback" : "release")
        logger.info(
            "skin released",
            metadata: ["skin.id": "\(id)", "skin.version": "\(version.number)", "action": "\(action)", "actor": "\(actor)",
                       "release.rollout": "\(plan.rollout)"])
        return updated
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
            let skin = try await writes.withPermit { () async throws(APIError) -> SkinState in
                try await release(
                    id: id, number: wanted.version, plan: wanted.plan, condition: condition,
                    action: AuditAction.setRelease, request: request)
            }
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
            let skin = try await writes.withPermit { () async throws(APIError) -> SkinState in
                let current = try Self.skin(id, in: store.snapshot)
                guard let release = current.release else {
                    throw APIError.notReleased(skinID: id, fix: "PUT a whole release first")
                }
                var merged = (try? JSONValue.parse(release.document).objectValue) ?? JSONObject()
                merged["version"] = AdminJSON.number(release.version)
                merged = Self.mergePatch(merged, with: patch)
                let wanted = try Self.releaseRequest(merged)
                return try await self.release(
                    id: id, number: wanted.version ?? release.version, plan: wanted.plan, condition: condition,
                    action: AuditAction.setRelease, request: request)
            }
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
            let skin = try await writes.withPermit { () async throws(APIError) -> SkinState in
                let current = try Self.skin(id, in: store.snapshot)
                guard let release = current.release else {
                    throw APIError.notReleased(skinID: id, fix: "there is nothing to roll back")
                }
                guard let previous = current.versions.last(where: { $0.number < release.version }) else {
                    throw APIError.noPreviousVersion(skinID: id, released: release.version)
                }
                let plan: ReleasePlan
                do throws(ServingError) {
                    plan = try CatalogBuilder.plan(of: release)
                } catch {
                    logger.error("stored release unusable", metadata: ["skin.id": "\(id)", "error": "\(error)"])
                    throw APIError.internalError
                }
                return try await self.release(
                    id: id, number: previous.number, plan: plan, condition: condition, action: "release.rollback",
                    request: request)
            }
            return Self.skinAnswer(skin)
        }
    }

    /// `DELETE /skins/{id}/release`: stops serving the skin. Harmless when it is not released.
    func deleteRelease(_ request: HTTPRequest) async -> HTTPResponse {
        await respond { () async throws(APIError) -> HTTPResponse in
            let id = try Self.skinID(request)
            let condition = try AdminETag.condition(request)
            let actor = AdminAuth.actor(of: request)
            let skin = try await writes.withPermit { () async throws(APIError) -> SkinState in
                let current = try Self.skin(id, in: store.snapshot)
                let expected = try AdminETag.expectedRevision(condition, current: current.revision)
                let updated: SkinState
                do throws(StoreError) {
                    updated = try await store.clearRelease(skinID: id, expectedRevision: expected, actor: actor)
                } catch {
                    throw failure(error, request: request)
                }
                await catalog.publishLatest()
                changes.increment(action: "release_stop")
                return updated
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
            let revision = try await writes.withPermit { () async throws(APIError) -> Int in
                let current = try Self.skin(id, in: store.snapshot)
                let expected = try AdminETag.expectedRevision(condition, current: current.revision)
                let revision: Int
                do throws(StoreError) {
                    revision = try await store.deleteSkin(skinID: id, force: force, expectedRevision: expected, actor: actor)
                } catch {
                    throw failure(error, request: request)
                }
                await catalog.publishLatest()
                changes.increment(action: "delete")
                return revision
            }
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
            if let app { try checkKnownApp(app, field: "app", force: Self.force(request)) }
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
            let switches = try await writes.withPermit { () async throws(APIError) -> KillSwitches in
                let expected = try AdminETag.expectedRevision(condition, current: store.snapshot.killSwitches.revision)
                let switches: KillSwitches
                do throws(StoreError) {
                    switches = try await store.setKillSwitch(
                        app: app, enabled: enabled, reason: reason, expectedRevision: expected, actor: actor)
                } catch {
                    throw failure(error, request: request)
                }
                await catalog.publishLatest()
                changes.increment(action: "killswitch")
                return switches
            }
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
