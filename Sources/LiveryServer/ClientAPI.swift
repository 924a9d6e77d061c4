import CoreMetrics
import Foundation
import LiveryCrypto
import LiveryHTTP
import LiveryProtocol
import Logging
import SkinModel
import SkinServing
import Synchronization
import SystemCalls

/// The public, unauthenticated API apps call: `GET /api/v1/skin`, `GET /api/v1/themes`, `GET /api/v1/catalog`,
/// `GET|HEAD /api/v1/packages/{sign}.zip` and `GET|HEAD /api/v1/previews/{sha256}.{ext}`.
///
/// The poll path reads one immutable catalog snapshot, resolves, and concatenates precomputed bytes: no disk I/O,
/// no JSON encoding, no thread hop. Catalog changes are published with `publish(_:)` and seen atomically.
public final class ClientAPI: Sendable {
    /// Settings of the client API.
    public struct Configuration: Sendable {
        /// Upper bound of `Cache-Control: max-age` on poll answers, in seconds. Default 60.
        public var maxAge: Int = 60
        /// How far ahead `next` looks, in seconds. Default 7 days.
        public var horizon: TimeInterval = SkinResolver.defaultHorizon
        /// Prefix of `packageUrl` (before `<sign>.zip`). Default `/api/v1/packages/`.
        public var packageURLPrefix: String = "/api/v1/packages/"
        /// How far past the start of its step a catalog document (`GET /api/v1/catalog`) looks, in seconds
        /// (`--catalog-horizon`). Default 1209600 (14 days).
        public var catalogHorizon: Int = CatalogDocuments.defaultHorizon
        /// Most entries a catalog document lists before it says `"complete": false`. Default 2000.
        public var catalogEntryLimit: Int = CatalogDocuments.defaultEntryLimit
        /// Prefix of a theme's `previewUrl` (before `<sha256>.<ext>`). Default `/api/v1/previews/`.
        public var previewURLPrefix: String = "/api/v1/previews/"
        /// The key that signs every poll answer and theme list (`--signing-key`); nil sends answers unsigned,
        /// without `expiresAt`. Default nil. See `AnswerSigner`.
        public var signingKey: (any BodySigner)?
        /// Packages of at most this many bytes are downloaded from memory (their bytes read once and checked
        /// against the package's recorded size and SHA-256, then sent after the head in one `sendmsg`) instead of
        /// with `sendfile`. Default 64 KiB; 0 sends every package from its file.
        public var inMemoryPackageLimit: Int = 64 * 1024
        /// The most bytes of package content held in memory for `inMemoryPackageLimit`, all packages together;
        /// packages past it are sent from their files. Default 16 MiB.
        public var inMemoryPackageBudget: Int = 16 * 1024 * 1024

        public init() {}
    }

    /// What one published catalog serves. A class, so a poll takes it from the lock with one reference count
    /// rather than copying every dictionary inside.
    final class Snapshot: Sendable {
        /// False only for the snapshot before the first `publish(_:)`: no catalog is loaded yet, so no answer
        /// can be given (polls get 503 `not_ready`, never "no skin").
        let loaded: Bool
        let catalog: Catalog
        let fragments: AnswerFragments
        /// The header fields of each answer in `fragments.precomputed`, by position.
        let headers: [AnswerHeaders]
        /// This catalog's signed answers for the current step; nil when answers are not signed.
        let signed: SignedAnswers<PreparedAnswer>?
        /// Unsigned: each answer in `fragments.precomputed` as its two whole responses (200 and 304), by position,
        /// so a poll copies one instead of assembling it from the answer's parts. Empty when answers are signed.
        let responses: [PreparedResponses]
        /// Each app's skins, boundaries and answer counters, found with one lookup per poll. Apps the kill switch
        /// turns off are left out, so their polls get no skin.
        let apps: [String: PollTarget]
        /// Theme list answers, assembled once per distinct list.
        let themeLists: ThemeListFragments
        /// Catalog documents, assembled (and signed) once per app, platform and step.
        let documents: CatalogDocuments
        /// Counts answers without a skin.
        let noSkin: Counter
        /// Counts polls whose client already held the sign it was given.
        let upToDate: Counter

