import LiveryHTTP
import SkinServing
import Synchronization
import SystemCalls

/// What every download of one package sends, made once per package: its entity tag and its header fields encoded
/// for reuse (`HTTPHeaders.encodedForReuse()`), as poll answers have theirs (`AnswerHeaders`), so a download copies
/// prebuilt bytes instead of building, checking and encoding the same four fields every time.
final class PreparedPackage: Sendable {
    let record: PackageRecord
    /// `"<sha256>"`: the package's strong entity tag.
    let etag: String
    /// `ETag`, `Cache-Control`, `Content-Type` and `Accept-Ranges`, for a 200 or a 206.
    let ok: HTTPHeaders
    /// `ETag` and `Cache-Control`, for a 304 (which describes no content, so carries no `Content-Type`).
    let notModified: HTTPHeaders
    /// The package's content when it is sent from memory: exactly the bytes `record` describes (size and SHA-256
    /// checked when read, `PackageCache.verifiedContent(of:limit:)`); nil sends the file.
    let bytes: [UInt8]?
    /// The file `bytes` were read from, held open so downloads check it is still in place with one `fstat`
    /// (`PackageCache.isReady(_:held:)`; one per event-loop turn, see `checkedTurn`); present exactly when `bytes`
    /// is, so held descriptors stay within the in-memory budget.
    let file: HeldFile?
    /// On an event loop's replica (`ClientAPI`), the turn of that loop (`HTTPRequest.eventLoopTurn`) in which a
    /// download last found `file` in place; 0 for none. The downloads the loop reads in one turn share that one
    /// `fstat`. Read and written only by the replica's loop (relaxed: no other thread touches it).
    let checkedTurn = Atomic<UInt64>(0)

    init(_ record: PackageRecord, bytes: [UInt8]? = nil, file: HeldFile? = nil) {
        self.record = record
        self.bytes = bytes
        self.file = file
        etag = "\"\(record.sha256)\""
        var headers = HTTPHeaders()
        headers.reserveCapacity(5)
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Cache-Control", value: "public, max-age=31536000, immutable")
        notModified = headers.encodedForReuse()
        headers.add(name: "Content-Type", value: "application/zip")
        headers.add(name: "Accept-Ranges", value: "bytes")
        ok = headers.encodedForReuse()
    }
}

/// Builds responses for package downloads: whole files, single ranges, conditional requests.
enum PackageResponder {
    /// The answer to a download of `package` whose request has the header fields `header` gives (the first value
    /// of a name, compared without regard to case, as `HTTPHeaders` and `HTTPRequestView.header(_:)` answer).
    static func respond(to header: (String) -> String?, package: PreparedPackage) -> HTTPResponse {
        let record = package.record
        let etag = package.etag
        if let tags = header("If-None-Match"), EntityTag.matches(tags, etag) {
            return HTTPResponse(status: .notModified, headers: package.notModified, body: .empty)
        }
        var rangeHeader = header("Range")
        if rangeHeader != nil, let ifRange = header("If-Range"), !EntityTag.ifRangeMatches(ifRange, etag) {
            rangeHeader = nil
        }
        switch ByteRange.evaluate(rangeHeader, length: record.size) {
        case .full:
            if let bytes = package.bytes { return HTTPResponse(status: .ok, headers: package.ok, body: .bytes(bytes)) }
            return HTTPResponse(
                status: .ok, headers: package.ok,
                body: .immutableFile(path: record.path, offset: 0, length: record.size))
        case .partial(let range):
            var headers = package.ok
            headers.add(name: "Content-Range", value: "bytes \(range.first)-\(range.last)/\(record.size)")
            return HTTPResponse(
                status: .partialContent, headers: headers,
                body: .immutableFile(path: record.path, offset: range.first, length: range.length))
        case .unsatisfiable:
            var error = APIError(
                .rangeNotSatisfiable, code: "range_not_satisfiable",
                message: "the requested range is outside the package's \(record.size) bytes"
            ).response
            error.headers.add(name: "Content-Range", value: "bytes */\(record.size)")
            return error
        }
    }
}
