import Foundation
import LiveryCatalog
import LiveryJSON

/// A verified catalog as kept in `catalog.json`: the exact body the server sent (and signed), its entity tag for
/// `If-None-Match`, and the document parsed from it. Written whole (write, fsync, rename), so a crash leaves the old
/// catalog or the new one.
///
/// Once stored, a catalog decides offline until its `horizonEndsAt`, whatever its `expiresAt` (checked when it
/// arrived, as a replay guard for answers from the network).
struct StoredCatalog: Sendable {
    let body: [UInt8]
    let etag: String?
    let document: CatalogDocument

    /// `{"version":1,"etag":…,"body":"<the document's text>"}`: the body is valid UTF-8 (the parser checked it), so
    /// the string gives back the exact bytes.
    func serialized() -> [UInt8] {
        var members: [JSONObject.Member] = [.init(key: "version", value: 1)]
        if let etag { members.append(.init(key: "etag", value: .string(etag))) }
        members.append(.init(key: "body", value: .string(String(decoding: body, as: UTF8.self))))
        return JSONValue.object(JSONObject(members)).serialized(.compact)
    }

    /// Reads `catalog.json`; nil when it is unreadable or holds the catalog of another app or platform (the SDK then
    /// asks the server again).
    static func read(_ bytes: [UInt8], app: String, platform: String) -> StoredCatalog? {
        guard let object = (try? JSONValue.parse(bytes))?.objectValue, object["version"]?.intValue == 1,
            let text = object["body"]?.stringValue
        else { return nil }
        let body = Array(text.utf8)
        guard let document = try? CatalogDocument.parse(body), document.app == app, document.platform == platform else {
            return nil
        }
        return StoredCatalog(body: body, etag: object["etag"]?.stringValue, document: document)
    }
}