        init(
            catalog: Catalog, fragments: AnswerFragments, themeLists: ThemeListFragments, documents: CatalogDocuments,
            signer: AnswerSigner?, metrics: ClientMetrics, loaded: Bool = true
        ) {
            self.loaded = loaded
            self.themeLists = themeLists
            self.documents = documents
            self.catalog = catalog
            self.fragments = fragments
            self.headers = fragments.precomputed.map { AnswerHeaders($0, maxAge: fragments.maxAge) }
            self.signed = signer.map { PreparedAnswer.table(signer: $0, maxAge: fragments.maxAge) }
            self.responses =
                signer != nil
                ? [] : zip(fragments.precomputed, headers).map { PreparedResponses(answer: $0, headers: $1) }
            var apps: [String: PollTarget] = [:]
            for (app, skins) in catalog.releases {
                // Made for every released skin, so each series exists (at zero) from the moment its skin does.
                let counters = skins.map { metrics.answerCounter($0.skinID.rawValue) }
                if catalog.killSwitch.blocks(app: app) { continue }
                apps[app] = PollTarget(skins: skins, boundaries: catalog.boundaries[app] ?? [], counters: counters)
            }
            self.apps = apps
            self.noSkin = metrics.answerCounter("")
            self.upToDate = metrics.upToDate
        }
    }

    /// An unsigned precomputed answer's responses, made once per published catalog.
    final class PreparedResponses: Sendable {
        /// The answer's `skinSign` (`""` for none).
        let skinSign: String
        let etag: String
        /// 200 with the body and `AnswerHeaders.ok`.
        let ok: HTTPResponse
        /// 304 with `AnswerHeaders.notModified`.
        let notModified: HTTPResponse

        init(answer: SkinAnswer, headers: AnswerHeaders) {
            skinSign = answer.skinSign
            etag = answer.etag
            ok = HTTPResponse(status: .ok, headers: headers.ok, body: .bytes(answer.body))
            notModified = HTTPResponse(status: .notModified, headers: headers.notModified, body: .empty)
        }
    }

    /// One app's part of a snapshot.
    final class PollTarget: Sendable {
        /// Released skins in precedence order, as `Catalog.releases` holds them.
        let skins: [ReleasedSkin]
        /// Their window starts and ends, as `Catalog.boundaries` holds them.
        let boundaries: [Date]
        /// The answer counter of each skin, by position in `skins`.
        let counters: [Counter]

        init(skins: [ReleasedSkin], boundaries: [Date], counters: [Counter]) {
            self.skins = skins
            self.boundaries = boundaries
            self.counters = counters
        }

        /// The counter for answers showing `skin`, one of `skins`.
        func counter(for skin: ReleasedSkin) -> Counter? {
            skins.firstIndex { $0 === skin }.map { counters[$0] }
        }
    }

    public let configuration: Configuration
    let cache: PackageCache
    /// Signs answers when `configuration.signingKey` is set; one for every catalog, so a body that a new catalog
    /// leaves unchanged keeps its signature within a step.
    let signer: AnswerSigner?
    private let clock: @Sendable () -> Date
    private let snapshot: Mutex<Snapshot>
    /// Whether a catalog has been published (`Snapshot.loaded` of the current snapshot), readable without the lock.
    private let loaded = Atomic<Bool>(false)
    let logger: Logger
    private let metrics: ClientMetrics
    /// The answer parts of every package served so far, by file name, so a download of a built package builds no
    /// header and looks up no sign string. Grows as `PackageCache`'s records do (one entry per package built or
    /// found in this process).
    private let preparedPackages = Mutex<PreparedPackages>(PreparedPackages())

    private struct PreparedPackages {
        var byName: [PackageFileName: PreparedPackage] = [:]
        /// Package bytes the entries hold in memory (at most `Configuration.inMemoryPackageBudget`).
        var heldBytes = 0
    }

