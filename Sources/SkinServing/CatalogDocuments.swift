import Foundation
import LiveryCrypto
import Logging
import SkinModel

/// One catalog document (`GET /api/v1/catalog`) as assembled for a step: the same bytes for every device of an app
/// and platform, its entity tag, and what an adapter needs to bound its caching.
public struct CatalogDocumentAnswer: Sendable, Equatable {
    /// The JSON body (with `expiresAt` as its last member when signed).
    public let body: [UInt8]
    /// A strong entity tag for the body, quoted.
    public let etag: String
    /// The `Livery-Signature` value over `body`; nil when documents are not signed.
    public let signature: String?
    /// The body's `expiresAt`; nil when unsigned.
    public let expiresAt: Date?
    /// The body's `horizonEndsAt`.
    public let horizonEndsAt: Date
    /// Every window start and end of the listed entries that lies before `horizonEndsAt`, sorted, without repeats:
    /// the instants at which a phone's decision from this document can change.
    public let boundaries: [Date]
    /// False when the entry cap cut the list (`"complete": false`).
    public let complete: Bool

    /// The first boundary later than `now`, if any.
    public func nextBoundary(after now: Date) -> Date? {
        let index = SkinResolver.firstIndex(after: now, in: boundaries)
        return index < boundaries.count ? boundaries[index] : nil
    }
}

/// The catalog documents of one published catalog: every skin's and theme's entry is rendered once when the catalog
/// is published, and each (app, platform) document is assembled (and signed, with a key) once per step of
/// `period` seconds, then kept for the step, so a request costs a lookup.
///
/// A document lists what can apply between the start of its step and `horizon` seconds later: the app's released
/// skins and themes that target the platform and whose window (`startsAt ..< endsAt`) meets
/// `stepStart ..< stepStart + horizon`, holiday skins in precedence order (`Catalog.releases`), then themes in list
/// order (`Catalog.themes`). A killed app's document says `"killed": true` and lists nothing. It depends on the
/// catalog, the app, the platform and the step only: every device of an app and platform gets the same bytes.
/// Phones decide from it exactly as `SkinResolver` decides (docs/PROTOCOL.md); the agreement test proves it.
public final class CatalogDocuments: Sendable {
    /// The step length: the answers' max-age (the `AnswerSigner`'s period when signed), at least 1 s.
    public let period: Int
    /// How far past its step's start a document looks, in seconds.
    public let horizon: Int
    /// Most entries a document lists; past it the document says `"complete": false` and lists the first ones.
    public let entryLimit: Int
    /// The longest `max-age` of a document, in seconds (shorter when a boundary or `expiresAt` comes sooner).
    public let maxAge: Int

    private let revision: Int
    private let killSwitch: KillSwitch
    private let holidays: [String: [ReleasedSkin]]
    private let themes: [String: [ReleasedSkin]]
    /// Rendered entries (`{"skinId":…,"packages":{…}}`) by the skin's identity.
    private let entries: [ObjectIdentifier: [UInt8]]
    /// Every app a released skin or theme belongs to (killed or not): any other app is unknown.
    public let knownApps: Set<String>
    private let kept: StepTable<CatalogDocumentKey, CatalogDocumentAnswer>
    private let logger: Logger

    /// Default `entryLimit`: a few thousand entries (one entry carries 9 packages, about 2.5 KB).
    public static let defaultEntryLimit = 2000
    /// Default `horizon`: 14 days.
    public static let defaultHorizon = 1_209_600

    /// - Parameters:
    ///   - maxAge: the longest `max-age` (`--cache-max-age`); also the step when `period` is nil.
    ///   - period: the step length; pass the signer's (`AnswerSigner.period`) when documents are signed.
    ///   - previous: the documents of a catalog with the very same releases (`Catalog.hasSameReleases`), made with
    ///     the same `packageURLPrefix`, whose rendered entries are taken instead of rendered again.
    public init(
        catalog: Catalog, packageURLPrefix: String = "/api/v1/packages/", maxAge: Int = 60, period: Int? = nil,
        horizon: Int = CatalogDocuments.defaultHorizon, entryLimit: Int = CatalogDocuments.defaultEntryLimit,
        logger: Logger = Logger(label: "livery.catalog"), reusing previous: CatalogDocuments? = nil
    ) {
        self.maxAge = max(0, maxAge)
        self.period = max(1, period ?? maxAge)
        self.horizon = max(0, horizon)
        self.entryLimit = max(0, entryLimit)
        self.revision = catalog.revision
        self.killSwitch = catalog.killSwitch
        self.holidays = catalog.releases
        self.themes = catalog.themes
        self.knownApps = Set(catalog.releases.keys).union(catalog.themes.keys)
        self.logger = logger
        kept = StepTable(limit: 4096)
        if let previous {
            self.entries = previous.entries
            return
        }
        var entries: [ObjectIdentifier: [UInt8]] = [:]
        for skin in catalog.releases.values.joined() {
            entries[ObjectIdentifier(skin)] = Self.entry(skin, packageURLPrefix)
        }
        for skin in catalog.themes.values.joined() {
            entries[ObjectIdentifier(skin)] = Self.entry(skin, packageURLPrefix)
        }
        self.entries = entries
    }

    /// The step `now` falls in, counted from 1970-01-01T00:00:00Z (as `AnswerSigner.step` counts).
    public func step(at now: Date) -> Int64 {
        let seconds = now.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
        return Int64((seconds / Double(period)).rounded(.down))
    }

