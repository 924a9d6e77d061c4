import Foundation
import LiveryHTTP
import SkinServing

/// A poll answer ready to send: the answer, its encoded header fields, and (signed) the `expiresAt` its body states.
struct PreparedAnswer: Sendable {
    let answer: SkinAnswer
    let headers: AnswerHeaders
    /// nil when answers are not signed.
    let expiresAt: Date?

    /// A table of signed answers whose header fields (`Livery-Signature` included) are encoded once per answer and
    /// step.
    static func table(signer: AnswerSigner, maxAge: Int) -> SignedAnswers<PreparedAnswer> {
        SignedAnswers(signer: signer) { signed in
            PreparedAnswer(
                answer: signed.answer,
                headers: AnswerHeaders(signed.answer, maxAge: maxAge, signature: signed.signature),
                expiresAt: signed.expiresAt)
        }
    }
}

extension ClientAPI.Snapshot {
    /// The answer for `decision` to `query` at `now`: signed for now's step when answers are signed (naming the
    /// question, `AnswerBinding`), else precomputed (or, past `AnswerFragments.precomputedLimit`, assembled), the
    /// same bytes for every question with this decision.
    ///
    /// - Throws: `APIError.signingFailed` (503) when OpenSSL cannot sign.
    func answer(for decision: SkinDecision, to query: SkinRequest, at now: Date) throws(APIError) -> PreparedAnswer {
        if let signed {
            do {
                return try signed.answer(for: decision, answering: AnswerBinding(query), from: fragments, at: now)
            } catch {
                throw .signingFailed
            }
        }
        if let index = fragments.precomputedIndex(for: decision) {
            return PreparedAnswer(answer: fragments.precomputed[index], headers: headers[index], expiresAt: nil)
        }
        let answer = SkinAnswer(decision: decision, fragments: fragments)
        return PreparedAnswer(answer: answer, headers: AnswerHeaders(answer, maxAge: fragments.maxAge), expiresAt: nil)
    }
}

extension APIError {
    /// 503 when the answer cannot be signed (OpenSSL failed), with `Retry-After: 1`: an app that checks
    /// signatures must never be given an unsigned answer, nor "no skin".
    static let signingFailed = APIError(
        .serviceUnavailable, code: "signing_failed", message: "The answer could not be signed; retry in a moment.",
        details: fields("server", "signing"), headers: HTTPHeaders([("Retry-After", "1")]))
}
