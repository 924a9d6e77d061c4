import CoreMetrics
import Foundation
import LiveryHTTP
import Logging
import LiveryCrypto
import SkinModel
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

        public init() {}
    }

    /// What one published catalog serves. A class, so a poll takes it from the lock with one reference count
    /// rather than copying every dictionary inside.
    final class Snapshot: Sendable {
        let state: CatalogState
        let fragments: AnswerFragments
        let counters: AnswerCounters

        init(state: CatalogState, fragments: AnswerFragments, counters: AnswerCounters) {
            self.state = state
            self.fragments = fragments
            self.counters = counters
        }
    }

    public let configuration: Configuration
    let cache: PackageCache
    private let clock: @Sendable () -> Date
    private let snapshot: Mutex<Snapshot>
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
        self.snapshot = Mutex(
            Snapshot(
                state: .empty, fragments: AnswerFragments(catalog: .empty, maxAge: configuration.maxAge),
                counters: metrics.counters(for: .empty)))
    }

    /// Makes `state` the catalog every following request sees.
    public func publish(_ state: CatalogState) {
        let fresh = Snapshot(
            state: state,
            fragments: AnswerFragments(
                catalog: state.catalog, packageURLPrefix: configuration.packageURLPrefix,
                maxAge: configuration.maxAge),
            counters: metrics.counters(for: state.catalog))
        snapshot.withLock { $0 = fresh }
    }

    /// The catalog state requests currently see.
    public var current: CatalogState { snapshot.withLock { $0.state } }

    /// Adds the client routes to `router`.
    public func register(on router: Router) {
        router.get("/api/v1/skin") { [self] request in skin(request) }
        router.get(
            "/api/v1/packages/:file", immediate: { [self] request in packageIfReady(request) },
            otherwise: { [self] request in await package(request) })
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
        let decision = SkinResolver.resolve(query, in: current.state.catalog, at: now, horizon: configuration.horizon)
        let answer = current.fragments.answer(for: decision)
        current.counters.count(skinID: decision.current?.skinID, upToDate: query.sign == answer.skinSign)

        var headers = answer.headers
        if let boundary = decision.nextBoundary {
            let untilBoundary = max(0, Int(boundary.timeIntervalSince(now).rounded(.down)))
            if untilBoundary < current.fragments.maxAge {
                headers = SkinAnswer.headers(etag: answer.etag, maxAge: untilBoundary)
            }
        }
        if let tags = request.headers["If-None-Match"], EntityTag.matches(tags, answer.etag) {
            return HTTPResponse(status: .notModified, headers: headers, body: .empty)
        }
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(answer.body))
    }

    /// What a poll for `query` gets at `now` from the catalog requests see now: the answer, the decision it came
    /// from, and that catalog (so the admin preview can explain it with the same snapshot).
    func preview(_ query: SkinRequest, at now: Date) -> (answer: SkinAnswer, decision: SkinDecision, catalog: Catalog) {
        let current = snapshot.withLock { $0 }
        let decision = SkinResolver.resolve(query, in: current.state.catalog, at: now, horizon: configuration.horizon)
        return (SkinAnswer(decision: decision, fragments: current.fragments), decision, current.state.catalog)
    }

    // MARK: - GET|HEAD /api/v1/packages/{sign}.zip

    /// Serves a package that is already built, or answers 404 for a name that cannot be a package, right on the
    /// event loop; nil when the package must be looked up or built first (`package(_:)`).
    public func packageIfReady(_ request: HTTPRequest) -> HTTPResponse? {
        guard let sign = Self.sign(ofPackageFile: request.pathParameters["file"] ?? "") else {
            return APIError.packageNotFound.response
        }
        guard let record = cache.readyRecord(sign: sign) else { return nil }
        return PackageResponder.respond(to: request, record: record)
    }

    /// Serves a package file, building it first if its file is missing from the cache.
    public func package(_ request: HTTPRequest) async -> HTTPResponse {
        guard let sign = Self.sign(ofPackageFile: request.pathParameters["file"] ?? "") else {
            return APIError.packageNotFound.response
        }
        let state = current
        let record: PackageRecord
        do {
            if let known = state.catalog.packages[sign], let origin = state.origins[sign] {
                record = try await cache.record(
                    sign: sign, skinID: known.skinID, variant: known.variant, packager: origin.packager)
            } else if let retired = cache.knownRecord(sign: sign),
                FileManager.default.fileExists(atPath: retired.path)
            {
                record = retired
            } else {
                return APIError.packageNotFound.response
            }
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
    private let upToDate: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        self.upToDate = Counter(label: "livery_skin_up_to_date_total", dimensions: [], factory: factory)
    }

    /// One answer counter per released skin (and one for "no skin"), made when a catalog is published so a poll
    /// only increments.
    func counters(for catalog: Catalog) -> AnswerCounters {
        var bySkin: [SkinID: Counter] = [:]
        for skins in catalog.releases.values {
            for skin in skins where bySkin[skin.skinID] == nil {
                bySkin[skin.skinID] = answerCounter(skin.skinID.rawValue)
            }
        }
        return AnswerCounters(bySkin: bySkin, none: answerCounter(""), upToDate: upToDate)
    }

    private func answerCounter(_ skin: String) -> Counter {
        Counter(label: "livery_skin_answers_total", dimensions: [("skin", skin)], factory: factory)
    }
}

/// The counters of one catalog.
struct AnswerCounters: Sendable {
    let bySkin: [SkinID: Counter]
    let none: Counter
    let upToDate: Counter

    /// Counts an answer; `upToDate` means the client already held the sign it was given (an empty sign counts too).
    func count(skinID: SkinID?, upToDate isUpToDate: Bool) {
        (skinID.flatMap { bySkin[$0] } ?? none).increment()
        if isUpToDate { upToDate.increment() }
    }
}
