import Foundation
import LiveryCatalog
import LiveryJSON
import SkinModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One app install's view of Livery: asks for the app's signed catalog (or polls per device) at launch and on
/// resume, verifies, downloads, unpacks and swaps skins atomically, and reads the applied skin.
///
/// Guarantees:
/// - The app is never told "no skin" because of a fault: every failed `refresh()` keeps the skin applied (and the
///   stored catalog) and leaves no partial folder; only an answer (no skin, the kill switch, an app the server does
///   not know), the end of a window or the end of the catalog's horizon removes a skin.
/// - A stored catalog decides offline, with `LiveryCatalog`'s `CatalogDecision` (the server's own rules), until its
///   `horizonEndsAt`; the packages of skins starting before then are prefetched and switch on at their start
///   without the network (`reapply()` or the next launch). A skin from a poll stays usable offline until its own
///   `endsAt`, and the poll's `next` is prefetched likewise.
/// - A launch puts the skin it shows on trial until `markApplied()`: a sign on trial that the next launch finds
///   unconfirmed (the app crashed first) is reverted and never applied again on this device. A skin that applies
///   after this launch's `markApplied()` (a background refresh, a window starting) is not on trial in this process,
///   because the app may end without drawing it; it goes on trial at the next launch, unless `markApplied()` confirms
///   it first.
/// - Concurrent `refresh()` calls share one request.
/// - Each skin's outcome (applied once confirmed, or failed at its stage, a crash included) is queued in the storage
///   folder and reported at most once per launch (`sendReports()`); reporting never delays or fails applying a skin.
///
/// Thread-safe; every method may be called from any task.
public final class LiveryClient: Sendable {
    /// The configuration this client was made with (the device id filled in).
    public let configuration: LiveryConfiguration
    let storage: SkinStorage
    let verifier: AnswerVerifier
    let transport: HTTPTransport
    private let downloader: PackageDownloader
    let state: LockedBox<StoredState>
    private let applied = LockedBox<Skin?>(nil)
    private let observers = LockedBox<[UUID: AsyncStream<Skin?>.Continuation]>([:])
    private let gate = RefreshGate()
    /// True until this process's first `markApplied()`: while it holds, the skin that applies is the one on trial.
    /// Only read and written under `state`'s lock.
    private let trialOpen = LockedBox(true)
    private let themeList = LockedBox<[Theme]?>(nil)
    let catalog: LockedBox<StoredCatalog?>
    /// This install's side of catalog decisions; nil when its app version cannot be compared (it then polls).
    let question: CatalogQuestion?
    /// The outcome queue (`reports.json`); nil when the configuration turns reports off.
    let reports: LockedBox<StoredReports>?
    let launchReport = LockedBox(LaunchReport())

    /// Opens the storage folder and applies what is stored (no network): the launch step.
    ///
    /// A sign found applied but unconfirmed (the app crashed before `markApplied()`) is blocked here, and the
    /// previous skin (or none) applies instead.
    ///
    /// - Throws: `disk` when the storage folder cannot be created or written; `signature` when a trusted key is
    ///   not a P-256 key; `server` when the configuration cannot make a poll (scale not 1–3, empty app id).
    public init(configuration: LiveryConfiguration) throws(LiveryError) {
        guard (1...3).contains(configuration.scale) else { throw LiveryError(.server, "scale must be 1, 2 or 3") }
        guard !configuration.appID.isEmpty else { throw LiveryError(.server, "the app id is empty") }
        verifier = try AnswerVerifier(trustedKeys: configuration.trustedKeys)
        storage = SkinStorage(root: configuration.storage)
        try storage.prepare()
        var stored =
            storage.loadState() ?? StoredState(deviceID: configuration.deviceID ?? UUID().uuidString.lowercased())
        if let given = configuration.deviceID, given != stored.deviceID {
            stored.deviceID = given
            stored.pollETag = nil
        }
        var configuration = configuration
        configuration.deviceID = stored.deviceID
        self.configuration = configuration
        var queue: StoredReports? = configuration.reportsOutcomes ? storage.loadReports() ?? StoredReports() : nil
        if let crashed = stored.unconfirmed {
            Self.block(crashed, in: &stored)
            // Saved before the state that blocks the sign: a crash between the two finds the sign unconfirmed again, and
            // the queue already holds its crash, once.
            if queue?.record(OutcomeReport(skinSign: crashed, stage: .crash, at: configuration.clock())) == true,
                let queue
            {
                try? storage.saveReports(queue)
            }
        }
        reports = queue.map { LockedBox($0) }
        transport = HTTPTransport(timeout: configuration.timeout)
        downloader = PackageDownloader(transport: transport, storage: storage)
        question = CatalogQuestion(
            deviceID: stored.deviceID, appVersion: configuration.appVersion, scale: configuration.scale,
            appearance: configuration.appearance.rawValue)
        catalog = LockedBox(storage.loadCatalog(app: configuration.appID, platform: configuration.platform.rawValue))
        state = LockedBox(stored)
        try apply()
    }

