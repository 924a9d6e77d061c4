import LiveryCrypto
import LiveryHTTP
import LiveryProtocol
import SkinServing

/// The header fields of a poll answer (`SkinAnswer`), encoded once per published catalog for each precomputed
/// answer, so a poll writes prebuilt bytes.
struct AnswerHeaders: Sendable {
    /// `Content-Type`, `ETag` and `Cache-Control` with the longest max-age (no schedule boundary comes sooner),
    /// encoded once (`HTTPHeaders.encodedForReuse()`).
    let ok: HTTPHeaders
    /// `ok` without `Content-Type`, for a 304 (which has no content to describe).
    let notModified: HTTPHeaders

    /// - Parameter signature: the `Livery-Signature` value of a signed answer, sent with the body (not on a 304).
    init(_ answer: SkinAnswer, maxAge: Int, signature: String? = nil) {
        self.init(etag: answer.etag, maxAge: maxAge, signature: signature)
    }

    /// The header fields of an answer (a poll's or a theme list's) tagged `etag`.
    init(etag: String, maxAge: Int, signature: String? = nil) {
        var ok = Self.fields(etag: etag, maxAge: maxAge)
        if let signature { ok.add(name: SignatureHeader.name, value: signature) }
        self.ok = ok.encodedForReuse()
        notModified = Self.fields(etag: etag, maxAge: maxAge, notModified: true).encodedForReuse()
    }

    /// The header fields of an answer tagged `etag` that may be cached for `maxAge` seconds; without
    /// `Content-Type` when `notModified` (a 304).
    static func fields(etag: String, maxAge: Int, notModified: Bool = false) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(3)
        if !notModified { headers.add(name: "Content-Type", value: "application/json") }
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Cache-Control", value: "public, max-age=\(maxAge)")
        return headers
    }
}
