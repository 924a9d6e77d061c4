import Foundation
import SkinModel
import Synchronization

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
    }
}

/// Precomputed JSON members (without braces) describing each package:
/// `"skinSign":…,"skinId":…,"packageUrl":…,"sha256":…,"size":…,"startsAt":…,"endsAt":…`.
public struct AnswerFragments: Sendable {
    private let bySign: [String: [UInt8]]
    private let memo = AnswerMemo()

    /// Renders a fragment for every package of every released skin in `catalog`.
    ///
    /// - Parameter packageURLPrefix: prepended to `<sign>.zip` (default `/api/v1/packages/`; a CDN origin may be
    ///   configured instead). Must not contain characters that need JSON escaping; `init` escapes it regardless.
    public init(catalog: Catalog, packageURLPrefix: String = "/api/v1/packages/") {
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
    }

    subscript(sign: String) -> [UInt8]? { bySign[sign] }

    /// The answer for `decision`, built once per (current, next) package pair and then reused: the body depends
    /// on nothing else, so a poll costs a dictionary lookup instead of assembling bytes.
    public func answer(for decision: SkinDecision) -> SkinAnswer {
        let key = AnswerMemo.Key(current: decision.currentPackage?.sign, next: decision.nextPackage?.sign)
        if let hit = memo.lookup(key) { return hit }
        let answer = SkinAnswer(decision: decision, fragments: self)
        memo.store(answer, for: key)
        return answer
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

/// Answers already assembled, per (current, next) sign pair. Bounded: cleared when it reaches `capacity` entries
/// (there are at most (skins + 1)² pairs per variant, so this only matters for very large catalogs).
final class AnswerMemo: Sendable {
    struct Key: Hashable, Sendable {
        let current: String?
        let next: String?
    }

    static let capacity = 4096
    private let table = Mutex<[Key: SkinAnswer]>([:])

    func lookup(_ key: Key) -> SkinAnswer? { table.withLock { $0[key] } }

    func store(_ answer: SkinAnswer, for key: Key) {
        table.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[key] = answer
        }
    }
}
