import LiveryProtocol
import Synchronization

/// What `ResponseSigner` signs with: a `SigningKey`, or in tests a wrapper that counts.
public protocol BodySigner: Sendable {
    /// Sent as the header's `keyid`.
    var id: KeyID { get }
    /// Sent as the header's `alg`.
    var algorithm: SignatureAlgorithm { get }
    /// The signature of `bytes`.
    func sign(_ bytes: [UInt8]) throws(KeyError) -> [UInt8]
}

extension SigningKey: BodySigner {}

/// Makes `Livery-Signature` header values for response bodies, signing each distinct body once.
///
/// Answers are few and repeat (every poll in a cache period gets the same bytes), so signatures are cached by the
/// body's SHA-256: the first request for a body signs it, every later one gets the same header value (so the
/// header is as stable as the body, its ETag and any CDN copy). Concurrent first requests for one body wait for a
/// single signing; requests for other bodies neither wait for it nor for each other's signing.
///
/// The cache is bounded: it holds at most `capacity` bodies' values, in two generations (a lookup in the older one
/// moves the entry to the newer one; when the newer one fills up to half the capacity the older one is dropped),
/// so bodies still in use stay and old ones age out, at O(1) per request. Thread-safe.
public final class ResponseSigner: Sendable {
    /// The key that signs.
    public let signer: any BodySigner
    /// Most bodies whose header values are kept (at least 2).
    public let capacity: Int

    /// A body's header value, made once: the mutex serializes the first signers of one body.
    private final class Slot: Sendable {
        let value = Mutex<String?>(nil)
    }

    private struct Generations {
        var current: [[UInt8]: Slot] = [:]
        var previous: [[UInt8]: Slot] = [:]
    }

    private let slots = Mutex(Generations())

    /// - Parameters:
    ///   - signer: the key (the active `SigningKey`).
    ///   - capacity: most distinct bodies remembered (default 1024; raised to 2 if lower).
    public init(signer: any BodySigner, capacity: Int = 1024) {
        self.signer = signer
        self.capacity = max(2, capacity)
    }

    /// The `Livery-Signature` value for `body`: signed on the first call for these bytes, from the cache after.
    ///
    /// - Throws: `KeyError.cryptoFailure` when OpenSSL cannot sign; nothing is cached then, so a later call retries.
    public func headerValue(for body: [UInt8]) throws(KeyError) -> String {
        let digest = SHA256.hash(body)
        let slot = slots.withLock { generations -> Slot in
            if let slot = generations.current[digest] { return slot }
            let slot = generations.previous.removeValue(forKey: digest) ?? Slot()
            if generations.current.count >= capacity / 2 {
                generations.previous = generations.current
                generations.current = [:]
            }
            generations.current[digest] = slot
            return slot
        }
        return try slot.value.withLock { value throws(KeyError) -> String in
            if let value { return value }
            let header = SignatureHeader(
                keyID: signer.id, algorithm: signer.algorithm, signature: try signer.sign(body)
            )
            .format()
            value = header
            return header
        }
    }

    /// How many bodies' values are cached now (at most `capacity`).
    public var cachedCount: Int { slots.withLock { $0.current.count + $0.previous.count } }
}
