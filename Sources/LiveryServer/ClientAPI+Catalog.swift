import Foundation
import LiveryCrypto
import LiveryHTTP
import LiveryProtocol
import SkinModel
import SkinServing

/// `GET /api/v1/catalog?app=&platform=`: every skin and theme of an app and platform that can apply within the
/// catalog horizon, the same bytes for every device (other parameters are ignored), so a CDN can serve one copy to
/// every phone and each phone decides on its own (docs/PROTOCOL.md).
extension ClientAPI {
    /// Answers a catalog request from the published snapshot's documents (`CatalogDocuments`, assembled and signed
    /// once per step): ETag and 304; `Cache-Control: public, max-age` bounded by the next window boundary within
    /// the horizon, by `expiresAt` and by `Configuration.maxAge`; when signed, `stale-while-revalidate` and
    /// `stale-if-error` for the seconds from the end of max-age to `expiresAt` (never negative) and
    /// `Livery-Signature`. 400 `invalid_parameter` for a missing or bad `app` or `platform`, 404 `unknown_app` for
    /// an app no released skin belongs to, 503 `not_ready` before the first catalog; errors are `no-store`.
    public func catalog(_ request: HTTPRequest) -> HTTPResponse {
        let app = request.query["app"]
        guard let app, !app.isEmpty else {
            return APIError.invalidParameter(InvalidParameter("app", "is required")).response
        }
        guard SkinRequest.isAppID(app) else {
            return APIError.invalidParameter(
                InvalidParameter("app", "must be 1–64 characters of letters, digits, '.', '_' or '-'", value: app)
            ).response
        }
        guard let platformText = request.query["platform"] else {
            return APIError.invalidParameter(InvalidParameter("platform", "is required")).response
        }
        guard let platform = Array(platformText.utf8).withUnsafeBufferPointer(SkinRequest.platform(in:)) else {
            return APIError.invalidParameter(
                InvalidParameter(
                    "platform", "must be one of ios, android, harmony, macos (in any case)", value: platformText)
            ).response
        }
        let now = clockNow()
        let current = publishedSnapshot()
        guard current.loaded else { return APIError.notReady.response }
        let document: CatalogDocumentAnswer
        do {
            guard let found = try current.documents.document(app: app, platform: platform, at: now, signer: signer)
            else {
                return APIError.unknownCatalogApp(app).response
            }
            document = found
        } catch {
            logger.error("catalog not signed: OpenSSL failed; answering 503")
            return APIError.signingFailed.response
        }
        return Self.catalogResponse(request, document, maxAge: current.documents.maxAge, now: now)
    }

    /// The response for `document` at `now`: 304 without a body when `If-None-Match` matches.
    static func catalogResponse(
        _ request: HTTPRequest, _ document: CatalogDocumentAnswer, maxAge: Int, now: Date
    )
        -> HTTPResponse
    {
        func seconds(until instant: Date) -> Int { max(0, Int(instant.timeIntervalSince(now).rounded(.down))) }
        var age = maxAge
        if let boundary = document.nextBoundary(after: now) { age = min(age, seconds(until: boundary)) }
        var cacheControl = "public, max-age=\(age)"
        if let expiresAt = document.expiresAt {
            age = min(age, seconds(until: expiresAt))
            let stale = max(0, seconds(until: expiresAt) - age)
            cacheControl = "public, max-age=\(age), stale-while-revalidate=\(stale), stale-if-error=\(stale)"
        }
        var headers = HTTPHeaders()
        let notModified = request.headers["If-None-Match"].map { EntityTag.matches($0, document.etag) } ?? false
        if !notModified { headers.add(name: "Content-Type", value: "application/json") }
        headers.add(name: "ETag", value: document.etag)
        headers.add(name: "Cache-Control", value: cacheControl)
        if notModified { return HTTPResponse(status: .notModified, headers: headers, body: .empty) }
        if let signature = document.signature { headers.add(name: SignatureHeader.name, value: signature) }
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(document.body))
    }
}

extension APIError {
    /// 404 `unknown_app` for a catalog of an app no released skin or theme belongs to (`no-store`, as every
    /// error): LiveryKit applies no skin and asks again no sooner than an hour later.
    static func unknownCatalogApp(_ app: String) -> APIError {
        var details = fields("app", "no released skin belongs to this app")
        details["value"] = .string(String(app.prefix(64)))
        return APIError(
            .notFound, code: "unknown_app", message: "No skin is released for app \"\(app)\".", details: details)
    }
}
