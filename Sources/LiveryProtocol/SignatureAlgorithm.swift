/// The signature algorithms Livery knows. There is one; the header names it so another can be added later without
/// ambiguity.
public enum SignatureAlgorithm: String, Sendable, CaseIterable {
    /// ECDSA on NIST P-256 over the SHA-256 of the bytes; the signature is DER (`SEQUENCE { INTEGER r, INTEGER s }`),
    /// as OpenSSL, Java's `SHA256withECDSA` and CryptoKit's `ECDSASignature(derRepresentation:)` read it, and not
    /// the raw 64-byte `r || s` of JOSE's ES256 or RFC 9421.
    case ecdsaP256SHA256 = "ecdsa-p256-sha256"
}
