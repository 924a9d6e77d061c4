import Foundation
import LiveryCrypto
import Synchronization

/// A poll answer signed for one step of an `AnswerSigner`: its body ends with `"expiresAt"`, its entity tag follows
/// that body, and `signature` is the `Livery-Signature` value over it.
public struct SignedAnswer: Sendable, Equatable {
    /// The signed answer (`skinSign` as unsigned; `body` and `etag` with `expiresAt`).
    public let answer: SkinAnswer
    /// The `Livery-Signature` header value.
    public let signature: String
    /// The body's `expiresAt`.
    public let expiresAt: Date
}

/// The signed poll answers of one published catalog for the current step of an `AnswerSigner`, each kept with what
/// an adapter derives from it (`Prepared`, such as its encoded header fields).
///
/// Each answer is signed the first time a poll needs it within a step and kept until the step moves: a poll that
/// finds its answer takes a lock, looks up two object identities and a variant, and copies what was prepared, with
/// no signing, hashing or allocation. When the step moves, the first poll of each answer signs it again (bodies
/// carry the step's `expiresAt`, so they change). Two polls signing the same answer at once keep the first one
/// stored, so every poll within a step gets the same signature. At most `AnswerFragments.precomputedLimit` answers
/// are kept; past that the table starts over.
public final class SignedAnswers<Prepared: Sendable>: Sendable {
    public let signer: AnswerSigner
    private let prepare: @Sendable (SignedAnswer) -> Prepared

    private struct Table: ~Copyable {
        var step: Int64 = .min
        var answers: [AnswerKey: Prepared] = [:]
    }

    private let table = Mutex(Table())

    /// - Parameters:
    ///   - signer: signs the bodies (one for every catalog, so unchanged bodies keep their signatures).
    ///   - prepare: what to keep for each signed answer; called once per answer and step.
    public init(signer: AnswerSigner, prepare: @escaping @Sendable (SignedAnswer) -> Prepared) {
        self.signer = signer
        self.prepare = prepare
    }

    /// What was prepared for the signed answer to `decision` at `now`: from the table, or `fragments`' answer signed
    /// for now's step.
    ///
    /// - Throws: `KeyError.cryptoFailure` when OpenSSL cannot sign; nothing is stored, so the next poll retries.
    public func answer(for decision: SkinDecision, from fragments: AnswerFragments, at now: Date) throws(KeyError) -> Prepared {
        let step = signer.step(at: now)
        let key = AnswerKey(current: decision.current, next: decision.next, variant: decision.variant)
        if let found = table.withLock({ $0.step == step ? $0.answers[key] : nil }) { return found }
        let unsigned = fragments.answer(for: decision)
        let signed = try signer.sign(jsonObject: unsigned.body, step: step)
        let prepared = prepare(
            SignedAnswer(
                answer: SkinAnswer(skinSign: unsigned.skinSign, body: signed.body), signature: signed.signature,
                expiresAt: signed.expiresAt))
        return table.withLock { table in
            if table.step != step {
                // A clock that went back keeps the newer step's table; this answer is used once.
                guard step > table.step else { return prepared }
                table.step = step
                table.answers.removeAll(keepingCapacity: true)
            }
            if let stored = table.answers[key] { return stored }
            if table.answers.count >= AnswerFragments.precomputedLimit { table.answers.removeAll(keepingCapacity: true) }
            table.answers[key] = prepared
            return prepared
        }
    }
}

extension SkinAnswer {
    /// An answer whose body is `body` as it is (a signed body), tagged with its digest.
    init(skinSign: String, body: [UInt8]) {
        self.skinSign = skinSign
        self.body = body
        self.etag = Self.etag(of: body)
    }
}
