import LiveryProtocol

/// The server's key ring: `LiveryProtocol.KeyRing` holding OpenSSL's public keys (the SDK holds swift-crypto's in the
/// same ring, so both check a `Livery-Signature` in the same order with the same failures).
public typealias PublicKeyRing = KeyRing<PublicKey>

extension PublicKey: SignatureVerifier {
    /// `derRepresentation`: two keys are the same key when their SubjectPublicKeyInfo bytes are equal.
    public var subjectPublicKeyInfo: [UInt8] { derRepresentation }
}
