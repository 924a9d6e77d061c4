import LiveryHTTP
import SkinServing

/// Builds responses for package downloads: whole files, single ranges, conditional requests.
enum PackageResponder {
    static func respond(to request: HTTPRequest, record: PackageRecord) -> HTTPResponse {
        let etag = "\"\(record.sha256)\""
        var headers = HTTPHeaders()
        headers.reserveCapacity(5)
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Cache-Control", value: "public, max-age=31536000, immutable")
        // A 304 describes no content, so it carries no Content-Type.
        if let tags = request.headers["If-None-Match"], EntityTag.matches(tags, etag) {
            return HTTPResponse(status: .notModified, headers: headers, body: .empty)
        }
        headers.add(name: "Content-Type", value: "application/zip")
        headers.add(name: "Accept-Ranges", value: "bytes")
        var rangeHeader = request.headers["Range"]
        if let ifRange = request.headers["If-Range"], !EntityTag.ifRangeMatches(ifRange, etag) {
            rangeHeader = nil
        }
        switch ByteRange.evaluate(rangeHeader, length: record.size) {
        case .full:
            return HTTPResponse(
                status: .ok, headers: headers, body: .immutableFile(path: record.path, offset: 0, length: record.size))
        case .partial(let range):
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
