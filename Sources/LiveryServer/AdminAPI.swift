import Foundation
import LiveryHTTP
import LiveryJSON
import Logging
import SkinModel
import SkinServing
import SystemCalls
import ZipReading

/// The authenticated admin API under `/admin/v1`: uploads, versions, releases, kill switches, preview and audit,
/// on the durable store, through the serving core's use cases (`Changes` for writes, `Queries` for reads).
///
/// ## What a 2xx means
/// Every change is a use case of the serving core (`Changes`), decided on the store's current state inside one
/// store change (`SkinStore.change`: the file store's writer lock, or the PostgreSQL transaction that locks the
/// revision row, the state reloaded there when another replica committed): existence, `If-Match`, merges, "the
/// released version stays", rollbacks and the apps known are pure rules (`ChangeRules`) run there, so a write sent to any replica after an acknowledged
/// change is decided on that change and never undoes it. A change that serves a version (release, rollback,
/// rollout change) first builds that version's packages outside the store change, then decides again inside it
/// and commits only if the state still means that version (else it builds the version it now means and tries
/// again). After the commit (durable: it survives `kill -9`) the client catalog is rebuilt from the new state and
/// published; a kill switch is applied to the catalog already served at once. So a 2xx means the change is
/// stored *and* this replica already serves it; a failure before the commit changes nothing; a package that
/// cannot be built fails the request before anything is committed.
///
/// No write waits for another's package build: there is no write lock in the API, only the store's short one.
/// Reads (`GET`, `Queries`) first learn the store's revision (`SkinStore.currentSnapshot`) and answer from a state
/// at least that new. Store calls run off the cooperative pool, uploads are inflated and validated on threads of
/// their own (at most `Configuration.maxConcurrentUploads` at once); nothing blocking runs on the event loops.
///
/// ## Routes
/// | method | path | role |
/// |---|---|---|
/// | POST | /skins (zip body) | editor |
/// | GET | /skins, /skins/{id}, /skins/{id}/versions, /skins/{id}/versions/{n} | viewer |
/// | GET | /skins/{id}/health (phones' reports per version) | viewer |
/// | GET | /skins/{id}/versions/{n}/config.json, /skins/{id}/versions/{n}/files/{path} | viewer |
/// | PUT, PATCH, DELETE | /skins/{id}/release | editor |
/// | POST | /skins/{id}/rollback | editor |
/// | DELETE | /skins/{id} (`?force=true`) | editor |
/// | GET, PUT | /killswitch | viewer / editor |
/// | GET | /preview, /audit | viewer |
/// | GET | /whoami | viewer |
public final class AdminAPI: Sendable {
    /// Settings of the admin API. Each property states its default.
    public struct Configuration: Sendable {
        /// The tokens file (`NAME ROLE SHA256HEX` lines; see `TokenFile`). nil disables the admin API: its routes
        /// are not registered (404) and startup logs so. Default nil.
        public var tokensFile: String?
        /// Largest upload body, in bytes; larger bodies get 413 before they are read. Default 64 MiB.
        public var uploadLimit: Int = 64 << 20
        /// Least time between two checks of the tokens file for changes. Default 1 s.
        public var tokenCheckInterval: Duration = .seconds(1)
        /// Bounds for reading uploaded archives (entries, sizes, compression ratio). Default: 10,000 entries,
        /// 16 MiB per entry and 128 MiB in total (the skin validator's defaults), ratio 100:1.
        public var archiveLimits = ZipArchiveReader.Limits(
            maxEntries: 10_000, maxTotalUncompressed: 128 << 20, maxEntryUncompressed: 16 << 20)
        /// Most uploads inflated and validated at once (each holds its archive and files in memory). Default 2.
        public var maxConcurrentUploads: Int = 2
        /// Most audit entries one `GET /audit` returns. Default 1,000 (the default page is 100).
        public var maxAuditPage: Int = 1_000

        public init() {}
    }

    /// The admin routes' prefix.
    public static let prefix = "/admin/v1"

    public let configuration: Configuration
    let client: ClientAPI
    let tokens: TokenStore
    let logger: Logger
    let clock: @Sendable () -> Date
    /// Every write's use case: decided, committed, published, counted (`livery_admin_changes_total{action}`) and
    /// logged there.
    let changes: Changes
    /// Every read's query.
    let queries: Queries
    /// The data folder, as configured: named in the answers to writes it cannot take (full, read-only).
    let dataDirectory: String
    /// The data folder's fault as the background write check last found it (nil: it takes writes).
    let writeFault: @Sendable () -> StorageFault?

