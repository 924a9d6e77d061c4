import Foundation
import LiveryCrypto
import SkinModel
import Synchronization

/// The themes a client may pick, as resolved: in list order, with the variant asked for.
public struct ThemeDecision: Sendable {
    /// The themes listed, in list order (`Catalog.themes`).
    public var themes: [ReleasedSkin] = []
    /// The earliest instant after `now` at which the list could change (a theme window starting or ending).
    public var nextBoundary: Date?
    /// The package variant asked for.
    public var variant: PackageVariant = .standard

    public init() {}
}

extension SkinResolver {
    /// The themes `request` may pick at `now` from `catalog`: every theme of the app whose targeting (platform,
    /// app version, rollout) and window (if it has one) let it through, in list order. The kill switch empties the
    /// list.
    public static func themes(_ request: SkinRequest, in catalog: Catalog, at now: Date) -> ThemeDecision {
        guard !catalog.killSwitch.blocks(app: request.app), let themes = catalog.themes[request.app] else {
            var decision = ThemeDecision()
            decision.variant = request.variant
            return decision
        }
        return self.themes(request, among: themes, boundaries: catalog.themeBoundaries[request.app] ?? [], at: now)
    }

    /// The themes `request` may pick among one app's themes (in list order) with their window boundaries (sorted,
    /// without repeats), as a catalog holds them; the kill switch is the caller's to check.
    public static func themes(
        _ request: SkinRequest, among themes: [ReleasedSkin], boundaries: [Date], at now: Date
    ) -> ThemeDecision {
        var decision = ThemeDecision()
        decision.variant = request.variant
        let firstAhead = firstIndex(after: now, in: boundaries)
        decision.nextBoundary = firstAhead < boundaries.count ? boundaries[firstAhead] : nil
        decision.themes = themes.filter { theme in
            theme.release.startsAt <= now && now < theme.release.endsAt
                && targetingExclusion(of: theme, for: request) == nil
        }
        return decision
    }
}

/// The body of a theme list answer and its entity tag (a digest of the body).
public struct ThemeListAnswer: Sendable, Equatable {
    /// `{"themes":[…]}`.
    public let body: [UInt8]
    /// A strong entity tag for the body, quoted.
    public let etag: String

    init(body: [UInt8]) {
        self.body = body
        self.etag = SkinAnswer.etag(of: body)
    }
}

/// A theme list signed for one step of an `AnswerSigner`: its body ends with `"expiresAt"`, its entity tag follows
/// that body, and `signature` is the `Livery-Signature` value over it.
public struct SignedThemeList: Sendable, Equatable {
    public let answer: ThemeListAnswer
    /// The `Livery-Signature` header value.
    public let signature: String
    /// The body's `expiresAt`.
    public let expiresAt: Date
}

/// Theme list answers of one catalog: each theme's entry is rendered once per variant when the catalog is
/// published, and each distinct list (which themes, which variant) is assembled and tagged once, then kept, so
/// answering a list costs the lookup of its themes' identities, like a poll.
///
/// An entry: `{"id":…,"title":…,"description":…,"previewUrl":…,"sign":…,"packageUrl":…,"sha256":…,"size":…}`,
/// `previewUrl` being the preview for the variant's appearance (the light one for both appearances), or `null`.
public final class ThemeListFragments: Sendable {
    /// Entries by the theme's identity, then by `PackageVariant.slot`.
    private let entries: [ObjectIdentifier: [[UInt8]?]]
    /// The themes whose identities key `entries` and `kept`, kept alive so no other object takes their addresses.
    private let keyedThemes: [ReleasedSkin]
    /// Lists signed for the current step of the signer (bodies with `expiresAt`), as `SignedAnswers` keeps poll
    /// answers: each signed once per step, at most `keptLimit` lists of at most `keptBytesLimit` bytes together.
    private let signed: StepTable<SignedThemeListKey, SignedThemeList>
    /// Lists already assembled, and the bytes of their bodies.
    private let kept = Mutex<(answers: [ThemeListKey: ThemeListAnswer], bytes: Int)>(([:], 0))
    /// Most distinct lists kept, and most bytes of their bodies, in `kept` and (separately) in `signed`.
    private let keptLimit: Int
    private let keptBytesLimit: Int
    /// The longest time an answer may be cached, in seconds (shorter when a window boundary comes sooner).
    public let maxAge: Int

    /// Most distinct lists kept per catalog, and most bytes of their bodies, unsigned and signed each; beyond
    /// either, unsigned lists are assembled per request and signed ones start their table over, which stays correct.
    /// Rollout buckets are independent per theme, so `deviceId` alone can reach 2^k lists with k themes at partial
    /// rollout: these bounds, not the request mix, set the memory held.
    public static let keptLimit = 4096
    public static let keptBytesLimit = 16 << 20

