import Foundation
import LiveryCrypto
import LiveryProtocol
import SkinModel

/// Signs JSON answers (poll answers and theme lists): the one entry point for a signed body.
///
/// A signed body ends with the question it answers (`AnswerBinding`: `app`, `platform`, `scale`, `appearance`) and
/// then `expiresAt`, so it verifies only as the answer to that question, and only until then.
///
/// Time is cut into steps of `period` seconds (the answers' max-age, at least 1 s). A body signed in step `k` gets
/// `"expiresAt"` = the end of step `k` plus `clockSkew` (5 minutes), so it is never more than max-age + 5 minutes
/// ahead of the signing instant, and every request within one step gets the same bytes: the body, its ETag and its
/// `Livery-Signature` change only when the step moves (304s and CDN caches keep working). Signatures come from one
/// `ResponseSigner`, which signs each distinct body once and repeats the value: a catalog published again within a
/// step keeps the signatures of the bodies it did not change.
///
/// Signing is an ECDSA operation and allocates: callers cache what `sign` returns per step (`SignedAnswers` does
/// for poll answers), so a request that finds its answer in the cache does neither.
public struct AnswerSigner: Sendable {
    /// The clock skew apps are allowed, added to the end of the step in `expiresAt`: 5 minutes.
    public static let clockSkew = 300

    /// Makes the `Livery-Signature` values; its key's id is the header's `keyid`.
    public let signer: ResponseSigner
    /// Length of a step in seconds (at least 1).
    public let period: Int

    /// - Parameters:
    ///   - key: the active key (`--signing-key`).
    ///   - maxAge: the answers' longest `Cache-Control: max-age` in seconds; a step lasts as long (at least 1 s).
    public init(key: any BodySigner, maxAge: Int) {
        self.signer = ResponseSigner(signer: key)
        self.period = max(1, maxAge)
    }

    /// The step `now` falls in (steps are counted from 1970-01-01T00:00:00Z).
    public func step(at now: Date) -> Int64 {
        let seconds = now.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
        return Int64((seconds / Double(period)).rounded(.down))
    }

    /// The `expiresAt` of every body signed in `step`: the step's end plus `clockSkew`.
    public func expiresAt(step: Int64) -> Date {
        Date(timeIntervalSince1970: Double((step + 1) * Int64(period) + Int64(Self.clockSkew)))
    }

    /// A JSON object's bytes with the question it answers (`binding`'s members) and then `"expiresAt"` for `step`
    /// added as its last members, and their signature.
    ///
    /// - Parameter jsonObject: a serialized JSON object (`{…}`, no whitespace after the closing brace), as the
    ///   answers Livery precomputes are.
    /// - Throws: `KeyError.cryptoFailure` when OpenSSL cannot sign.
    public func sign(jsonObject: [UInt8], answering binding: AnswerBinding, step: Int64) throws(KeyError) -> SignedBody
    {
        try sign(jsonObject, appending: binding.members, step: step)
    }

    /// A JSON object that names its own question with `"expiresAt"` for `step` added as its last member, and their
    /// signature: the catalog document, whose first members are the `app` and `platform` it answers for (and which
    /// has no scale or appearance: it lists every variant).
    ///
    /// - Throws: `KeyError.cryptoFailure` when OpenSSL cannot sign.
    public func sign(namingItsQuestion jsonObject: [UInt8], step: Int64) throws(KeyError) -> SignedBody {
        try sign(jsonObject, appending: [], step: step)
    }

    /// `jsonObject` with `members` (unless empty) and `expiresAt` appended, signed.
    private func sign(_ jsonObject: [UInt8], appending members: [UInt8], step: Int64) throws(KeyError) -> SignedBody {
        let expiresAt = expiresAt(step: step)
        var body = jsonObject
        let closing = body.popLast()
        assert(closing == UInt8(ascii: "}"), "not a serialized JSON object")
        if body.last != UInt8(ascii: "{") { body.append(UInt8(ascii: ",")) }
        if !members.isEmpty {
            body.append(contentsOf: members)
            body.append(UInt8(ascii: ","))
        }
        body.append(contentsOf: #""expiresAt":"\#(ISO8601Instant.format(expiresAt))"}"#.utf8)
        return SignedBody(body: body, signature: try signer.headerValue(for: body), expiresAt: expiresAt)
    }
}

/// A signed JSON body: the exact bytes sent, the `Livery-Signature` value over them, and the instant they state.
public struct SignedBody: Sendable, Equatable {
    /// The body, `expiresAt` included.
    public let body: [UInt8]
    /// The value of the `Livery-Signature` header (`SignatureHeader.name`).
    public let signature: String
    /// The body's `expiresAt`.
    public let expiresAt: Date
}
