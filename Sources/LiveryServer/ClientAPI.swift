import CoreMetrics
import Foundation
import LiveryCrypto
import LiveryHTTP
import Logging
import SkinModel
import SkinServing
import Synchronization

/// The public, unauthenticated API apps call: `GET /api/v1/skin` and `GET|HEAD /api/v1/packages/{sign}.zip`.
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
        /// The key that signs every poll answer (`--signing-key`); nil sends answers unsigned, without `expiresAt`.
        /// Default nil. See `AnswerSigner`.
        public var signingKey: (any BodySigner)?

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
        /// Each app's skins, boundaries and answer counters, found with one lookup per poll. Apps the kill switch
        /// turns off are left out, so their polls get no skin.
        let apps: [String: PollTarget]
        /// Counts answers without a skin.
        let noSkin: Counter
        /// Counts polls whose client already held the sign it was given.
        let upToDate: Counter

        init(
            catalog: Catalog, fragments: AnswerFragments, signer: AnswerSigner?, metrics: ClientMetrics,
            loaded: Bool = true
        ) {
            self.loaded = loaded
            self.catalog = catalog
            self.fragments = fragments
            self.headers = fragments.precomputed.map { AnswerHeaders($0, maxAge: fragments.maxAge) }
            self.signed = signer.map { PreparedAnswer.table(signer: $0, maxAge: fragments.maxAge) }
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
    private let logger: Logger
    private let metrics: ClientMetrics

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
                signer: signer, metrics: metrics, loaded: false))
    }

    /// Makes `catalog` the catalog every following request sees.
    public func publish(_ catalog: Catalog) {
        let fresh = Snapshot(
            catalog: catalog,
            fragments: AnswerFragments(
                catalog: catalog, packageURLPrefix: configuration.packageURLPrefix,
                maxAge: configuration.maxAge),
            signer: signer, metrics: metrics)
        snapshot.withLock { $0 = fresh }
        loaded.store(true, ordering: .releasing)
    }

    /// Whether a catalog has been published: until then every answer that depends on it is 503 `not_ready`.
    public var isLoaded: Bool { loaded.load(ordering: .acquiring) }

    /// The catalog requests currently see.
    public var current: Catalog { snapshot.withLock { $0.catalog } }

    /// Adds the client routes to `router`.
    public func register(on router: Router) {
        router.on(.get, "/api/v1/skin", .sync { [self] request in skin(request) })
        router.on(
            .get, "/api/v1/packages/:file",
            .syncOrAsync(
                immediate: { [self] request in packageIfReady(request) },
                otherwise: { [self] request in await package(request) }))
    }

    // MARK: - GET /api/v1/skin

    /// Answers a poll.
    public func skin(_ request: HTTPRequest) -> HTTPResponse {
        let query: SkinRequest
        do {
            query = try SkinRequest.parse(request.query.firstValues(of: SkinRequest.queryNames))
        } catch {
            return APIError.invalidParameter(error).response
        }
        let now = clock()
        let current = snapshot.withLock { $0 }
        guard current.loaded else { return APIError.notReady.response }
        var decision = SkinDecision()
        decision.variant = query.variant
        var counter = current.noSkin
        if let target = current.apps[query.app] {
            decision = SkinResolver.resolve(
                query, among: target.skins, boundaries: target.boundaries, at: now, horizon: configuration.horizon)
            if let skin = decision.current, let skinCounter = target.counter(for: skin) { counter = skinCounter }
        }
        let prepared: PreparedAnswer
        do {
            prepared = try current.answer(for: decision, at: now)
        } catch {
            logger.error("poll answer not signed: OpenSSL failed; answering 503")
            return error.response
        }
        let answer = prepared.answer
        counter.increment()
        if query.sign == answer.skinSign { current.upToDate.increment() }

        let notModified = request.headers["If-None-Match"].map { EntityTag.matches($0, answer.etag) } ?? false
        var headers = notModified ? prepared.headers.notModified : prepared.headers.ok
        // No cache may keep the answer past the next schedule boundary, nor past its expiresAt.
        var limit = decision.nextBoundary
        if let expiresAt = prepared.expiresAt, limit.map({ expiresAt < $0 }) ?? true { limit = expiresAt }
        if let limit {
            let untilLimit = max(0, Int(limit.timeIntervalSince(now).rounded(.down)))
            if untilLimit < current.fragments.maxAge {
                headers.replaceOrAdd(name: "Cache-Control", value: "public, max-age=\(untilLimit)")
            }
        }
        if notModified { return HTTPResponse(status: .notModified, headers: headers, body: .empty) }
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(answer.body))
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
        guard isLoaded else { return APIError.notReady.response }
        guard let sign = Self.sign(ofPackageFile: request.pathParameters["file"] ?? "") else {
            return APIError.packageNotFound.response
        }
        guard let record = cache.readyRecord(sign: sign) else { return nil }
        return PackageResponder.respond(to: request, record: record)
    }

    /// Serves a package file, building it first if its file is missing from the cache.
    public func package(_ request: HTTPRequest) async -> HTTPResponse {
        guard isLoaded else { return APIError.notReady.response }
        guard let sign = Self.sign(ofPackageFile: request.pathParameters["file"] ?? "") else {
            return APIError.packageNotFound.response
        }
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
        return PackageResponder.respond(to: request, record: record)
    }

    /// The sign in a package file name (`<32 lowercase hex>.zip`), or nil.
    static func sign(ofPackageFile file: String) -> String? {
        guard file.hasSuffix(".zip") else { return nil }
        let sign = String(file.dropLast(4))
        guard sign.utf8.count == 32, sign.utf8.allSatisfy({ Hex.isLowerHexDigit($0) }) else { return nil }
        return sign
    }
}

/// Counters for poll answers.
final class ClientMetrics: Sendable {
    private let factory: any MetricsFactory
    let upToDate: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        self.upToDate = Counter(label: "livery_skin_up_to_date_total", dimensions: [], factory: factory)
    }

    /// The counter of answers showing `skin` (`""` for none). The factory hands out one series per label set, so
    /// every catalog's counter for a skin adds to the same series.
    func answerCounter(_ skin: String) -> Counter {
        Counter(label: "livery_skin_answers_total", dimensions: [("skin", skin)], factory: factory)
    }
}