    /// Each event loop's replicas of `preparedPackages` (by `HTTPRequest.eventLoopIndex`; a server has at most 64
    /// loops): a download on a loop reads its own replica, so the entry, header fields and entity tag it retains
    /// and releases are touched by no other loop, and it takes no lock another loop takes. The content bytes and
    /// the held file stay shared (one copy in memory whatever the number of loops).
    ///
    /// Invariant: a loop's replicas were made from the shared packages as they were at `preparedGeneration` (read
    /// under their lock); every change of the shared packages bumps it under that lock, and a loop that sees
    /// another generation drops its replicas before reading.
    private let loopPackages: [LoopPackages] = (0..<64).map { _ in LoopPackages() }

    /// One loop's replicas, made at `generation` (-1: none yet).
    private struct LoopReplicas {
        var generation = -1
        var byName: [PackageFileName: PreparedPackage] = [:]
        /// The replica the loop served last, also in `byName`: a run of downloads of one package (a release's
        /// first hours) finds it by comparing two integers, without hashing the name.
        var last: (name: PackageFileName, package: PreparedPackage)?

        /// The replica for `name` made at `generation`, or nil.
        @inline(__always)
        mutating func replica(_ name: PackageFileName, generation: Int) -> PreparedPackage? {
            guard self.generation == generation else { return nil }
            if let last, last.name == name { return last.package }
            guard let found = byName[name] else { return nil }
            last = (name, found)
            return found
        }

        /// Keeps `replica` for `name`, dropping every replica made at another generation than `generation`.
        mutating func keep(_ replica: PreparedPackage, for name: PackageFileName, generation: Int) {
            if self.generation != generation { self = LoopReplicas(generation: generation) }
            byName[name] = replica
            last = (name, replica)
        }
    }
    private let preparedGeneration = Atomic<Int>(0)

    private final class LoopPackages: Sendable {
        let state = Mutex<LoopReplicas>(LoopReplicas())
        /// Keeps two loops' replicas off one cache line.
        private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// - Parameters:
    ///   - clock: the current instant; injectable so schedules are testable without waiting.
    ///   - metricsFactory: where counters go (the process-wide factory by default).
    public init(
        configuration: Configuration = Configuration(), cache: PackageCache, logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.cache = cache
        self.clock = clock
        self.logger = logger
        let metrics = ClientMetrics(factory: metricsFactory)
        self.metrics = metrics
        let signer = configuration.signingKey.map { AnswerSigner(key: $0, maxAge: configuration.maxAge) }
        self.signer = signer
        self.snapshot = Mutex(
            Snapshot(
                catalog: .empty, fragments: AnswerFragments(catalog: .empty, maxAge: configuration.maxAge),
                themeLists: ThemeListFragments(catalog: .empty, maxAge: configuration.maxAge),
                documents: Self.documents(.empty, configuration, signer: signer, logger: logger), signer: signer,
                metrics: metrics, loaded: false))
    }

    /// Makes `catalog` the catalog every following request sees. A catalog of the same releases as the one served
    /// (another kill switch applied to it) keeps their rendered answers, theme list entries and document entries:
    /// only the kill switch differs, and it is applied when answering.
    public func publish(_ catalog: Catalog) {
        let served = snapshot.withLock { $0 }
        let same = served.loaded && served.catalog.hasSameReleases(as: catalog) ? served : nil
        let fresh = Snapshot(
            catalog: catalog,
            fragments: same?.fragments
                ?? AnswerFragments(
                    catalog: catalog, packageURLPrefix: configuration.packageURLPrefix,
                    maxAge: configuration.maxAge),
            themeLists: same?.themeLists
                ?? ThemeListFragments(
                    catalog: catalog, packageURLPrefix: configuration.packageURLPrefix,
                    previewURLPrefix: configuration.previewURLPrefix, maxAge: configuration.maxAge),
            documents: Self.documents(catalog, configuration, signer: signer, logger: logger, reusing: same?.documents),
            signer: signer, metrics: metrics)
        snapshot.withLock { $0 = fresh }
        loaded.store(true, ordering: .releasing)
    }