    /// The document of `app` and `platform` for now's step, signed by `signer` when one is given; nil when no
    /// released skin or theme belongs to `app` (`knownApps`).
    ///
    /// - Parameter signer: must have this table's `period` (`AnswerSigner.period`), so its `expiresAt` is this
    ///   step's.
    /// - Throws: `KeyError.cryptoFailure` when OpenSSL cannot sign; nothing is kept, so the next request retries.
    public func document(
        app: String, platform: Platform, at now: Date, signer: AnswerSigner?
    ) throws(KeyError)
        -> CatalogDocumentAnswer?
    {
        guard knownApps.contains(app) else { return nil }
        let step = step(at: now)
        let key = CatalogDocumentKey(app: app, platform: platform)
        return try kept.value(step: step, key: key) { () throws(KeyError) -> CatalogDocumentAnswer in
            try assemble(app: app, platform: platform, step: step, signer: signer)
        }
    }

    private func assemble(
        app: String, platform: Platform, step: Int64, signer: AnswerSigner?
    ) throws(KeyError)
        -> CatalogDocumentAnswer
    {
        let start = Date(timeIntervalSince1970: Double(step * Int64(period)))
        let end = start.addingTimeInterval(Double(horizon))
        let killed = killSwitch.blocks(app: app)
        var listed: [ReleasedSkin] = []
        if !killed {
            let candidates = (holidays[app] ?? []) + (themes[app] ?? [])
            listed = candidates.filter { skin in
                skin.targets(platform) && skin.release.endsAt > start && skin.release.startsAt < end
            }
        }
        let complete = listed.count <= entryLimit
        if !complete {
            logger.warning(
                "catalog document cut at the entry cap: phones of this app and platform poll per device",
                metadata: [
                    "app": "\(app)", "platform": "\(platform.rawValue)", "catalog.entries": "\(listed.count)",
                    "catalog.entry_limit": "\(entryLimit)"
                ])
            listed = Array(listed.prefix(entryLimit))
        }
        let quote = AnswerFragments.quote
        var body: [UInt8] = []
        body.reserveCapacity(256 + listed.count * 2600)
        body.append(
            contentsOf: Array(
                (#"{"app":\#(quote(app)),"platform":\#(quote(platform.rawValue)),"revision":\#(revision),"#
                    + #""horizonEndsAt":\#(quote(ISO8601Instant.format(end))),"complete":\#(complete),"#
                    + #""killed":\#(killed),"skins":["#).utf8))
        for (position, skin) in listed.enumerated() {
            if position > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: entries[ObjectIdentifier(skin)] ?? [])
        }
        body.append(contentsOf: Array("]}".utf8))
        let boundaries = Array(
            Set(
                listed.filter(\.release.hasWindow).flatMap { [$0.release.startsAt, $0.release.endsAt] }.filter {
                    $0 < end
                })
        ).sorted()
        guard let signer else {
            return CatalogDocumentAnswer(
                body: body, etag: SkinAnswer.etag(of: body), signature: nil, expiresAt: nil, horizonEndsAt: end,
                boundaries: boundaries, complete: complete)
        }
        let signed = try signer.sign(namingItsQuestion: body, step: step)
        return CatalogDocumentAnswer(
            body: signed.body, etag: SkinAnswer.etag(of: signed.body), signature: signed.signature,
            expiresAt: signed.expiresAt, horizonEndsAt: end, boundaries: boundaries, complete: complete)
    }

    /// One skin's entry: `{"skinId","kind","order","startsAt","endsAt","priority","platforms","minAppVersion",
    /// "maxAppVersion","rollout",("title","description" for themes,)"packages":{VARIANT:{"skinSign","packageUrl",
    /// "sha256","size"},…}}`, instants in UTC (`null` for a theme without a window), platforms sorted, variants in
    /// `PackageVariant.slot` order named as `PackageVariant.description` names them (`@3x-light`).
    static func entry(_ skin: ReleasedSkin, _ packageURLPrefix: String) -> [UInt8] {
        let quote = AnswerFragments.quote
        let release = skin.release
        func instant(_ date: Date) -> String { release.hasWindow ? quote(ISO8601Instant.format(date)) : "null" }
        let platforms = release.platforms.sorted().map { quote($0.rawValue) }.joined(separator: ",")
        var text =
            #"{"skinId":\#(quote(skin.skinID.rawValue)),"kind":\#(quote(release.kind.rawValue)),"#
            + #""order":\#(release.order.map(String.init) ?? "null"),"#
            + #""startsAt":\#(instant(release.startsAt)),"endsAt":\#(instant(release.endsAt)),"#
            + #""priority":\#(release.priority),"platforms":[\#(platforms)],"#
            + #""minAppVersion":\#(release.minAppVersion.map { quote($0.text) } ?? "null"),"#
            + #""maxAppVersion":\#(release.maxAppVersion.map { quote($0.text) } ?? "null"),"#
            + #""rollout":\#(release.rollout),"#
        if release.kind == .theme {
            text += #""title":\#(quote(skin.title)),"description":\#(quote(skin.description)),"#
        }
        text += #""packages":{"#
        // Keyed by the variant the record was made for here: records are shared by sign, and a skin whose variants
        // have identical bytes (no images to scale) shares one record, made for another variant, between them.
        let records = skin.packages.sorted { $0.key.slot < $1.key.slot }
        text += records.map { variant, record in
            #"\#(quote(variant.description)):{"skinSign":\#(quote(record.sign)),"#
                + #""packageUrl":\#(quote(packageURLPrefix + record.sign + ".zip")),"#
                + #""sha256":\#(quote(record.sha256)),"size":\#(record.size)}"#
        }.joined(separator: ",")
        text += "}}"
        return Array(text.utf8)
    }
}

/// Identifies a document within a step.
struct CatalogDocumentKey: Hashable, Sendable {
    let app: String
    let platform: Platform
}
