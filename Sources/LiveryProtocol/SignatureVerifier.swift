/// A public key that checks `Livery-Signature` signatures: what a `KeyRing` holds.
///
/// The server conforms OpenSSL's key (`LiveryCrypto.PublicKey`); the SDK conforms swift-crypto's
/// `P256.Signing.PublicKey`. Both answer the same question the same way, so the order of the checks lives once, in
/// `KeyRing.verify`.
public protocol SignatureVerifier: Sendable {
    /// The key's SubjectPublicKeyInfo DER encoding: two keys are the same key when these bytes are equal.
    var subjectPublicKeyInfo: [UInt8] { get }

    /// Whether `signature` (DER `SEQUENCE { INTEGER r, INTEGER s }`, see `SignatureAlgorithm.ecdsaP256SHA256`) is
    /// this key's ECDSA P-256 signature of the SHA-256 of exactly `message`.
    ///
    /// Any malformed signature is simply not valid: this never throws and never traps on its input.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool
}