    deinit { transport.invalidate() }

    /// The device id polls send (the configured one, or the one generated on first use and kept).
    public var deviceID: String { configuration.deviceID ?? "" }

    /// The skin that applies now, nil when the app shows its own default look.
    public var current: Skin? { applied.withLock { $0 } }

    /// What decided the holiday skin: the stored catalog, or per-device polls (a server without the catalog, a
    /// catalog cut at the server's entry cap, or nothing decided yet).
    public var source: DecisionSource { state.withLock { $0.source } }

    /// The id of the theme the user chose (kept across launches), nil when none is chosen.
    public var chosenThemeID: String? { state.withLock { $0.theme?.skinID } }

    /// Every change of `current` from now on (Ziroom's re-skin notification): the new skin, or nil when the app's
    /// default look applies again. Each access makes a new stream; only the latest change is buffered.
    public var changes: AsyncStream<Skin?> {
        let (stream, continuation) = AsyncStream.makeStream(of: Skin?.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [observers] _ in _ = observers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    // MARK: - Refresh

    /// Asks the server and applies its answer: call at launch, on resume, and from a background refresh.
    ///
    /// First the catalog (`GET /api/v1/catalog?app=&platform=`, the same URL for every install, so a CDN serves
    /// it): nothing is sent while the stored one is fresh (its `max-age`), then it is revalidated with
    /// `If-None-Match` (a 304 keeps it). A new catalog is verified (signature over the exact bytes, app, platform,
    /// `expiresAt`); the package of the skin it applies now is downloaded first, and only then is the catalog
    /// stored (atomically) and applied; the packages of skins starting before its horizon are prefetched. A 404
    /// `not_found` (a server without the catalog) makes this install poll per device for 24 hours; a 404
    /// `unknown_app` applies no skin and sends nothing for an hour; a catalog with `"complete": false` makes it poll.
    /// Both waits are kept in `state.json`, so relaunches do not reach the server.
    ///
    /// A poll (`GET /api/v1/skin`) sends `If-None-Match` (an unchanged answer downloads nothing), verifies the
    /// answer (signature, question, `expiresAt`), downloads a package only when its sign is new, and prefetches the
    /// answer's `next`. Every download resumes a cut transfer, checks size and SHA-256 as it streams, unpacks
    /// hostile-first and validates `config.json` before `state.json` is swapped. After a 503 with `Retry-After`, no
    /// request is sent before that instant.
    ///
    /// - Throws: a `LiveryError`; the skin applied before the call is kept (a failure never removes a skin), and so
    ///   is the stored catalog.
    public func refresh() async throws(LiveryError) {
        let result = await gate.run { [self] in
            do throws(LiveryError) {
                try await performRefresh()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        refreshEnded()
        try result.get()
    }

    /// Applies what is stored at the clock's instant, without the network: a window that ended drops its skin, a
    /// prefetched `next` whose window started applies.
    public func reapply() throws(LiveryError) { try apply() }

    /// Confirms the applied skin: call once the first screen has drawn with it, and again after redrawing with a
    /// skin from `changes` to confirm that one at once. Until the first call, a crash makes the next launch revert
    /// the skin on trial and block its sign; after it, a newly applied skin waits for the next launch's trial (or the
    /// next call).
    ///
    /// A sign confirmed for the first time is queued as `applied`; after a refresh has ended, this launch's reports
    /// are sent (`sendReports()`).
    public func markApplied() throws(LiveryError) {
        let (snapshot, confirmed) = state.withLock { state -> (StoredState, String?) in
            trialOpen.withLock { $0 = false }
            state.unconfirmed = nil
            let sign = state.applied
            guard !sign.isEmpty, !state.confirmed.contains(sign) else { return (state, nil) }
            state.confirmed.append(sign)
            return (state, sign)
        }
        try storage.saveState(snapshot)
        if let confirmed { record(confirmed, stage: nil) }
        appliedConfirmed()
    }

    private func performRefresh() async throws(LiveryError) {
        let now = configuration.clock()
        let before = state.withLock { $0 }
        if let retryAfter = before.retryAfter, now < retryAfter {
            throw LiveryError(
                .server, "the server asked to wait until \(ISO8601Instant.format(retryAfter)) (Retry-After)")
        }
        // The server said the app has no skin: nothing is asked before the hour is over, so a new app's launch peak
        // does not reach the origin.
        if let until = before.unknownAppUntil, now < until { return }
        if question == nil || before.pollUntil.map({ now < $0 }) == true {
            return try await poll(now: now)
        }
        try await refreshCatalog(now: now)
    }

    func poll(now: Date) async throws(LiveryError) {
        let before = state.withLock { $0 }
        let query = pollQuery(deviceID: before.deviceID)
        var request = URLRequest(url: try endpoint("/api/v1/skin", query: query))
        if before.pollQuery == query, let etag = before.pollETag {
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
        }
        let (head, body) = try await transport.get(request, limit: 1 << 20)
        switch head.status {
        case 304 where before.pollETag != nil:
            try await ensureStoredPackages()
        case 200:
            let document = try verified(body: body, head: head, now: now)
            try await adopt(try PollAnswer.read(document), query: query, etag: head.field("ETag"))
        case 503, 429:
            throw try busy(head, now: now)
        default:
            throw LiveryError(.server, "the server answered HTTP \(head.status)")
        }
    }

    /// A 503 or 429: keeps its `Retry-After` (no request before it) and returns the error to throw.
    func busy(_ head: HTTPTransport.Head, now: Date) throws(LiveryError) -> LiveryError {
        let wait = Self.retryAfter(head.field("Retry-After"), now: now)
        if let wait {
            let snapshot = state.withLock { state -> StoredState in
                state.retryAfter = wait
                return state
            }
            try storage.saveState(snapshot)
        }
        return LiveryError(
            .server,
            "the server answered HTTP \(head.status)"
                + (wait.map { "; retry after \(ISO8601Instant.format($0))" } ?? ""))
    }

    /// Parses and verifies an answer body: signature first (over the exact bytes), then the question and expiry.
    private func verified(body: [UInt8], head: HTTPTransport.Head, now: Date) throws(LiveryError) -> JSONValue {
        let signed = try verifier.verify(body: body, headerValue: head.field("Livery-Signature"))
        let document: JSONValue
        do {
            document = try JSONValue.parse(body)
        } catch {
            throw LiveryError(.server, "the answer is not JSON: \(error)")
        }
        if signed {
            try AnswerVerifier.checkQuestion(document, configuration: configuration, now: now, requireFields: true)
        }
        return document
    }

    /// Takes a verified poll answer: downloads what is new, keeps what fails, swaps the state, applies.
    private func adopt(_ answer: PollAnswer, query: String, etag: String?) async throws(LiveryError) {
        let before = state.withLock { $0 }
        var failure: LiveryError?
        var holiday = before.holiday
        var previous = before.previousHoliday
        var answered = true
        if let current = answer.current {
            if before.blocked.contains(current.sign) {
                failure = Self.blockedError(current)
                // Not kept as "unchanged": every refresh reports it while the server still names it.
                answered = false
            } else if current.sign == before.holiday?.sign {
                holiday = current
            } else {
                do {
                    try await ensurePackage(current)
                    if let old = before.holiday { previous = old }
                    holiday = current
                } catch {
                    failure = error
                    answered = false
                }
            }
        } else {
            if let old = before.holiday { previous = old }
            holiday = nil
        }
        var next: PackageEntry?
        if let upcoming = answer.next, !before.blocked.contains(upcoming.sign) {
            do {
                try await ensurePackage(upcoming)
                next = upcoming
            } catch {
                if failure == nil { failure = error }
                answered = false
            }
        }
        let keep = Set([answer.current?.sign, answer.next?.sign].compactMap { $0 })
        try commit { state in
            state.source = .poll
            state.holiday = holiday
            state.previousHoliday = previous == holiday ? nil : previous
            state.next = next
            state.retryAfter = nil
            state.pollQuery = query
            // A failed download must be retried at the next refresh, so its answer is not kept as "unchanged".
            state.pollETag = answered ? etag : nil
        }
        let blocked = Set(state.withLock { $0.blocked })
        storage.prune(keep: state.withLock { $0.keptSigns }.union(keep).subtracting(blocked))
        if let failure { throw failure }
    }

    /// After a 304: the stored answer stands; makes sure its packages are still in storage.
    private func ensureStoredPackages() async throws(LiveryError) {
        let stored = state.withLock { $0 }
        for entry in [stored.holiday, stored.next].compactMap({ $0 }) where !stored.blocked.contains(entry.sign) {
            try await ensurePackage(entry)
        }
        try commit {
            $0.source = .poll
            $0.retryAfter = nil
        }
    }

    static func blockedError(_ entry: PackageEntry) -> LiveryError {
        LiveryError(
            .blocked, "skin \(entry.skinID) (\(entry.sign)) crashed this app before and is never applied again here")
    }

    /// Downloads, verifies and unpacks `entry` unless its package is already stored. A failure of the skin's own
    /// (not of the network or the device) is queued as its outcome, at its stage.
    func ensurePackage(_ entry: PackageEntry) async throws(LiveryError) {
        if storage.hasPackage(entry.sign) { return }
        guard entry.size <= configuration.maximumPackageSize else {
            throw reported(
                LiveryError(
                    .size, "the package is \(entry.size) bytes, above the \(configuration.maximumPackageSize) accepted"),
                entry, at: .download)
        }
        guard let url = URL(string: entry.packageURL, relativeTo: configuration.serverURL)?.absoluteURL,
            url.scheme == "https" || url.scheme == "http"
        else {
            throw reported(
                LiveryError(.server, "the packageUrl '\(entry.packageURL.prefix(80))' is not an http(s) URL"), entry,
                at: .download)
        }
        let refused = LockedBox(false)
        let part: URL
        do {
            part = try await downloader.download(entry, from: url, refused: refused)
        } catch {
            // A network cut, a 5xx or a full disk says nothing about the skin: not reported, retried next refresh.
            let stage: OutcomeReport.Stage? =
                switch error.code {
                case .size: .download
                case .hash: .verify
                case .server where refused.withLock({ $0 }): .download
                default: nil
                }
            throw reported(error, entry, at: stage)
        }
        let storage = self.storage
        let contents = configuration.appearance
        do {
            try await Self.offPool { () throws(LiveryError) in
                try PackageInstaller(storage: storage).install(entry, from: part, contents: contents)
            }
        } catch {
            throw reported(error, entry, at: error.code == .zip ? .unpack : error.code == .config ? .config : nil)
        }
    }

    // MARK: - Themes

    /// The themes this install may pick now, from the verified signed list (`GET /api/v1/themes`).
    public func themes() async throws(LiveryError) -> [Theme] {
        let now = configuration.clock()
        let query = pollQuery(deviceID: deviceID)
        let (head, body) = try await transport.get(
            URLRequest(url: try endpoint("/api/v1/themes", query: query)), limit: 4 << 20)
        guard head.status == 200 else { throw LiveryError(.server, "the theme list answered HTTP \(head.status)") }
        let list = try Theme.readList(try verified(body: body, head: head, now: now), server: configuration.serverURL)
        themeList.withLock { $0 = list }
        return list
    }

    /// Chooses the theme `id` (downloading and verifying its package like a skin's) or, with nil, none; the
    /// choice is kept across launches. A holiday skin that applies still wins while its window holds.
    ///
    /// - Throws: `server` when the list does not offer `id`; otherwise as `refresh()`; the previous choice is kept.
    public func selectTheme(_ id: String?) async throws(LiveryError) {
        guard let id else {
            try commit { $0.theme = nil }
            return
        }
        if state.withLock({ $0.theme?.skinID == id }), storage.hasPackage(state.withLock { $0.theme?.sign ?? "" }) {
            return
        }
        var list = themeList.withLock { $0 }
        if list == nil { list = try await themes() }
        guard let theme = list?.first(where: { $0.id == id }) else {
            throw LiveryError(.server, "the theme list does not offer '\(id)'")
        }
        if state.withLock({ $0.blocked.contains(theme.sign) }) {
            throw LiveryError(
                .blocked, "theme \(id) (\(theme.sign)) crashed this app before and is never applied again here")
        }
        try await ensurePackage(theme.entry)
        try commit { $0.theme = theme.entry }
        storage.prune(keep: keptSigns(now: configuration.clock()))
    }

    // MARK: - Applying

    /// Changes the state with `change`, decides what applies at the clock's instant, saves `state.json`
    /// atomically and publishes the skin.
    func commit(_ change: (inout StoredState) -> Void) throws(LiveryError) {
        state.withLock { change(&$0) }
        try apply()
    }

    private func apply() throws(LiveryError) {
        let now = configuration.clock()
        let storage = self.storage
        let question = self.question
        let stored = catalog.withLock { $0 }
        let (snapshot, choice, changed) = state.withLock {
            state -> (StoredState, (entry: PackageEntry, kind: Skin.Kind)?, Bool) in
            let before = state
            let choice: (entry: PackageEntry, kind: Skin.Kind)?
            if state.source == .catalog, let question {
                let verdict =
                    stored.map { question.verdict($0.document, at: now) }
                    ?? CatalogVerdict(skin: nil, themesAllowed: true)
                // The catalog's skin is kept as `holiday` once it can apply, so a later failure (its package missing,
                // its sign blocked after a crash) falls back to the skin applied before it.
                if let skin = verdict.skin, skin.sign != state.holiday?.sign, !state.blocked.contains(skin.sign),
                    storage.hasPackage(skin.sign)
                {
                    if let old = state.holiday { state.previousHoliday = old }
                    state.holiday = skin
                }
                choice = SkinSelection.choose(state, verdict: verdict, at: now, isStored: storage.hasPackage)
            } else {
                choice = SkinSelection.choose(state, at: now, isStored: storage.hasPackage)
            }
            let sign = choice?.entry.sign ?? ""
            state.applied = sign
            // Until this launch's `markApplied()`, whatever applies is on trial; after it, a new skin is not (the app
            // may end without drawing it) and goes on trial at the next launch.
            if trialOpen.withLock({ $0 }) {
                state.unconfirmed = sign.isEmpty || state.confirmed.contains(sign) ? nil : sign
            }
            let kept = state.keptSigns
            state.confirmed.removeAll { !kept.contains($0) }
            return (state, choice, state != before)
        }
        // Saved only when something changed: a launch on a full disk still applies what is stored.
        if changed || !storage.hasState { try storage.saveState(snapshot) }
        var skin: Skin?
        if let choice {
            let folder = storage.packageFolder(choice.entry.sign)
            let configs = try PackageContents.configs(in: folder, contents: configuration.appearance)
            skin = Skin(
                entry: choice.entry, kind: choice.kind, folder: folder, scale: configuration.scale, configs: configs)
        }
        let announce = applied.withLock { current -> Bool in
            defer { current = skin }
            return current != skin
        }
        if announce {
            for continuation in observers.withLock({ Array($0.values) }) { continuation.yield(skin) }
        }
    }

    /// Blocks `sign` for good and takes it out of every slot (the previous skin comes back in its place).
    private static func block(_ sign: String, in state: inout StoredState) {
        if !state.blocked.contains(sign) { state.blocked.append(sign) }
        if state.holiday?.sign == sign {
            state.holiday = state.previousHoliday?.sign == sign ? nil : state.previousHoliday
            state.previousHoliday = nil
        }
        if state.next?.sign == sign { state.next = nil }
        if state.theme?.sign == sign { state.theme = nil }
        state.unconfirmed = nil
        state.pollETag = nil
    }

    // MARK: - Requests

    /// The catalog's query: the app and platform only, so every install of them asks the same URL (a CDN's key).
    var catalogQuery: String {
        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "app", value: configuration.appID),
            URLQueryItem(name: "platform", value: configuration.platform.rawValue)
        ]
        return components.percentEncodedQuery ?? ""
    }

    private func pollQuery(deviceID: String) -> String {
        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "app", value: configuration.appID),
            URLQueryItem(name: "platform", value: configuration.platform.rawValue),
            URLQueryItem(name: "appVersion", value: configuration.appVersion),
            URLQueryItem(name: "deviceId", value: deviceID),
            URLQueryItem(name: "scale", value: String(configuration.scale)),
            URLQueryItem(name: "appearance", value: configuration.appearance.rawValue)
        ]
        return components.percentEncodedQuery ?? ""
    }