    /// The catalog documents of `catalog`, stepped as the signer steps (with the entries of `previous`, the
    /// documents of a catalog with the same releases, when given).
    private static func documents(
        _ catalog: Catalog, _ configuration: Configuration, signer: AnswerSigner?, logger: Logger,
        reusing previous: CatalogDocuments? = nil
    ) -> CatalogDocuments {
        CatalogDocuments(
            catalog: catalog, packageURLPrefix: configuration.packageURLPrefix, maxAge: configuration.maxAge,
            period: signer?.period, horizon: configuration.catalogHorizon, entryLimit: configuration.catalogEntryLimit,
            logger: logger, reusing: previous)
    }

    /// The current instant of the injected clock.
    func clockNow() -> Date { clock() }

    /// The snapshot requests see now.
    func publishedSnapshot() -> Snapshot { snapshot.withLock { $0 } }

    /// Whether a catalog has been published: until then every answer that depends on it is 503 `not_ready`.
    public var isLoaded: Bool { loaded.load(ordering: .acquiring) }

    /// The catalog requests currently see.
    public var current: Catalog { snapshot.withLock { $0.catalog } }

    /// Adds the client routes to `router`.
    public func register(on router: Router) {
        router.on(.get, "/api/v1/skin", .sync { [self] request in skin(request) })
        router.on(.get, "/api/v1/themes", .sync { [self] request in themes(request) })
        router.on(.get, "/api/v1/catalog", .sync { [self] request in catalog(request) })
        router.on(.get, "/api/v1/previews/:file", .sync { [self] request in preview(request) })
        router.on(
            .get, "/api/v1/packages/:file",
            HTTPHandler.syncOrAsync(
                immediate: { [self] request in packageIfReady(request) },
                otherwise: { [self] request in await package(request) }
            ).answeringViews { [self] view in packageIfReady(view) })
    }

    // MARK: - GET /api/v1/skin

    /// Answers a poll.
    public func skin(_ request: HTTPRequest) -> HTTPResponse {
        answering(request) { query, current, now in poll(request, query, current, now) }
    }

    /// Reads a poll's or theme list's query and answers it with `answer` from the published snapshot at the
    /// current instant: 400 `invalid_parameter` for a bad query, 503 `not_ready` before the first catalog.
    @inline(__always)
    private func answering(
        _ request: HTTPRequest, _ answer: (SkinRequest, Snapshot, Date) -> HTTPResponse
    ) -> HTTPResponse {
        let query: SkinRequest
        do {
            query = try SkinRequest.parse(request.query.firstValues(of: SkinRequest.queryNames))
        } catch {
            return APIError.invalidParameter(error).response
        }
        let now = clock()
        let current = snapshot.withLock { $0 }
        guard current.loaded else { return APIError.notReady.response }
        return answer(query, current, now)
    }

    private func poll(_ request: HTTPRequest, _ query: SkinRequest, _ current: Snapshot, _ now: Date) -> HTTPResponse {
        var decision = SkinDecision()
        decision.variant = query.variant
        var counter = current.noSkin
        if let target = current.apps[query.app] {
            decision = SkinResolver.resolve(
                query, among: target.skins, boundaries: target.boundaries, at: now, horizon: configuration.horizon)
            if let skin = decision.current, let skinCounter = target.counter(for: skin) { counter = skinCounter }
        }
        let maxAge = current.fragments.maxAge
        // Unsigned and precomputed, with no schedule boundary before the longest max-age: one of the answer's two
        // prepared responses, exactly what `cacheable` would assemble.
        if !current.responses.isEmpty, let index = current.fragments.precomputedIndex(for: decision),
            decision.nextBoundary.map({ Int($0.timeIntervalSince(now).rounded(.down)) >= maxAge }) ?? true
        {
            let prepared = current.responses[index]
            counter.increment()
            if query.sign == prepared.skinSign { current.upToDate.increment() }
            let notModified = request.headers["If-None-Match"].map { EntityTag.matches($0, prepared.etag) } ?? false
            return notModified ? prepared.notModified : prepared.ok
        }
        let prepared: PreparedAnswer
        do {
            prepared = try current.answer(for: decision, to: query, at: now)
        } catch {
            logger.error("poll answer not signed: OpenSSL failed; answering 503")
            return error.response
        }
        let answer = prepared.answer
        counter.increment()
        if query.sign == answer.skinSign { current.upToDate.increment() }

        // No cache may keep the answer past the next schedule boundary, nor past its expiresAt.
        return Self.cacheable(
            request, body: answer.body, etag: answer.etag, prepared: prepared.headers, maxAge: maxAge,
            limit: Self.earlier(decision.nextBoundary, prepared.expiresAt), expiresAt: prepared.expiresAt, now: now)
    }

