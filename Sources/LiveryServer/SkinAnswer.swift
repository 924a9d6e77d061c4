import Foundation
import LiveryHTTP
import SkinModel

/// The client API's answer to a poll: JSON body bytes plus the values its caching headers need.
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
    /// The response's header fields when the answer may be cached for the longest max-age (no schedule boundary
    /// comes sooner): `Content-Type`, `ETag` and `Cache-Control`, encoded once (`HTTPHeaders.encodedForReuse()`).
    public let headers: HTTPHeaders

    /// Builds the answer for `decision`.
    public init(decision: SkinDecision, fragments: AnswerFragments) {
        var body: [UInt8] = []
        body.reserveCapacity(512)
        var tag = "\""
        if let record = decision.currentPackage, let fragment = fragments[record.sign] {
            body.append(UInt8(ascii: "{"))
            body.append(contentsOf: fragment)
            skinSign = record.sign
            tag += record.sign
        } else {
            body.append(contentsOf: Array(#"{"skinSign":"""#.utf8))
            skinSign = ""
            tag += "none"
        }
        if let next = decision.nextPackage, let fragment = fragments[next.sign] {
            body.append(contentsOf: Array(#","next":{"#.utf8))
            body.append(contentsOf: fragment)
            body.append(UInt8(ascii: "}"))
            tag += "." + next.sign
        }
        body.append(UInt8(ascii: "}"))
        self.body = body
        self.etag = tag + "\""
        self.headers = Self.headers(etag: etag, maxAge: fragments.maxAge).encodedForReuse()
    }

    /// The header fields of an answer tagged `etag` that may be cached for `maxAge` seconds.
    public static func headers(etag: String, maxAge: Int) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(3)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Cache-Control", value: "public, max-age=\(maxAge)")
        return headers
    }
}

/// Precomputed JSON members (without braces) describing each package:
/// `"skinSign":…,"skinId":…,"packageUrl":…,"sha256":…,"size":…,"startsAt":…,"endsAt":…`.
public struct AnswerFragments: Sendable {
    private let bySign: [String: [UInt8]]
    /// Every answer a poll can get from this catalog, keyed by the identities of its (current, next) package
    /// records; built once, read without locks. Empty when the catalog would need more than `precomputedLimit`.
    private let answers: [AnswerKey: SkinAnswer]
    /// The records whose identities key `answers`, kept alive so no other object can take their addresses.
    private let keyedRecords: [PackageRecord]
    /// The longest `Cache-Control: max-age` of an answer, in seconds (`SkinAnswer.headers`).
    let maxAge: Int

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
        var bySign: [String: [UInt8]] = [:]
        for skins in catalog.releases.values {
            for skin in skins {
                let startsAt = Self.instantText(skin.release.startsAt, written: skin.release.startsAtText, skin.release.timeZone)
                let endsAt = Self.instantText(skin.release.endsAt, written: skin.release.endsAtText, skin.release.timeZone)
                for record in skin.packages.values {
                    let text =
                        #""skinSign":\#(Self.quote(record.sign)),"skinId":\#(Self.quote(skin.skinID.rawValue)),"#
                        + #""packageUrl":\#(Self.quote(packageURLPrefix + record.sign + ".zip")),"#
                        + #""sha256":\#(Self.quote(record.sha256)),"size":\#(record.size),"#
                        + #""startsAt":\#(Self.quote(startsAt)),"endsAt":\#(Self.quote(endsAt))"#
                    bySign[record.sign] = Array(text.utf8)
                }
            }
        }
        self.bySign = bySign
        self.answers = Self.precompute(catalog, bySign: bySign, maxAge: self.maxAge)
        self.keyedRecords = catalog.releases.values.flatMap { skins in skins.flatMap { $0.packages.values } }
    }

    subscript(sign: String) -> [UInt8]? { bySign[sign] }

    /// The answer for `decision`: precomputed when the catalog was published, so a poll costs a lookup of two
    /// object identities instead of assembling bytes.
    public func answer(for decision: SkinDecision) -> SkinAnswer {
        let key = AnswerKey(current: decision.currentPackage, next: decision.nextPackage)
        return answers[key] ?? SkinAnswer(decision: decision, fragments: self)
    }

    private static func precompute(
        _ catalog: Catalog, bySign: [String: [UInt8]], maxAge: Int
    ) -> [AnswerKey: SkinAnswer] {
        let count = catalog.releases.values.reduce(0) { total, skins in
            total + (skins.count + 1) * (skins.count + 1) * PackageVariant.slotCount
        }
        guard count <= precomputedLimit else { return [:] }
        let assembler = AnswerFragments(bySign: bySign, maxAge: maxAge)
        var answers: [AnswerKey: SkinAnswer] = [:]
        answers.reserveCapacity(count)
        for skins in catalog.releases.values {
            for variant in PackageVariant.all {
                let records = [nil] + skins.map { $0.package(for: variant) }
                for current in records {
                    for next in records {
                        var decision = SkinDecision()
                        decision.currentPackage = current
                        decision.nextPackage = next
                        answers[AnswerKey(current: current, next: next)] =
                            SkinAnswer(decision: decision, fragments: assembler)
                    }
                }
            }
        }
        return answers
    }

    private init(bySign: [String: [UInt8]], maxAge: Int) {
        self.maxAge = maxAge
        self.bySign = bySign
        self.answers = [:]
        self.keyedRecords = []
    }

    /// An instant as ISO 8601 with an offset: as written when `skin.json` gave an offset, otherwise (a local
    /// date-time with a `timeZone`) with that zone's offset at that instant.
    static func instantText(_ date: Date, written: String, _ timeZone: String?) -> String {
        guard let name = timeZone, let zone = TimeZone(identifier: name) else { return written }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = zone
        return formatter.string(from: date)
    }

    /// A JSON string literal for `text`.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Identifies an answer by the package records it describes. Records are immutable objects owned by the catalog
/// that the answers were built from, so their identities are stable for as long as that catalog is served.
struct AnswerKey: Hashable, Sendable {
    let current: ObjectIdentifier?
    let next: ObjectIdentifier?

    init(current: PackageRecord?, next: PackageRecord?) {
        self.current = current.map(ObjectIdentifier.init)
        self.next = next.map(ObjectIdentifier.init)
    }
}