    /// - Parameters:
    ///   - packageURLPrefix: prepended to `<sign>.zip`.
    ///   - previewURLPrefix: prepended to a preview's `<sha256>.<ext>`.
    public init(
        catalog: Catalog, packageURLPrefix: String = "/api/v1/packages/",
        previewURLPrefix: String = "/api/v1/previews/", maxAge: Int = 60,
        keptLimit: Int = ThemeListFragments.keptLimit, keptBytesLimit: Int = ThemeListFragments.keptBytesLimit
    ) {
        self.maxAge = max(0, maxAge)
        self.keptLimit = keptLimit
        self.keptBytesLimit = keptBytesLimit
        signed = StepTable(limit: keptLimit, byteLimit: keptBytesLimit) { $0.byteCount }
        (entries, keyedThemes) = AnswerFragments.render(catalog.themes.values.joined()) { theme in
            { variant, record in
                let quote = AnswerFragments.quote
                let preview = theme.previews.map {
                    quote(previewURLPrefix + $0.image(for: variant.appearance).fileName)
                }
                return #"{"id":\#(quote(theme.skinID.rawValue)),"title":\#(quote(theme.title)),"#
                    + #""description":\#(quote(theme.description)),"previewUrl":\#(preview ?? "null"),"#
                    + #""sign":\#(quote(record.sign)),"packageUrl":\#(quote(packageURLPrefix + record.sign + ".zip")),"#
                    + #""sha256":\#(quote(record.sha256)),"size":\#(record.size)}"#
            }
        }
    }

    /// The answer listing `decision`'s themes in its variant.
    public func answer(for decision: ThemeDecision) -> ThemeListAnswer {
        let key = ThemeListKey(themes: decision.themes.map(ObjectIdentifier.init), slot: decision.variant.slot)
        if let known = kept.withLock({ $0.answers[key] }) { return known }
        var body = Array(#"{"themes":["#.utf8)
        var first = true
        for theme in decision.themes {
            guard let entry = entries[ObjectIdentifier(theme)]?[decision.variant.slot] else { continue }
            if !first { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: entry)
            first = false
        }
        body.append(contentsOf: Array("]}".utf8))
        let answer = ThemeListAnswer(body: body)
        kept.withLock { kept in
            guard kept.answers[key] == nil, kept.answers.count < keptLimit,
                kept.bytes + body.count <= keptBytesLimit
            else { return }
            kept.answers[key] = answer
            kept.bytes += body.count
        }
        return answer
    }
}

extension ThemeListFragments {
    /// The list for `decision` answering the question `binding`, signed by `signer` for now's step: kept for the
    /// step (per list and question), so every request within it gets the same bytes, ETag and signature (304s and
    /// caches keep working).
    ///
    /// - Throws: `KeyError.cryptoFailure` when OpenSSL cannot sign; nothing is kept, so the next request retries.
    public func signedAnswer(
        for decision: ThemeDecision, answering binding: AnswerBinding, by signer: AnswerSigner, at now: Date
    ) throws(KeyError) -> SignedThemeList {
        let step = signer.step(at: now)
        let key = SignedThemeListKey(
            list: ThemeListKey(themes: decision.themes.map(ObjectIdentifier.init), slot: decision.variant.slot),
            binding: binding)
        return try signed.value(step: step, key: key) { () throws(KeyError) -> SignedThemeList in
            let body = try signer.sign(jsonObject: answer(for: decision).body, answering: binding, step: step)
            return SignedThemeList(
                answer: ThemeListAnswer(body: body.body), signature: body.signature, expiresAt: body.expiresAt)
        }
    }

    /// How many lists are kept, and the bytes of their bodies: unsigned and signed (the current step's).
    public var held: (unsigned: (count: Int, bytes: Int), signed: (count: Int, bytes: Int)) {
        (kept.withLock { ($0.answers.count, $0.bytes) }, signed.held)
    }
}

extension SignedThemeList {
    /// The bytes keeping it holds: its body, tag and signature.
    var byteCount: Int { answer.body.count + answer.etag.utf8.count + signature.utf8.count }
}

/// Identifies a theme list by its themes' identities (objects of the catalog the list was built from) and the
/// variant's slot.
struct ThemeListKey: Hashable, Sendable {
    let themes: [ObjectIdentifier]
    let slot: Int
}

/// A signed theme list's key: the list and the question it names.
struct SignedThemeListKey: Hashable, Sendable {
    let list: ThemeListKey
    let binding: AnswerBinding
}