    /// `Cache-Control` of a signed answer fresh for `maxAge` seconds from `now`: stale use allowed only up to
    /// `expiresAt` (whole seconds, rounded down, at least 0).
    static func signedCacheControl(maxAge: Int, expiresAt: Date, now: Date) -> String {
        let untilExpiry = expiresAt.timeIntervalSince(now)
        let stale = untilExpiry.isFinite ? max(0, Int(untilExpiry.rounded(.down)) - maxAge) : 0
        return "public, max-age=\(maxAge), stale-while-revalidate=\(stale), stale-if-error=\(stale)"
    }

    /// The earlier of two optional instants.
    static func earlier(_ a: Date?, _ b: Date?) -> Date? {
        guard let a, let b else { return a ?? b }
        return min(a, b)
    }

    /// A poll or theme list answer with its prepared header fields: 304 without a body when `If-None-Match`
    /// matches `etag`; `max-age` bounded by the time left until `limit`.
    ///
    /// A signed answer (`expiresAt` set) also says how long a cache may serve it stale:
    /// `stale-while-revalidate=N, stale-if-error=N`, N being the whole seconds from the end of its max-age to its
    /// `expiresAt` (never negative). Without them a cache applies its own grace (Varnish: 10 s), and could hand
    /// out an answer whose `expiresAt` has passed, which an app checking signatures refuses.
    static func cacheable(
        _ request: HTTPRequest, body: [UInt8], etag: String, prepared: AnswerHeaders, maxAge: Int, limit: Date?,
        expiresAt: Date? = nil, now: Date
    ) -> HTTPResponse {
        let notModified = request.headers["If-None-Match"].map { EntityTag.matches($0, etag) } ?? false
        var headers = notModified ? prepared.notModified : prepared.ok
        var freshFor = maxAge
        if let limit {
            let untilLimit = max(0, Int(limit.timeIntervalSince(now).rounded(.down)))
            if untilLimit < maxAge {
                freshFor = untilLimit
                if expiresAt == nil {
                    headers.replaceOrAdd(name: "Cache-Control", value: "public, max-age=\(untilLimit)")
                }
            }
        }
        if let expiresAt {
            headers.replaceOrAdd(
                name: "Cache-Control", value: signedCacheControl(maxAge: freshFor, expiresAt: expiresAt, now: now))
        }
        if notModified { return HTTPResponse(status: .notModified, headers: headers, body: .empty) }
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(body))
    }

    // MARK: - GET /api/v1/themes

    /// Answers a theme list: the themes this client may pick, in list order. Same parameters and errors as a
    /// poll; ETag, 304 and `Cache-Control` as for a poll, `max-age` bounded by the next theme window boundary;
    /// signed as a poll answer is when a signing key is set (the question it answers, `expiresAt`,
    /// `Livery-Signature`).
    public func themes(_ request: HTTPRequest) -> HTTPResponse {
        answering(request) { query, current, now in
            let decision = SkinResolver.themes(query, in: current.catalog, at: now)
            // With a key the signed list is looked up alone (it builds the unsigned one itself only on a miss).
            let answer: ThemeListAnswer
            var signature: String?
            var expiresAt: Date?
            if let signer {
                do {
                    let signed = try current.themeLists.signedAnswer(
                        for: decision, answering: AnswerBinding(query), by: signer, at: now)
                    answer = signed.answer
                    signature = signed.signature
                    expiresAt = signed.expiresAt
                } catch {
                    logger.error("theme list not signed: OpenSSL failed; answering 503")
                    return APIError.signingFailed.response
                }
            } else {
                answer = current.themeLists.answer(for: decision)
            }
            let maxAge = current.themeLists.maxAge
            return Self.cacheable(
                request, body: answer.body, etag: answer.etag,
                prepared: AnswerHeaders(etag: answer.etag, maxAge: maxAge, signature: signature), maxAge: maxAge,
                limit: Self.earlier(decision.nextBoundary, expiresAt), expiresAt: expiresAt, now: now)
        }
    }

