import Foundation
import LiveryCrypto
import LiveryJSON
import SkinModel

/// The answer to a poll: the JSON body bytes plus the facts an adapter's caching headers need (the entity tag, a
/// digest of the body; the longest max-age is `AnswerFragments.maxAge`). No protocol's types: the server encodes its
/// header fields once per precomputed answer (`AnswerFragments.precomputed`).
///
/// Bodies are assembled from per-package JSON fragments precomputed when the catalog is built
/// (`AnswerFragments`), so answering does no JSON encoding.
public struct SkinAnswer: Sendable, Equatable {
    /// The `skinSign` sent, `""` when no skin applies.
    public let skinSign: String
    /// The JSON body.
    public let body: [UInt8]
    /// A strong entity tag for the body, quoted.
    public let etag: String

    /// Builds the answer for `decision`: every value describing a skin (`skinId`, `startsAt`, `endsAt`) comes from
    /// the release that was selected, every value describing its package (`skinSign`, `packageUrl`, `sha256`,
    /// `size`) from that release's package for the requested variant.
    ///
    /// The entity tag is a digest of the body, so it changes whenever any byte of the body does (a moved
    /// `endsAt` as well as a new package). Precomputed answers pay for it once per published catalog.
    public init(decision: SkinDecision, fragments: AnswerFragments) {
        var body: [UInt8] = []
        body.reserveCapacity(512)
        if let skin = decision.current, let record = decision.currentPackage,
            let fragment = fragments.fragment(skin, record)
        {
            body.append(UInt8(ascii: "{"))
            body.append(contentsOf: fragment)
            skinSign = record.sign
        } else {
            body.append(contentsOf: Array(#"{"skinSign":"""#.utf8))
            skinSign = ""
        }
        if let next = decision.next, let record = decision.nextPackage, let fragment = fragments.fragment(next, record)
        {
            body.append(contentsOf: Array(#","next":{"#.utf8))
            body.append(contentsOf: fragment)
            body.append(UInt8(ascii: "}"))
        }
        body.append(UInt8(ascii: "}"))
        self.body = body
        self.etag = Self.etag(of: body)
    }

    /// A strong entity tag for `body`: a digest of every byte, quoted.
    public static func etag(of body: [UInt8]) -> String { "\"" + SHA256.hexHash(body).prefix(32) + "\"" }
}

/// Precomputed JSON members (without braces) describing each released skin with each of its packages:
/// `"skinSign":…,"skinId":…,"packageUrl":…,"sha256":…,"size":…,"startsAt":…,"endsAt":…`.
///
/// Fragments are kept per release and variant, not per sign: two releases may share a package (identical bytes),
/// and each answer must name the release it was selected from.
public struct AnswerFragments: Sendable {
    /// Fragments by the release's identity, then by `PackageVariant.slot`.
    private let byRelease: [ObjectIdentifier: [[UInt8]?]]
    /// Every answer a poll can get from this catalog, built once, read without locks; found by `precomputedIndex`.
    /// Empty when the catalog would need more than `precomputedLimit`.
    public let precomputed: [SkinAnswer]
    /// Positions in `precomputed`, keyed by the identities of an answer's (current, next) releases and the variant.
    private let answerIndex: [AnswerKey: Int]
    /// The releases whose identities key `byRelease` and `answers`, kept alive so no other object can take their
    /// addresses.
    private let keyedReleases: [ReleasedSkin]
    /// The longest time an answer may be cached, in seconds (shorter when a window boundary comes sooner).
    public let maxAge: Int

    /// Most answers precomputed per catalog. An app with n released skins has at most (n + 1)² answers per
    /// variant; beyond this limit (hundreds of skins) answers are assembled per poll instead, which stays correct.
    static let precomputedLimit = 20_000

    /// Renders a fragment for every package of every released skin in `catalog`.
    ///
    /// - Parameter packageURLPrefix: prepended to `<sign>.zip` (default `/api/v1/packages/`; a CDN origin may be
    ///   configured instead). Must not contain characters that need JSON escaping; `init` escapes it regardless.
    /// - Parameter maxAge: the longest `Cache-Control: max-age` of an answer, in seconds (default 60).
    public init(catalog: Catalog, packageURLPrefix: String = "/api/v1/packages/", maxAge: Int = 60) {
        self.maxAge = max(0, maxAge)
        let (byRelease, releases) = Self.render(catalog.releases.values.joined()) { skin in
            let startsAt = Self.instantText(
                skin.release.startsAt, written: skin.release.startsAtText, skin.release.timeZone)
            let endsAt = Self.instantText(skin.release.endsAt, written: skin.release.endsAtText, skin.release.timeZone)
            return { _, record in
                #""skinSign":\#(Self.quote(record.sign)),"skinId":\#(Self.quote(skin.skinID.rawValue)),"#
                    + #""packageUrl":\#(Self.quote(packageURLPrefix + record.sign + ".zip")),"#
                    + #""sha256":\#(Self.quote(record.sha256)),"size":\#(record.size),"#
                    + #""startsAt":\#(Self.quote(startsAt)),"endsAt":\#(Self.quote(endsAt))"#
            }
        }
        self.byRelease = byRelease
        self.keyedReleases = releases
        (self.precomputed, self.answerIndex) = Self.precompute(catalog, byRelease: byRelease, maxAge: self.maxAge)
    }

    /// The bytes `entry(skin)(variant, record)` renders for each package of each of `skins`, by the skin's identity then by
    /// `PackageVariant.slot`, and the skins (to keep their identities alive).
    static func render(
        _ skins: some Sequence<ReleasedSkin>, entry: (ReleasedSkin) -> (PackageVariant, PackageRecord) -> String
    ) -> ([ObjectIdentifier: [[UInt8]?]], [ReleasedSkin]) {
        var rendered: [ObjectIdentifier: [[UInt8]?]] = [:]
        var kept: [ReleasedSkin] = []
        for skin in skins {
            let text = entry(skin)
            var slots = [[UInt8]?](repeating: nil, count: PackageVariant.slotCount)
            for (variant, record) in skin.packages { slots[variant.slot] = Array(text(variant, record).utf8) }
            rendered[ObjectIdentifier(skin)] = slots
            kept.append(skin)
        }
        return (rendered, kept)
    }

    /// The fragment describing `skin` with `record`, one of its packages.
    func fragment(_ skin: ReleasedSkin, _ record: PackageRecord) -> [UInt8]? {
        byRelease[ObjectIdentifier(skin)]?[record.variant.slot]
    }

    /// The answer for `decision`: precomputed when the catalog was published, so a poll costs a lookup of two
    /// object identities instead of assembling bytes.
    public func answer(for decision: SkinDecision) -> SkinAnswer {
        guard let index = precomputedIndex(for: decision) else {
            return SkinAnswer(decision: decision, fragments: self)
        }
        return precomputed[index]
    }

    /// The position in `precomputed` of the answer for `decision` (one lookup of two object identities), nil when
    /// it was not precomputed (then `SkinAnswer(decision:fragments:)` assembles it). Lets an adapter keep what it
    /// derives from each answer (encoded header fields) in an array beside `precomputed`.
    public func precomputedIndex(for decision: SkinDecision) -> Int? {
        answerIndex[AnswerKey(current: decision.current, next: decision.next, variant: decision.variant)]
    }

    private static func precompute(
        _ catalog: Catalog, byRelease: [ObjectIdentifier: [[UInt8]?]], maxAge: Int
    ) -> ([SkinAnswer], [AnswerKey: Int]) {
        let count = catalog.releases.values.reduce(0) { total, skins in
            total + (skins.count + 1) * (skins.count + 1) * PackageVariant.slotCount
        }
        guard count <= precomputedLimit else { return ([], [:]) }
        let assembler = AnswerFragments(byRelease: byRelease, maxAge: maxAge)
        var answers: [SkinAnswer] = []
        answers.reserveCapacity(count)
        var index: [AnswerKey: Int] = [:]
        index.reserveCapacity(count)
        for skins in catalog.releases.values {
            for variant in PackageVariant.all + PackageVariant.bothAppearances {
                let releases = [nil] + skins
                for current in releases {
                    for next in releases {
                        var decision = SkinDecision()
                        decision.variant = variant
                        decision.current = current
                        decision.currentPackage = current?.package(for: variant)
                        decision.next = next
                        decision.nextPackage = next?.package(for: variant)
                        index[AnswerKey(current: current, next: next, variant: variant)] = answers.count
                        answers.append(SkinAnswer(decision: decision, fragments: assembler))
                    }
                }
            }
        }
        return (answers, index)
    }

    private init(byRelease: [ObjectIdentifier: [[UInt8]?]], maxAge: Int) {
        self.maxAge = maxAge
        self.byRelease = byRelease
        self.precomputed = []
        self.answerIndex = [:]
        self.keyedReleases = []
    }

    /// An instant as ISO 8601 with an offset: as written when `skin.json` gave an offset, otherwise (a local
    /// date-time with a `timeZone`) with that zone's offset at that instant.
    public static func instantText(_ date: Date, written: String, _ timeZone: String?) -> String {
        guard let name = timeZone, let zone = TimeZone(identifier: name) else { return written }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = zone
        return formatter.string(from: date)
    }

    /// A JSON string literal for `text`.
    static func quote(_ text: String) -> String { JSONWriter.quoted(text) }
}

/// Identifies an answer by the releases it describes and the variant asked for. Releases are immutable objects
/// owned by the catalog that the answers were built from, so their identities are stable for as long as that
/// catalog is served.
struct AnswerKey: Hashable, Sendable {
    let current: ObjectIdentifier?
    let next: ObjectIdentifier?
    let slot: Int

    init(current: ReleasedSkin?, next: ReleasedSkin?, variant: PackageVariant) {
        self.current = current.map(ObjectIdentifier.init)
        self.next = next.map(ObjectIdentifier.init)
        self.slot = variant.slot
    }
}