    func endpoint(_ path: String, query: String) throws(LiveryError) -> URL {
        guard var components = URLComponents(url: configuration.serverURL, resolvingAgainstBaseURL: false) else {
            throw LiveryError(.network, "the server URL '\(configuration.serverURL)' is not a URL")
        }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        components.percentEncodedQuery = query.isEmpty ? nil : query
        guard let url = components.url else { throw LiveryError(.network, "cannot make a URL for \(path)") }
        return url
    }

    /// Until when a catalog is used without asking again: `now` plus its `Cache-Control` `max-age` (at most a day);
    /// `now` itself (ask every time) without one, or with `no-cache` or `no-store`.
    static func freshUntil(_ cacheControl: String?, now: Date) -> Date {
        var seconds = 0
        for directive in (cacheControl ?? "").split(separator: ",") {
            let text = directive.trimmingCharacters(in: .whitespaces).lowercased()
            if text == "no-cache" || text == "no-store" { return now }
            if text.hasPrefix("max-age="), let value = Int(text.dropFirst(8)), value >= 0 {
                seconds = min(value, 86_400)
            }
        }
        return now.addingTimeInterval(Double(seconds))
    }

    /// The `error.code` of a JSON error body (`{"error":{"code":…}}`), nil when the body is not one.
    static func errorCode(_ body: [UInt8]) -> String? {
        (try? JSONValue.parse(body))?.objectValue?["error"]?.objectValue?["code"]?.stringValue
    }

    /// `Retry-After` as delay-seconds or an HTTP date, as an instant; nil when absent or unreadable. At most a day.
    static func retryAfter(_ value: String?, now: Date) -> Date? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return now.addingTimeInterval(Double(min(seconds, 86_400))) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return min(date, now.addingTimeInterval(86_400))
    }

    /// Runs blocking file work (unpacking) on a Dispatch queue, off the cooperative pool.
    static func offPool(_ work: @escaping @Sendable () throws(LiveryError) -> Void) async throws(LiveryError) {
        let result: Result<Void, LiveryError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                do throws(LiveryError) {
                    try work()
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }
}

/// Lets concurrent `refresh()` calls share the one in flight.
private actor RefreshGate {
    private var running: Task<Result<Void, LiveryError>, Never>?

    func run(_ work: @escaping @Sendable () async -> Result<Void, LiveryError>) async -> Result<Void, LiveryError> {
        if let running { return await running.value }
        let task = Task { await work() }
        running = task
        let result = await task.value
        running = nil
        return result
    }
}
