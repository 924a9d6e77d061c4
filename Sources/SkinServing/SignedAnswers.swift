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
/// A signed answer names the question it answers (`AnswerBinding`), so answers are kept per decision and question:
/// two apps, platforms or variants with the same decision get bodies of their own. Each answer is signed the first
/// time a poll needs it within a step and kept until the step moves: a poll that finds its answer takes a lock,
/// looks up two object identities, a variant and the question, and copies what was prepared, with no signing or
/// allocation. When the step moves, the first poll of each answer signs it again (bodies carry the step's
/// `expiresAt`, so they change). Two polls signing the same answer at once keep the first one stored, so every poll
/// within a step gets the same signature. At most `AnswerFragments.precomputedLimit` answers, of at most
/// `keptBytesLimit` bytes together, are kept; past either the table starts over, so what a stream of made-up app
/// names costs is signing, never memory.
public final class SignedAnswers<Prepared: Sendable>: Sendable {
    public let signer: AnswerSigner
    private let prepare: @Sendable (SignedAnswer) -> Prepared

    /// Most bytes of signed bodies and signatures kept (as `ThemeListFragments.keptBytesLimit` for theme lists).
    public static var keptBytesLimit: Int { ThemeListFragments.keptBytesLimit }
    /// Most answers kept per step (as many as a catalog precomputes unsigned).
    public static var keptLimit: Int { AnswerFragments.precomputedLimit }

    private let table: StepTable<SignedAnswerKey, Kept>

    /// A prepared answer and the bytes its signed answer holds.
    private struct Kept: Sendable {
        let prepared: Prepared
        let bytes: Int
    }

    /// - Parameters:
    ///   - signer: signs the bodies (one for every catalog, so unchanged bodies keep their signatures).
    ///   - keptLimit, keptBytesLimit: most answers, and most bytes of their bodies and signatures, kept per step.
    ///   - prepare: what to keep for each signed answer; called once per answer and step.
    public init(
        signer: AnswerSigner, keptLimit: Int = SignedAnswers.keptLimit,
        keptBytesLimit: Int = SignedAnswers.keptBytesLimit,
        prepare: @escaping @Sendable (SignedAnswer) -> Prepared
    ) {
        self.signer = signer
        self.prepare = prepare
        self.table = StepTable(limit: keptLimit, byteLimit: keptBytesLimit) { $0.bytes }
    }

    /// What was prepared for the signed answer to `decision` for the question `binding` at `now`: from the table, or
    /// `fragments`' answer signed for now's step.
    ///
    /// - Throws: `KeyError.cryptoFailure` when OpenSSL cannot sign; nothing is stored, so the next poll retries.
    public func answer(
        for decision: SkinDecision, answering binding: AnswerBinding, from fragments: AnswerFragments, at now: Date
    ) throws(KeyError) -> Prepared {
        let step = signer.step(at: now)
        let key = SignedAnswerKey(
            answer: AnswerKey(current: decision.current, next: decision.next, variant: decision.variant),
            binding: binding)
        return try table.value(step: step, key: key) { () throws(KeyError) -> Kept in
            let unsigned = fragments.answer(for: decision)
            let signed = try signer.sign(jsonObject: unsigned.body, answering: binding, step: step)
            return Kept(
                prepared: prepare(
                    SignedAnswer(
                        answer: SkinAnswer(skinSign: unsigned.skinSign, body: signed.body), signature: signed.signature,
                        expiresAt: signed.expiresAt)),
                bytes: signed.body.count + signed.signature.utf8.count)
        }.prepared
    }

    /// How many answers are kept for the current step, and the bytes of their bodies and signatures.
    public var held: (count: Int, bytes: Int) { table.held }
}

/// A signed answer's key: the answer (its releases and variant) and the question it names.
struct SignedAnswerKey: Hashable, Sendable {
    let answer: AnswerKey
    let binding: AnswerBinding
}

/// Values made for the current step of an `AnswerSigner`, by key: each made the first time it is asked for within a
/// step and kept until the step moves (then the table starts over). Two callers making the same value at once keep
/// the first one stored, so every caller within a step gets the same value; a step older than the table's (a clock
/// that went back) gets its value once, without replacing the newer step's. At most `limit` values, and values of at
/// most `byteLimit` bytes together (as `cost` counts them), are kept; a value that would pass either starts the table
/// over, and one costing more than `byteLimit` alone is returned without being kept. So the memory held stays bounded
/// whatever the mix of keys asked for.
final class StepTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Table: ~Copyable {
        var step: Int64 = .min
        var values: [Key: Value] = [:]
        /// The sum of `cost` over `values`.
        var bytes = 0
    }

    private let table = Mutex(Table())
    private let limit: Int
    private let byteLimit: Int
    private let cost: @Sendable (Value) -> Int

    /// - Parameters:
    ///   - limit: most values kept.
    ///   - byteLimit: most bytes kept, as `cost` counts a value's.
    ///   - cost: a value's bytes (what keeping it holds in memory); by default every value counts 0.
    init(limit: Int, byteLimit: Int = .max, cost: @escaping @Sendable (Value) -> Int = { _ in 0 }) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.cost = cost
    }

    /// The value for `key` in `step`: kept, or made by `make` (outside the lock) and kept.
    ///
    /// - Throws: what `make` throws; nothing is kept, so the next call retries.
    func value(step: Int64, key: Key, make: () throws(KeyError) -> Value) throws(KeyError) -> Value {
        if let found = table.withLock({ $0.step == step ? $0.values[key] : nil }) { return found }
        let made = try make()
        let bytes = cost(made)
        return table.withLock { table in
            if table.step != step {
                guard step > table.step else { return made }
                table.step = step
                table.values.removeAll(keepingCapacity: true)
                table.bytes = 0
            }
            if let stored = table.values[key] { return stored }
            guard bytes <= byteLimit else { return made }
            if table.values.count >= limit || table.bytes > byteLimit - bytes {
                table.values.removeAll(keepingCapacity: true)
                table.bytes = 0
            }
            table.values[key] = made
            table.bytes += bytes
            return made
        }
    }

    /// How many values are kept and the bytes they hold, as `cost` counts them, summed afresh.
    var held: (count: Int, bytes: Int) {
        table.withLock { table in (table.values.count, table.values.values.reduce(0) { $0 + cost($1) }) }
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
