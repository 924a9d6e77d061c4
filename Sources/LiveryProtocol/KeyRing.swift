/// The public keys a verifier trusts, by id: what an app embeds, several at once so keys can rotate (a new key
/// signs while apps that know both still accept answers signed by the old one).
///
/// Generic over the key type, so the server (OpenSSL) and the SDK (swift-crypto) check a `Livery-Signature` in the
/// same order with the same failures: the header is parsed, its key id looked up, its algorithm and the
/// signature's DER shape checked, and only then is the signature verified against the body.
public struct KeyRing<Key: SignatureVerifier>: Sendable {
    /// Why a body and its `Livery-Signature` value do not verify.
    public typealias Failure = SignatureVerificationFailure

    /// The keys by id.
    public private(set) var keys: [KeyID: Key] = [:]

    public init() {}

    /// Adds `key` under `id`; `false` (and nothing changes) when the ring already holds another key by that id.
    /// Adding the same key (the same SubjectPublicKeyInfo) again is harmless.
    @discardableResult
    public mutating func add(_ key: Key, id: KeyID) -> Bool {
        if let existing = keys[id] { return existing.subjectPublicKeyInfo == key.subjectPublicKeyInfo }
        keys[id] = key
        return true
    }

    /// Checks that `headerValue` is a valid `Livery-Signature` of exactly `body` by a key of the ring; returns the
    /// parsed header.
    @discardableResult
    public func verify(body: [UInt8], headerValue: some StringProtocol) throws(Failure) -> SignatureHeader {
        let header: SignatureHeader
        do {
            header = try SignatureHeader.parse(headerValue)
        } catch {
            throw .malformedHeader(error)
        }
        try verify(body: body, header: header)
        return header
    }

    /// Checks that `header` is a valid signature of exactly `body` by a key of the ring.
    public func verify(body: [UInt8], header: SignatureHeader) throws(Failure) {
        guard let key = keys[header.keyID] else { throw .unknownKeyID(header.keyID, known: keys.keys.sorted()) }
        guard header.algorithm == .ecdsaP256SHA256 else { throw .unsupportedAlgorithm(header.algorithmName) }
        guard ECDSASignatureDER.isWellFormed(header.signature) else { throw .malformedSignature }
        guard key.isValidSignature(header.signature, for: body) else { throw .bodyChanged(header.keyID) }
    }
}

/// Why a body and its `Livery-Signature` value do not verify (`KeyRing.Failure`).
public enum SignatureVerificationFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The header could not be parsed.
    case malformedHeader(SignatureHeader.ParseError)
    /// The header names a key the ring does not hold (`known` lists the ids it does).
    case unknownKeyID(KeyID, known: [KeyID])
    /// The header names an algorithm other than `ecdsa-p256-sha256`.
    case unsupportedAlgorithm(String)
    /// The signature is not a DER ECDSA signature at all: it was damaged or made by something else.
    case malformedSignature
    /// A well-formed signature by a known key that does not match the body: the body was changed after
    /// signing (or a different key was given the same id).
    case bodyChanged(KeyID)

    public var description: String {
        switch self {
        case .malformedHeader(let error): "bad signature: the Livery-Signature header is \(error)"
        case .unknownKeyID(let id, let known):
            "unknown keyid '\(id)': the public keys given are \(known.map { "'\($0)'" }.joined(separator: ", "))"
        case .unsupportedAlgorithm(let name):
            "bad signature: alg '\(name)' is not \(SignatureAlgorithm.ecdsaP256SHA256.rawValue)"
        case .malformedSignature: "bad signature: sig is not a DER-encoded ECDSA signature"
        case .bodyChanged(let id):
            "body changed: the signature by keyid '\(id)' does not match the body's bytes"
        }
    }
}