    /// What a theme list for `query` holds at `now` from the catalog requests see now, with that catalog.
    func themesPreview(
        _ query: SkinRequest, at now: Date
    ) -> (answer: ThemeListAnswer, decision: ThemeDecision, catalog: Catalog) {
        let current = snapshot.withLock { $0 }
        let decision = SkinResolver.themes(query, in: current.catalog, at: now)
        return (current.themeLists.answer(for: decision), decision, current.catalog)
    }

    // MARK: - GET|HEAD /api/v1/previews/{sha256}.{ext}

    /// Serves a preview image by its content-addressed name: immutable, cacheable for a year; 404
    /// `preview_not_found` for a name no released skin's preview has.
    public func preview(_ request: HTTPRequest) -> HTTPResponse {
        let current = snapshot.withLock { $0 }
        guard current.loaded else { return APIError.notReady.response }
        guard let image = current.catalog.previews[request.pathParameters["file"] ?? ""] else {
            return APIError.previewNotFound.response
        }
        let etag = "\"" + image.sha256.prefix(32) + "\""
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Cache-Control", value: "public, max-age=31536000, immutable")
        if request.headers["If-None-Match"].map({ EntityTag.matches($0, etag) }) ?? false {
            return HTTPResponse(status: .notModified, headers: headers, body: .empty)
        }
        headers.add(name: "Content-Type", value: image.mediaType)
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(image.bytes))
    }

    /// What a poll for `query` gets at `now` from the catalog requests see now: the answer, the decision it came
    /// from, and that catalog (so the admin preview can explain it with the same snapshot).
    func preview(_ query: SkinRequest, at now: Date) -> (answer: SkinAnswer, decision: SkinDecision, catalog: Catalog) {
        let current = snapshot.withLock { $0 }
        let decision = SkinResolver.resolve(query, in: current.catalog, at: now, horizon: configuration.horizon)
        return (SkinAnswer(decision: decision, fragments: current.fragments), decision, current.catalog)
    }

    // MARK: - GET|HEAD /api/v1/packages/{sign}.zip

    /// Serves a package that is already built, or answers 404 for a name that cannot be a package, right on the
    /// event loop; nil when the package must be looked up or built first (`package(_:)`).
    public func packageIfReady(_ request: HTTPRequest) -> HTTPResponse? {
        packageIfReady(
            named: { request.pathParameters.withUTF8("file", PackageFileName.init(bytes:)) ?? nil },
            loop: request.eventLoopIndex, turn: request.eventLoopTurn, header: { request.headers[$0] })
    }

    /// `packageIfReady(_:)` for a request read where it was received (the route's view path): the same answers,
    /// with no request value built.
    public func packageIfReady(_ view: borrowing HTTPRequestView) -> HTTPResponse? {
        packageIfReady(
            named: { view.withParameterUTF8(PackageFileName.init(bytes:)) }, loop: view.eventLoopIndex,
            turn: view.eventLoopTurn, header: { view.header($0) })
    }

    /// The quick answer to a download of the package `name` gives (nil: not a package name), read on the event loop
    /// `loop` (nil off the loops) in its turn `turn`, whose request has the header fields `header` gives.
    @inline(__always)
    private func packageIfReady(
        named name: () -> PackageFileName?, loop: Int?, turn: UInt64, header: (String) -> String?
    ) -> HTTPResponse? {
        guard isLoaded else { return APIError.notReady.response }
        guard let name = name() else { return APIError.packageNotFound.response }
        if let package = preparedPackage(name, loop: loop) {
            // Prepared once served: only the presence check remains (a removed file goes to the slow path).
            guard isInPlace(package, loop: loop, turn: turn) else { return nil }
            return PackageResponder.respond(to: header, package: package)
        }
        guard let record = cache.readyRecord(sign: name.sign) else { return nil }
        return PackageResponder.respond(to: header, package: prepared(record, name))
    }

    /// Whether the file of `package` (from `preparedPackage(_:loop:)`) is still in place: checked once per turn of
    /// an event loop on that loop's replica (the downloads read in one turn share the answer, so a removed or
    /// replaced file is noticed by the loop's next turn), and at every call off the loops. `loop` and `turn` are
    /// the request's (`HTTPRequest.eventLoopIndex`, `HTTPRequest.eventLoopTurn`).
    private func isInPlace(_ package: PreparedPackage, loop: Int?, turn: UInt64) -> Bool {
        // Only a loop's own replica may carry a turn: another loop counts its turns apart.
        guard turn != 0, let loop, loopPackages.indices.contains(loop) else {
            return cache.isReady(package.record, held: package.file)
        }
        if package.checkedTurn.load(ordering: .relaxed) == turn {
            cache.countHit()
            return true
        }
        guard cache.isReady(package.record, held: package.file) else { return false }
        package.checkedTurn.store(turn, ordering: .relaxed)
        return true
    }

    /// The prepared package kept for `name`: the loop's replica when the request runs on an event loop (made from
    /// the shared one on its first download there), the shared one otherwise; nil when none is kept.
    private func preparedPackage(_ name: PackageFileName, loop: Int?) -> PreparedPackage? {
        guard let loop, loopPackages.indices.contains(loop) else {
            return preparedPackages.withLock { $0.byName[name] }
        }
        let replicas = loopPackages[loop]
        let generation = preparedGeneration.load(ordering: .acquiring)
        if let replica = replicas.state.withLock({ $0.replica(name, generation: generation) }) { return replica }
        let (shared, sharedGeneration) = preparedPackages.withLock { packages in
            (packages.byName[name], preparedGeneration.load(ordering: .relaxed))
        }
        guard let shared else { return nil }
        let replica = PreparedPackage(shared.record, bytes: shared.bytes, file: shared.file)
        replicas.state.withLock { $0.keep(replica, for: name, generation: sharedGeneration) }
        return replica
    }

    /// Serves a package file, building it first if its file is missing from the cache.
    public func package(_ request: HTTPRequest) async -> HTTPResponse {
        guard isLoaded else { return APIError.notReady.response }
        guard let name = request.pathParameters.withUTF8("file", PackageFileName.init(bytes:)) ?? nil else {
            return APIError.packageNotFound.response
        }
        let sign = name.sign
        let record: PackageRecord
        do {
            guard let found = try await cache.package(sign: sign, in: current) else {
                return APIError.packageNotFound.response
            }
            record = found
        } catch {
            logger.error("package build failed", metadata: ["package.sign": "\(sign)", "error": "\(error)"])
            return APIError.internalError.response
        }
        return PackageResponder.respond(to: { request.headers[$0] }, package: prepared(record, name))
    }

    /// The prepared answer parts of `record` (named `name`), made and kept for the following downloads unless kept
    /// already (and, when it holds its file, that file is still in place: a rebuild after a removal writes another).
    private func prepared(_ record: PackageRecord, _ name: PackageFileName) -> PreparedPackage {
        func reusable(_ kept: PreparedPackage?) -> PreparedPackage? {
            guard let kept, kept.record == record, kept.file?.isLinked ?? true else { return nil }
            return kept
        }
        if let kept = reusable(preparedPackages.withLock({ $0.byName[name] })) { return kept }
        // Once per package, outside the lock: a small package's bytes, read and checked against its record.
        let limit = configuration.inMemoryPackageLimit
        // Not while out of descriptors: a package kept in memory holds its file open (`PackageResponder`).
        let content =
            record.size <= UInt64(max(0, limit)) && !DescriptorReserve.shared.isReleased
            ? cache.verifiedContent(of: record, limit: limit) : nil
        let budget = configuration.inMemoryPackageBudget
        return preparedPackages.withLock { packages in
            if let kept = reusable(packages.byName[name]) { return kept }
            packages.heldBytes -= packages.byName[name]?.bytes?.count ?? 0
            let held = content.flatMap { packages.heldBytes + $0.bytes.count <= budget ? $0 : nil }
            let package = PreparedPackage(record, bytes: held?.bytes, file: held?.file)
            packages.heldBytes += held?.bytes.count ?? 0
            packages.byName[name] = package
            preparedGeneration.add(1, ordering: .releasing)
            return package
        }
    }
}

