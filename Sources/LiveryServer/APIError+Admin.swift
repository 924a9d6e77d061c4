import LiveryHTTP
import LiveryJSON
import SkinModel
import SkinServing
import ZipReading

/// The admin API's errors: how the refusals of changes and reads (`ChangeError`: store, archive, upload,
/// validation, release and state refusals) and auth failures become HTTP answers.
///
/// Every 4xx carries `details.field` (what to fix: a path segment such as `id`, a body key such as `rollout`,
/// a header such as `If-Match`, a query parameter, or `body`) and `details.reason`.
extension APIError {
    /// 401 with the `WWW-Authenticate` challenge of RFC 6750.
    static func unauthorized(reason: String) -> APIError {
        let challenge =
            reason == "missing" ? #"Bearer realm="livery""# : #"Bearer realm="livery", error="invalid_token""#
        let message =
            reason == "missing"
            ? "This endpoint needs an admin token: send Authorization: Bearer <token>."
            : "The admin token is not valid (it may have been revoked)."
        return APIError(
            .unauthorized, code: "unauthorized", message: message,
            details: fields("Authorization", reason == "missing" ? "missing" : "\(reason) token"),
            headers: HTTPHeaders([("WWW-Authenticate", challenge)]))
    }

    /// 403: the token's role does not allow the method.
    static func forbidden(role: AdminRole, method: String) -> APIError {
        APIError(
            .forbidden, code: "forbidden",
            message: "A \(role.rawValue) token may only read (GET); \(method) needs an editor token.",
            details: fields("Authorization", "role \(role.rawValue) may not \(method)"))
    }

    /// 503 while the catalog is still loading, with `Retry-After: 1` (and, like every error, `no-store`): polls,
    /// package downloads and admin requests all get it, so no client is told "no skin" for want of a catalog.
    static let notReady = APIError(
        .serviceUnavailable, code: "not_ready", message: "The server is still loading its catalog; retry in a moment.",
        details: fields("server", "loading"), headers: HTTPHeaders([("Retry-After", "1")]))

    /// 400 (or `status`) naming one input and why it is wrong.
    static func invalidField(
        _ field: String, _ reason: String, code: String = "invalid_field", status: HTTPStatus = .badRequest
    ) -> APIError {
        APIError(status, code: code, message: "\(field): \(reason)", details: fields(field, reason))
    }

    /// 400 for a request body that is not strict JSON.
    static func invalidJSON(_ error: JSONParseError) -> APIError {
        var details = fields("body", "not valid JSON: \(error.message)")
        details["line"] = .number(JSONNumber(error.line))
        details["column"] = .number(JSONNumber(error.column))
        return APIError(
            .badRequest, code: "invalid_json", message: "The request body is not valid JSON: \(error).",
            details: details)
    }

    /// The answer for a refused or failed change (or a read of the state): the one mapping of `ChangeError`.
    static func change(_ error: ChangeError) -> APIError {
        switch error {
        case .invalidField(let field, let reason):
            return invalidField(field, reason)
        case .upload(let error):
            return upload(error)
        case .invalidSkin(let report):
            return invalidSkin(report)
        case .invalidRelease(let field, let reason):
            return invalidField(field, reason, code: "invalid_release", status: .unprocessableContent)
        case .invalidReleasePlan(let issues):
            return invalidRelease(issues)
        case .windowInPast(let endsAt):
            return invalidField(
                "endsAt", "the window ended at \(endsAt), before now: a release must end in the future",
                code: "invalid_release", status: .unprocessableContent)
        case .unknownSkin(let id, let field):
            return APIError(
                .notFound, code: "skin_not_found", message: "There is no skin \"\(id)\".",
                details: fields(field, "no skin with this id"))
        case .unknownVersion(let id, let version, let field):
            return versionNotFound(.notFound, skinID: id, version: version, field: field, hint: "")
        case .unknownReleaseVersion(let id, let version):
            // A release names the version in its body: 422, with where to find the versions.
            return versionNotFound(
                .unprocessableContent, skinID: id, version: version, field: "version",
                hint: "; GET /admin/v1/skins/\(id)/versions lists them")
        case .unknownFile(_, let version, let path, let field):
            return APIError(
                .notFound, code: "file_not_found", message: "Version \(version) has no file \"\(path)\".",
                details: fields(field, "no such file in this version"))
        case .notReleased(let id, let fix):
            return APIError(
                .conflict, code: "not_released", message: "Skin \"\(id)\" is not released; \(fix).",
                details: fields("id", "not released"))
        case .noPreviousVersion(let id, let released):
            return APIError(
                .conflict, code: "no_previous_version",
                message: "Version \(released) is the oldest version of \"\(id)\"; there is nothing to roll back to.",
                details: fields("version", "no version below \(released)"))
        case .appMismatch(let id, let stored, let uploaded):
            return appMismatch(skinID: id, stored: stored, uploaded: uploaded)
        case .unknownApp(let app, let field, let known):
            return unknownApp(app, field: field, known: known)
        case .skinReleased(let id, let version, let field):
            return APIError(
                .conflict, code: "skin_released",
                message:
                    "Skin \"\(id)\" is released (version \(version)); stop it first with DELETE …/release, or pass ?force=true.",
                details: fields(field, "the skin is released; force=true deletes it anyway"))
        case .preconditionFailed(let current):
            return preconditionFailed(current: current)
        case .versionNotServable(let report):
            var details = fields("version", "the stored version does not pass validation with the current limits")
            details["report"] = report.jsonValue
            return APIError(
                .unprocessableContent, code: "version_not_servable",
                message: "This version cannot be released: it does not pass validation any more.", details: details)
        case .versionDamaged(let id, let version):
            return versionDamaged(skinID: id, version: version)
        case .storedFileCorrupt(let path):
            return storedFileCorrupt(path: path)
        case .shuttingDown:
            return APIError(
                .serviceUnavailable, code: "shutting_down", message: "The server is shutting down.",
                details: [("field", "server"), ("reason", "shutting down")])
        case .storeUnavailable(let field):
            return APIError(
                .serviceUnavailable, code: "store_unavailable",
                message: "The store is unreachable; nothing was changed. Retry later.",
                details: fields(field, "unreachable"), headers: HTTPHeaders([("Retry-After", "5")]))
        case .serverBusy:
            return serverBusy
        case .storage(let fault, let dataDirectory):
            return storage(fault, dataDirectory: dataDirectory)
        case .internalError:
            return internalError
        }
    }

