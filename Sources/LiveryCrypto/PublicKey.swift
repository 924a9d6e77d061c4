import COpenSSL
import LiveryProtocol

/// An ECDSA P-256 public key: what apps embed and what verifies Livery's signatures.
///
/// Apps embed it as base64 of its SubjectPublicKeyInfo DER (`base64`), the form Java's `X509EncodedKeySpec` and
/// CryptoKit's `P256.Signing.PublicKey(derRepresentation:)` read; operators keep it as PEM (`pem`), which
/// `openssl pkey -pubin` reads.
public final class PublicKey: Equatable, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: `key` is an EVP_PKEY that is never modified after init; OpenSSL lets several threads
    // verify with one key at once, each with its own EVP_MD_CTX.
    private let key: OpaquePointer
    /// The SubjectPublicKeyInfo DER encoding (91 bytes for P-256).
    public let derRepresentation: [UInt8]

    /// Reads a SubjectPublicKeyInfo DER encoding; `nil` unless it is exactly one ECDSA P-256 public key.
    public convenience init?(derRepresentation der: [UInt8]) {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
            // Trailing bytes after the structure mean this was not (only) a key.
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let parsed else {
            EVPKey.clearErrors()
            return nil
        }
        self.init(adopting: parsed)
        guard EVPKey.isP256(parsed), EVPKey.publicDER(parsed) == der else { return nil }
    }

    /// Reads the base64 of a SubjectPublicKeyInfo DER (the form apps embed); `nil` unless canonical base64 of one
    /// ECDSA P-256 public key.
    public convenience init?(base64: some StringProtocol) {
        guard let der = Base64.decode(base64) else { return nil }
        self.init(derRepresentation: der)
    }

    /// Reads the first `-----BEGIN PUBLIC KEY-----` block of `pem` (lines before it are skipped); `nil` unless it
    /// holds one ECDSA P-256 public key.
    public convenience init?(pem: [UInt8]) {
        let parsed = EVPKey.reading(pem) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        guard let parsed, let der = EVPKey.publicDER(parsed) else {
            EVPKey.clearErrors()
            return nil
        }
        EVP_PKEY_free(parsed)
        self.init(derRepresentation: der)
    }

    /// Takes ownership of `key` (freed with this value).
    init(adopting key: OpaquePointer) {
        self.key = key
        derRepresentation = EVPKey.publicDER(key) ?? []
    }

    deinit { EVP_PKEY_free(key) }

    /// Base64 of `derRepresentation`: the single line apps embed.
    public var base64: String { Base64.encode(derRepresentation) }

    /// The PEM `-----BEGIN PUBLIC KEY-----` block, 64 base64 characters per line, ending with a line break.
    public var pem: String { PublicKeyFile.pemBlock(derRepresentation) }

    /// Whether `signature` (DER, see `SignatureAlgorithm.ecdsaP256SHA256`) is this key's signature of `bytes`.
    ///
    /// Any malformed signature is simply not valid; this never throws and never traps on its input.
    public func isValidSignature(_ signature: [UInt8], for bytes: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let result = signature.withUnsafeBufferPointer { signatureBuffer in
            bytes.withUnsafeBufferPointer { message -> Int32 in
                guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return -1 }
                return EVP_DigestVerify(
                    context, signatureBuffer.baseAddress, signatureBuffer.count, message.baseAddress, message.count)
            }
        }
        if result != 1 { EVPKey.clearErrors() }
        return result == 1
    }

    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.derRepresentation == rhs.derRepresentation }

    /// `PublicKey(<base64>)`: public, so safe to print.
    public var description: String { "PublicKey(\(base64))" }
}

extension PublicKey {
    /// The text of a public key file for `id` (`PublicKeyFile.text`): comment lines with the base64 apps embed, the
    /// `Livery-Key-Id:` line and the PEM block. `livery verify --public-key` and `openssl pkey -pubin -in` both
    /// read it.
    public func fileText(id: KeyID) -> String {
        PublicKeyFile(keyID: id, derRepresentation: derRepresentation).text
    }

    /// Reads a public key file as `fileText(id:)` writes it: the id from its `Livery-Key-Id:` line and the key
    /// from its PEM block.
    public static func load(from path: String) throws(KeyError) -> (id: KeyID, key: PublicKey) {
        let bytes = try KeyFile.readAll(path, ownerOnly: false)
        guard let key = PublicKey(pem: bytes) else {
            if bytes.containsSubsequence(Array("PRIVATE KEY-----".utf8)) {
                throw .notAKey(
                    path: path,
                    expected:
                        "a PEM public key, found a private key (never hand it out: use the public key `livery keys create` printed)"
                )
            }
            throw .notAKey(path: path, expected: "an ECDSA P-256 PEM public key (-----BEGIN PUBLIC KEY-----)")
        }
        return (try KeyFile.keyID(in: bytes, path: path), key)
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the array (a plain scan; for short needles in small files).
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        for start in 0...(count - needle.count) where self[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}