    /// - Parameter changes: the use cases of every write, made with this configuration's `archiveLimits` and
    ///   `maxConcurrentUploads`; the reads' queries go through it too.
    init(
        configuration: Configuration, changes: Changes, client: ClientAPI, tokens: TokenStore, dataDirectory: String,
        logger: Logger, clock: @escaping @Sendable () -> Date,
        writeFault: @escaping @Sendable () -> StorageFault? = { nil }
    ) {
        self.configuration = configuration
        self.writeFault = writeFault
        self.dataDirectory = dataDirectory
        self.client = client
        self.tokens = tokens
        self.logger = logger
        self.clock = clock
        self.changes = changes
        self.queries = Queries(changes: changes)
    }

    /// Registers every admin route under `/admin/v1`, behind `AdminAuth`.
    ///
    /// - Parameter isReady: false until the catalog is loaded; admin requests get 503 meanwhile.
    func register(on router: Router, isReady: @escaping @Sendable () -> Bool) {
        let auth = AdminAuth(tokens: tokens, logger: logger, isReady: isReady)
        let admin = router.group(Self.prefix, middleware: [auth.middleware, writeCheckMiddleware])
        admin.on(
            .post, "/skins", bodyLimit: configuration.uploadLimit, .async { [self] request in await upload(request) })
        admin.on(
            .get, "/skins",
            .async { [self] request in await respond { () async throws(APIError) in try await listSkins(request) } })
        admin.on(
            .get, "/skins/:id",
            .async { [self] request in await respond { () async throws(APIError) in try await skin(request) } })
        admin.on(.delete, "/skins/:id", .async { [self] request in await deleteSkin(request) })
        admin.on(
            .get, "/skins/:id/health",
            .async { [self] request in
                await respond { () async throws(APIError) in try await health(request) }
            })
        admin.on(
            .get, "/skins/:id/versions",
            .async { [self] request in
                await respond { () async throws(APIError) in try await versions(request) }
            })
        admin.on(
            .get, "/skins/:id/versions/:n",
            .async { [self] request in
                await respond { () async throws(APIError) in try await version(request) }
            })
        admin.on(
            .get, "/skins/:id/versions/:n/config.json",
            .async { [self] request in
                await respond { () async throws(APIError) in try await file(request, path: "config.json") }
            })
        // File paths contain "/": one route per depth (a %2F-encoded path also works at depth 1).
        for depth in 1...ZipArchiveReader.Limits().maxPathDepth {
            let names = (1...depth).map { "p\($0)" }
            let pattern = "/skins/:id/versions/:n/files/" + names.map { ":" + $0 }.joined(separator: "/")
            admin.on(
                .get, pattern,
                .async { [self] request in
                    let path = names.compactMap { request.pathParameters[$0] }.joined(separator: "/")
                    return await respond { () async throws(APIError) in try await file(request, path: path) }
                })
        }
        admin.on(.put, "/skins/:id/release", .async { [self] request in await putRelease(request) })
        admin.on(.patch, "/skins/:id/release", .async { [self] request in await patchRelease(request) })
        admin.on(.delete, "/skins/:id/release", .async { [self] request in await deleteRelease(request) })
        admin.on(.post, "/skins/:id/rollback", .async { [self] request in await rollback(request) })
        admin.on(
            .get, "/killswitch",
            .async { [self] request in await respond { () async throws(APIError) in try await killSwitch(request) } })
        admin.on(.put, "/killswitch", .async { [self] request in await putKillSwitch(request) })
        admin.on(.get, "/preview", .sync { [self] request throws(APIError) in try preview(request) })
        admin.on(.get, "/audit", .async { [self] request throws(APIError) in try await audit(request) })
        admin.on(.get, "/whoami", .sync { request in Self.whoami(request) })
    }

    /// Refuses every admin write (any method but GET and HEAD) while the data folder's last write check failed:
    /// 503 `data_dir_not_writable` (or 507 when full) with `Retry-After`, before the body is read and before
    /// anything is stored, instead of a write failing halfway.
    var writeCheckMiddleware: HTTPMiddleware {
        let writeFault = writeFault
        let dataDirectory = dataDirectory
        let check: @Sendable (HTTPRequest) -> HTTPResponse? = { request in
            guard request.method != .get, request.method != .head, let fault = writeFault() else { return nil }
            return APIError.storage(fault, dataDirectory: dataDirectory).response
        }
        return HTTPMiddleware(
            headCheck: HTTPHeadCheck(check),
            before: { request in
                check(request).map(HTTPMiddleware.Decision.respond) ?? .forward(request)
            })
    }