    /// 422 with the skin validator's full report in `details.report`.
    static func invalidSkin(_ report: ValidationReport) -> APIError {
        var details = fields("body", "the skin has \(report.errors.count) error(s); see report.issues")
        details["report"] = report.jsonValue
        return APIError(
            .unprocessableContent, code: "invalid_skin",
            message: "The skin is invalid: \(report.errors.first?.message ?? "see the report")", details: details)
    }

    /// 422 for a release document with errors: `field` is the first error's JSON pointer, `issues` all of them.
    static func invalidRelease(_ issues: [ValidationIssue]) -> APIError {
        let errors = issues.filter { $0.severity == .error }
        let first = errors.first
        let field = first.map { $0.pointer.hasPrefix("/") ? String($0.pointer.dropFirst()) : $0.pointer } ?? "body"
        var details = fields(field.isEmpty ? "body" : field, first?.message ?? "invalid release")
        details["issues"] = .array(issues.map(\.jsonValue))
        return APIError(
            .unprocessableContent, code: "invalid_release", message: first?.message ?? "The release is invalid.",
            details: details)
    }

    /// The answer for an upload the archive reader or the upload reader refused.
    static func upload(_ error: UploadError) -> APIError {
        switch error {
        case .empty:
            return APIError(
                .badRequest, code: "empty_archive", message: "The archive holds no files.",
                details: fields("body", "no files besides archiver junk (__MACOSX/, .DS_Store)"))
        case .archive(let zip):
            let status: HTTPStatus
            switch zip {
            case .tooManyEntries, .entryTooLarge, .archiveTooLarge, .compressionRatioExceeded: status = .contentTooLarge
            case .outOfMemory: status = .serviceUnavailable
            default: status = .badRequest
            }
            var details = fields("body", zip.message)
            if let name = zip.entryName { details["entry"] = .string(name) }
            details["archiveError"] = .string(zip.code)
            return APIError(status, code: uploadCode(zip), message: zip.message, details: details)
        }
    }

    /// The error code of a refused archive: the reader's code, except that `unsafe_path` is told apart into
    /// `absolute_path` (a leading `/` or a drive letter) and `zip_slip` (`..` segments or backslashes), which
    /// operators fix differently.
    static func uploadCode(_ error: ZipReadError) -> String {
        guard case .unsafePath(let name) = error else { return error.code }
        let bytes = Array(name.utf8)
        let hasDrive =
            bytes.count >= 2 && bytes[1] == UInt8(ascii: ":")
            && (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[0] & 0xDF)
        return name.hasPrefix("/") || hasDrive ? "absolute_path" : "zip_slip"
    }

    /// `version_not_found` with `status`: the skin has no version `version`.
    static func versionNotFound(
        _ status: HTTPStatus, skinID: String, version: Int, field: String, hint: String
    ) -> APIError {
        APIError(
            status, code: "version_not_found", message: "Skin \"\(skinID)\" has no version \(version).",
            details: fields(field, "no version \(version)" + hint))
    }

