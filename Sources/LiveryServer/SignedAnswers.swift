import Foundation
import LiveryCrypto
import LiveryHTTP
import Synchronization

/// The signed poll answers of one published catalog, for the current step of an `AnswerSigner`.
///
/// Each answer is signed the first time a poll needs it within a step and kept until the step moves: a poll that
/// finds its answer takes a lock, looks up two object identities and a variant, and copies a reference, with no
/// signing, hashing or allocation. When the step moves, the first poll of each answer signs it again (bodies carry
/// the step's `expiresAt`, so they change). Two polls signing the same answer at once keep the first one stored, so
/// every poll within a step gets the same signature. At most `AnswerFragments.precomputedLimit` answers are kept;
/// past that the table starts over (catalogs that large assemble answers per poll anyway).
final class SignedAnswers: Sendable {
    let signer: AnswerSigner

    private struct Table {
        var step: Int64 = .min
        var answers: [AnswerKey: SkinAnswer] = [:]
    }

    private let table = Mutex(Table())

    init(signer: AnswerSigner) {
        self.signer = signer
    }

    /// The signed answer for `decision` at `now`: from the table, or `fragments`' answer signed for now's step.
    ///
    /// - Throws: `APIError.signingFailed` (503) when OpenSSL cannot sign; nothing is stored, so the next poll
    ///   retries.
    func answer(for decision: SkinDecision, from fragments: AnswerFragments, at now: Date) throws(APIError) -> SkinAnswer {
        let step = signer.step(at: now)
        let key = AnswerKey(current: decision.current, next: decision.next, variant: decision.variant)
        if let found = table.withLock({ $0.step == step ? $0.answers[key] : nil }) { return found }
        let signed: SkinAnswer
        do {
            signed = try SkinAnswer(signing: fragments.answer(for: decision), with: signer, step: step, maxAge: fragments.maxAge)
        } catch {
            throw .signingFailed
        }
        return table.withLock { table in
            if table.step != step {
                // A clock that went back keeps the newer step's table; this answer is used once.
                guard step > table.step else { return signed }
                table.step = step
                table.answers.removeAll(keepingCapacity: true)
            }
            if let stored = table.answers[key] { return stored }
            if table.answers.count >= AnswerFragments.precomputedLimit { table.answers.removeAll(keepingCapacity: true) }
            table.answers[key] = signed
            return signed
        }
    }
}

extension ClientAPI.Snapshot {
    /// The answer for `decision` at `now`, and the `expiresAt` its body states (nil when answers are not signed).
    func answer(for decision: SkinDecision, at now: Date) throws(APIError) -> (SkinAnswer, expiresAt: Date?) {
        guard let signed else { return (fragments.answer(for: decision), nil) }
        let answer = try signed.answer(for: decision, from: fragments, at: now)
        return (answer, signed.signer.expiresAt(step: signed.signer.step(at: now)))
    }
}

extension SkinAnswer {
    /// `unsigned` with `"expiresAt"` for `step` added to its body, signed: the entity tag follows the signed body,
    /// and the headers carry `Livery-Signature` (200s only; a 304 has no body to sign).
    init(signing unsigned: SkinAnswer, with signer: AnswerSigner, step: Int64, maxAge: Int) throws(KeyError) {
        let signed = try signer.sign(jsonObject: unsigned.body, step: step)
        skinSign = unsigned.skinSign
        body = signed.body
        etag = Self.etag(of: signed.body)
        var headers = Self.headers(etag: etag, maxAge: maxAge)
        headers.add(name: SignatureHeader.name, value: signed.signature)
        self.headers = headers.encodedForReuse()
        notModifiedHeaders = Self.headers(etag: etag, maxAge: maxAge, notModified: true).encodedForReuse()
    }
}

extension APIError {
    /// 503 when the answer cannot be signed (OpenSSL failed), with `Retry-After: 1`: an app that checks
    /// signatures must never be given an unsigned answer, nor "no skin".
    static let signingFailed = APIError(
        .serviceUnavailable, code: "signing_failed", message: "The answer could not be signed; retry in a moment.",
        details: fields("server", "signing"), headers: HTTPHeaders([("Retry-After", "1")]))
}