    // MARK: - Answers

    /// A JSON answer with `Cache-Control: no-store` and, when given, an `ETag`.
    static func json(_ value: JSONValue, status: HTTPStatus = .ok, etag: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        if let etag { headers.add(name: "ETag", value: etag) }
        return HTTPResponse(status: status, headers: headers, body: .bytes(value.serialized(.compact)))
    }

    /// Runs a write, turning a thrown `APIError` into its response. A bare 500 whose cause was not kept (a package build that
    /// could not write) is told apart when the process is out of file descriptors (503 `server_busy`) or the data
    /// folder is full or not writable (507, 503).
    func respond(_ body: () async throws(APIError) -> HTTPResponse) async -> HTTPResponse {
        // Out of descriptors a moment ago: the reserve is with the runtime, so a write does not take one.
        if DescriptorReserve.shared.isReleased { return APIError.serverBusy.response }
        do {
            return try await body()
        } catch {
            if error.code == APIError.internalError.code {
                if Self.outOfDescriptors() { return APIError.serverBusy.response }
                if let fault = StorageFault.probe(dataDirectory) {
                    return APIError.storage(fault, dataDirectory: dataDirectory).response
                }
            }
            return error.response
        }
    }

    /// Whether `errno` `code` means the process or the system has no file descriptor left.
    static func isDescriptorExhaustion(_ code: Int32) -> Bool { code == EMFILE || code == ENFILE }

    /// Whether the process cannot open a file right now for want of descriptors: opens `/dev/null` and closes it.
    static func outOfDescriptors() -> Bool {
        do throws(SystemCallError) {
            _ = try SystemFile.open("/dev/null", O_RDONLY)
            return false
        } catch {
            return isDescriptorExhaustion(error.errno)
        }
    }

    /// Runs a use case of `Changes`, mapping its refusal to HTTP (`APIError.change`).
    func perform<Value>(_ body: () async throws(ChangeError) -> Value) async throws(APIError) -> Value {
        do throws(ChangeError) {
            return try await body()
        } catch {
            throw APIError.change(error)
        }
    }

    /// Who sends `request`, for the audit log and the log.
    func caller(_ request: HTTPRequest) -> Changes.Caller {
        Changes.Caller(actor: AdminAuth.actor(of: request), requestID: request.requestID)
    }

    // MARK: - Request parts

    /// The `:id` path segment, checked as a skin id (404 when it cannot name a skin).
    static func skinID(_ request: HTTPRequest) throws(APIError) -> String {
        let id = request.pathParameters["id"] ?? ""
        guard SkinID.isValid(id) else { throw APIError.change(.unknownSkin(id, field: "id")) }
        return id
    }

    /// The `:n` path segment as a version number.
    static func versionNumber(_ request: HTTPRequest) throws(APIError) -> Int {
        guard let text = request.pathParameters["n"], let number = Int(text), number >= 1 else {
            throw APIError.invalidField("n", "a version number is a whole number from 1")
        }
        return number
    }

    /// The media types of a JSON body.
    static let jsonMediaTypes = ["application/json"]
    /// The media types of a `PATCH` body: JSON, or RFC 7396's JSON merge patch (which is what a `PATCH` here is).
    static let mergePatchMediaTypes = ["application/json", "application/merge-patch+json"]