    /// 500 `version_damaged`: the version was found damaged in the store (its metadata or its rows do not match
    /// what was stored) and is neither served nor read; the log and `/readyz` say why. Other versions work.
    static func versionDamaged(skinID: String, version: Int) -> APIError {
        APIError(
            .internalServerError, code: "version_damaged",
            message:
                "Version \(version) of skin \"\(skinID)\" is damaged in the store and is neither served nor read; an operator must restore it (GET /readyz and the log say why).",
            details: fields("version", "damaged in the store"))
    }

    /// 500: a stored file does not hold the bytes its content address names (damaged on disk); the log names the
    /// blob, the client the file it asked for.
    static func storedFileCorrupt(path: String) -> APIError {
        APIError(
            .internalServerError, code: "stored_file_corrupt",
            message:
                "The stored file \"\(path)\" was damaged on disk and is not served; an operator must restore it (the log names the blob).",
            details: fields("path", "does not match its content address"))
    }

    /// 503 `server_busy` with `Retry-After: 1`: an admin write failed because the process (or the system) was out
    /// of file descriptors for a moment (`EMFILE`, `ENFILE`), not because of the request or the data folder; the
    /// same answer a download gets then. Nothing was changed, so the client retries the same request.
    static let serverBusy = APIError(
        .serviceUnavailable, code: "server_busy",
        message: "The server is out of file descriptors for a moment; retry shortly.",
        details: fields("server", "out of file descriptors"), headers: HTTPHeaders([("Retry-After", "1")]))

    /// 507 `insufficient_storage` or 503 `data_dir_not_writable`: an admin write failed because of the data folder
    /// (named, as configured), not the request. Both say when to retry; polls are still served meanwhile.
    static func storage(_ fault: StorageFault, dataDirectory: String) -> APIError {
        let headers = HTTPHeaders([("Retry-After", "30")])
        switch fault {
        case .full:
            return APIError(
                .insufficientStorage, code: "insufficient_storage",
                message: "The data folder \(dataDirectory) is full; free space on its volume and retry.",
                details: fields("data-dir", "no space left on the data folder's volume"), headers: headers)
        case .notWritable:
            return APIError(
                .serviceUnavailable, code: "data_dir_not_writable",
                message:
                    "The data folder \(dataDirectory) cannot be written (read-only volume or permissions); fix it and retry.",
                details: fields("data-dir", "not writable"), headers: headers)
        }
    }

    /// 404 `unknown_app`: a kill switch or preview names an app no stored skin belongs to (a typo at 2 a.m.).
    /// Names the nearest known app; `force=true` acts anyway (for an app with no skins yet).
    static func unknownApp(_ app: String, field: String, known: Set<String>) -> APIError {
        let nearest = nearestMatch(to: app, among: known.sorted())
        let hint = nearest.map { "did you mean \"\($0)\"? " } ?? "no skin is stored for any app yet; "
        var details = fields(
            field, "no stored skin belongs to app \"\(app)\"; \(hint)pass force=true for an app with no skins yet")
        details["value"] = .string(app)
        if let nearest { details["closest"] = .string(nearest) }
        return APIError(
            .notFound, code: "unknown_app",
            message: "No skin is stored for app \"\(app)\""
                + (nearest.map { "; the closest known app is \"\($0)\"." } ?? "."),
            details: details)
    }

    /// 409 `app_mismatch`: an upload's skin id exists under another app; `force=true` moves it.
    static func appMismatch(skinID: String, stored: String, uploaded: String) -> APIError {
        var details = fields(
            "app",
            "skin \"\(skinID)\" belongs to app \"\(stored)\", the upload says \"\(uploaded)\"; fix skin.json's app or its id, or pass force=true to move it"
        )
        details["storedApp"] = .string(stored)
        details["value"] = .string(uploaded)
        return APIError(
            .conflict, code: "app_mismatch",
            message: "Skin \"\(skinID)\" exists under app \"\(stored)\"; this upload is for app \"\(uploaded)\".",
            details: details)
    }

    /// 412: `If-Match` names another revision than the current one, which the `ETag` header carries.
    static func preconditionFailed(current: Int) -> APIError {
        let tag = AdminETag.tag(current)
        var details = fields("If-Match", "stale: the current ETag is \(tag)")
        details["currentETag"] = .string(tag)
        return APIError(
            .preconditionFailed, code: "precondition_failed",
            message: "Someone changed this since you read it; read it again and retry with the new ETag.",
            details: details, headers: HTTPHeaders([("ETag", tag)]))
    }

    /// `{"field": field, "reason": reason}`.
    static func fields(_ field: String, _ reason: String) -> JSONObject {
        var object = JSONObject()
        object["field"] = .string(field)
        object["reason"] = .string(reason)
        return object
    }
}