/// A package file name, `<sign>.zip` with a sign of 32 lowercase hex digits, held as the 128 bits the sign spells:
/// a dictionary key read from the request without allocating, and hashed as two integers.
struct PackageFileName: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    /// The name in `file`, or nil when `file` is not exactly 32 lowercase hex digits and `.zip`.
    init?(_ file: String) {
        var file = file
        guard let name = file.withUTF8({ Self(bytes: $0) }) else { return nil }
        self = name
    }

    /// The name spelled by `bytes` (a path parameter read in place), or nil when they are not exactly 32 lowercase
    /// hex digits and `.zip`.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = Self.parse(bytes) else { return nil }
        high = parsed.high
        low = parsed.low
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64)? {
        guard bytes.count == 36, bytes[32] == UInt8(ascii: "."), bytes[33] == UInt8(ascii: "z"),
            bytes[34] == UInt8(ascii: "i"), bytes[35] == UInt8(ascii: "p"),
            let high = number(bytes, from: 0), let low = number(bytes, from: 16)
        else { return nil }
        return (high, low)
    }

    /// The 64 bits spelled by the 16 lowercase hex digits at `start`, or nil if one is not such a digit.
    /// (`parse` has checked that the 16 bytes are there.) Two halves of eight digits, each checked and converted
    /// with word-wide arithmetic rather than digit by digit.
    @inline(__always)
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt64? {
        guard let base = bytes.baseAddress.map(UnsafeRawPointer.init) else { return nil }
        guard let high = eightDigits(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self))),
            let low = eightDigits(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)))
        else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// The 32 bits spelled by eight lowercase hex digits, the first in the lowest byte of `word`; nil if a byte is
    /// not `0-9` or `a-f`. Each byte is tested in its own lane: adding `0x80 - c` sets a lane's top bit exactly when
    /// its byte is at least `c` (no lane carries into the next, as every byte is below 0x80 once that is checked).
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> UInt32? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let tops: UInt64 = 0x8080_8080_8080_8080
        guard word & tops == 0 else { return nil }
        func atLeast(_ byte: UInt64) -> UInt64 { (word &+ (0x80 &- byte) &* ones) & tops }
        let digits = atLeast(0x30) & ~atLeast(0x3A)  // 0-9
        let letters = atLeast(0x61) & ~atLeast(0x67)  // a-f
        guard digits | letters == tops else { return nil }
        // A digit's value is its low nibble; a letter's is its low nibble (1-6) plus 9.
        let nibbles = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ (letters >> 7) &* 9
        // The first digit is the most significant: pair the bytes, then the pairs, then the halves.
        let pairs = (nibbles & 0x00FF_00FF_00FF_00FF) << 4 | (nibbles >> 8) & 0x00FF_00FF_00FF_00FF
        let quads = (pairs & 0x0000_FFFF_0000_FFFF) << 8 | (pairs >> 16) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: (quads & 0xFFFF_FFFF) << 16 | quads >> 32)
    }

    /// The sign, as 32 lowercase hex digits.
    var sign: String {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { Hex.encode($0) }
    }
}

/// Counters for poll answers.
final class ClientMetrics: Sendable {
    /// Poll answers by `skin`.
    static let answersName = "livery_skin_answers_total"
    /// Polls whose app already had the answered package.
    static let upToDateName = "livery_skin_up_to_date_total"

    private let factory: any MetricsFactory
    let upToDate: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        self.upToDate = Counter(label: Self.upToDateName, dimensions: [], factory: factory)
    }

    /// The counter of answers showing `skin` (`""` for none). The factory hands out one series per label set, so
    /// every catalog's counter for a skin adds to the same series.
    func answerCounter(_ skin: String) -> Counter {
        Counter(label: Self.answersName, dimensions: [("skin", skin)], factory: factory)
    }
}