    /// The request body as a JSON object (an empty body counts as `{}` when `allowEmpty`).
    ///
    /// - Parameter mediaTypes: the `Content-Type`s accepted (without parameters, lowercase); another one is 415
    ///   `unsupported_media_type` naming them. A body without `Content-Type` is read as JSON.
    static func jsonObject(
        _ request: HTTPRequest, allowEmpty: Bool = false, mediaTypes: [String] = jsonMediaTypes
    ) throws(APIError) -> JSONObject {
        if let type = request.headers["Content-Type"], !mediaTypes.contains(mediaType(type)) {
            throw APIError.invalidField(
                "Content-Type", "send the body as " + mediaTypes.joined(separator: " or "),
                code: "unsupported_media_type", status: .unsupportedMediaType)
        }
        if request.body.isEmpty && allowEmpty { return JSONObject() }
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(request.body)
        } catch {
            throw APIError.invalidJSON(error)
        }
        guard let object = value.objectValue else {
            throw APIError.invalidField("body", "must be a JSON object, not a \(value.kindName)")
        }
        return object
    }

    /// The `force` query parameter: `true`/`1`/empty (present) or `false`/`0`/absent.
    static func force(_ request: HTTPRequest) throws(APIError) -> Bool {
        switch request.query["force"] {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        default: throw APIError.invalidField("force", "must be true or false")
        }
    }

    /// Refuses (404 `unknown_app`) an `app` the server has never seen, unless `force`.
    func checkKnownApp(_ app: String, field: String, force: Bool) throws(APIError) {
        do throws(ChangeError) {
            try queries.checkKnownApp(app, field: field, force: force)
        } catch {
            throw APIError.change(error)
        }
    }

    /// The media type of a `Content-Type` value, lowercased, without parameters.
    static func mediaType(_ value: String) -> String {
        String(value.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
    }

    // MARK: - Reads

    /// `GET /skins`: every live skin, with its release.
    func listSkins(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let snapshot = try await perform { () async throws(ChangeError) in
            try await queries.state(requestID: request.requestID)
        }
        let skins = snapshot.skinIDs.compactMap { snapshot.skins[$0] }.map {
            JSONValue.object(AdminJSON.skinSummary($0))
        }
        return Self.json(["skins": .array(skins), "revision": AdminJSON.number(snapshot.revision)])
    }

    /// `GET /skins/{id}`: one skin with every version and its damaged versions (`damaged`: those the store found
    /// damaged, and released ones whose files were found damaged by the last catalog build); `ETag` is its
    /// revision (for `If-Match`).
    func skin(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let id = try Self.skinID(request)
        let skin = try await perform { () async throws(ChangeError) in
            try await queries.skin(id, requestID: request.requestID)
        }
        return Self.json(
            AdminJSON.skin(skin, damaged: queries.damagedVersions(of: skin), now: clock()),
            etag: AdminETag.tag(skin.revision))
    }

    /// `GET /skins/{id}/versions`.
    func versions(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let id = try Self.skinID(request)
        let skin = try await perform { () async throws(ChangeError) in
            try await queries.skin(id, requestID: request.requestID)
        }
        return Self.json(
            ["skinId": .string(skin.id), "versions": .array(skin.versions.map { AdminJSON.version($0) })],
            etag: AdminETag.tag(skin.revision))
    }

    /// `GET /skins/{id}/versions/{n}`: one version with its file list.
    func version(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let id = try Self.skinID(request)
        let skin = try await perform { () async throws(ChangeError) in
            try await queries.skin(id, requestID: request.requestID)
        }
        let number = try Self.versionNumber(request)
        let version = try await perform { () async throws(ChangeError) in try Queries.version(number, of: skin) }
        return Self.json(AdminJSON.version(version, files: true))
    }

    /// `GET /skins/{id}/versions/{n}/config.json` and `…/files/{path}`: the stored bytes, streamed from their blob
    /// once it has been checked against its content address (on a thread of its own): a damaged blob is refused
    /// with 500 `stored_file_corrupt` naming the file, never served as good.
    func file(_ request: HTTPRequest, path: String) async throws(APIError) -> HTTPResponse {
        let id = try Self.skinID(request)
        let skin = try await perform { () async throws(ChangeError) in
            try await queries.skin(id, requestID: request.requestID)
        }
        let number = try Self.versionNumber(request)
        let (blob, stored) = try await perform { () async throws(ChangeError) in
            try await queries.file(at: path, version: number, of: skin, requestID: request.requestID)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: Self.contentType(of: path))
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "ETag", value: "\"\(stored.sha256)\"")
        return HTTPResponse(
            status: .ok, headers: headers, body: .file(path: blob, offset: 0, length: UInt64(stored.size)))
    }

    /// The media type for a skin file by its extension.
    static func contentType(of path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        let ext = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
        switch ext {
        case "json": return "application/json"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        default: return "application/octet-stream"
        }
    }

    /// `GET /whoami`: the name and role of the token that sent the request, so a client (the console) knows what
    /// it may do without probing.
    static func whoami(_ request: HTTPRequest) -> HTTPResponse {
        json([
            "name": .string(AdminAuth.actor(of: request)),
            "role": AdminAuth.role(of: request).map { .string($0.rawValue) } ?? .null
        ])
    }

    /// `GET /killswitch`.
    func killSwitch(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let switches = try await perform { () async throws(ChangeError) in
            try await queries.state(requestID: request.requestID).killSwitches
        }
        return Self.json(AdminJSON.killSwitches(switches), etag: AdminETag.tag(switches.revision))
    }
}
