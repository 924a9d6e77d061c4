import COpenSSL
import LiveryProtocol

/// A private ECDSA P-256 key with its id: signs bytes for `ResponseSigner`, and lives in a file of its own.
///
/// The file (see `write(toNewFile:)`) is PKCS#8 PEM preceded by a `Livery-Key-Id: ID` line; `openssl pkey -in
/// FILE` reads it as it is. The key material never appears in a `description`, a mirror or an error.
public final class SigningKey: CustomStringConvertible, CustomReflectable, @unchecked Sendable {
    // @unchecked Sendable: `key` is an EVP_PKEY that is never modified after init; OpenSSL lets several threads
    // sign with one key at once, each with its own EVP_MD_CTX (as `sign` does).
    private let key: OpaquePointer
    /// The key's name, sent as the signature's `keyid`.
    public let id: KeyID
    /// The public half, for apps and verification.
    public let publicKey: PublicKey
    /// How this key signs.
    public var algorithm: SignatureAlgorithm { .ecdsaP256SHA256 }

    private init?(adopting key: OpaquePointer, id: KeyID) {
        guard EVPKey.isP256(key), let der = EVPKey.publicDER(key), let publicKey = PublicKey(derRepresentation: der)
        else {
            EVP_PKEY_free(key)
            return nil
        }
        self.key = key
        self.id = id
        self.publicKey = publicKey
    }

    deinit { EVP_PKEY_free(key) }

    /// A new random key named `id`, from OpenSSL's CSPRNG.
    public static func generate(id: KeyID) throws(KeyError) -> SigningKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .cryptoFailure(operation: "generate a key")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &generated) == 1, let generated,
            let key = SigningKey(adopting: generated, id: id)
        else {
            EVPKey.clearErrors()
            throw .cryptoFailure(operation: "generate a key")
        }
        return key
    }

    /// The DER ECDSA signature of SHA-256(`bytes`) (70–72 bytes; randomized, so two signatures of the same bytes
    /// differ and both verify).
    public func sign(_ bytes: [UInt8]) throws(KeyError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .cryptoFailure(operation: "sign") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key)))
        var length = signature.count
        let result = bytes.withUnsafeBufferPointer { message in
            signature.withUnsafeMutableBufferPointer { output -> Int32 in
                guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { return 0 }
                return EVP_DigestSign(context, output.baseAddress, &length, message.baseAddress, message.count)
            }
        }
        guard result == 1, length <= signature.count else {
            EVPKey.clearErrors()
            throw .cryptoFailure(operation: "sign")
        }
        return Array(signature[..<length])
    }

    /// `SigningKey(id: ID, ecdsa-p256-sha256)`: never the key material.
    public var description: String { "SigningKey(id: \(id.text), \(algorithm.rawValue))" }

    /// Shows the id and public key only, so `dump` and debuggers never print the private key's pointer or bytes.
    public var customMirror: Mirror { Mirror(self, children: ["id": id, "publicKey": publicKey]) }
}

extension SigningKey {
    /// Writes the key to a new file at `path`: the `Livery-Key-Id:` line, then the PKCS#8 PEM block.
    ///
    /// The file is created with mode 0600, durably and atomically (see `KeyFile.create`): a half-written file is
    /// never visible, and an existing file is never replaced (`KeyError.fileExists`).
    public func write(toNewFile path: String) throws(KeyError) {
        guard
            var pem = EVPKey.written(
                secure: true, { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 })
        else {
            EVPKey.clearErrors()
            throw .cryptoFailure(operation: "encode the private key")
        }
        var contents = Array(KeyFile.idLine(id).utf8) + pem
        defer {
            // Best effort: do not leave the key's text in freed heap memory.
            contents.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            pem.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        }
        try KeyFile.create(path, bytes: contents)
    }

    /// Reads a key file written by `write(toNewFile:)` (or any unencrypted PKCS#8 or traditional PEM P-256 key
    /// with a `Livery-Key-Id:` line before it).
    ///
    /// Refuses, naming the file: a file its group or other users may read (`readableByOthers`, fixed by
    /// `chmod 600`), a missing or malformed id line, an encrypted, damaged or non-P-256 key.
    public static func load(from path: String) throws(KeyError) -> SigningKey {
        var bytes = try KeyFile.readAll(path, ownerOnly: true)
        defer { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        let id = try KeyFile.keyID(in: bytes, path: path)
        // The passphrase callback supplies none, so an encrypted key fails here instead of prompting on a terminal.
        let parsed = EVPKey.reading(bytes) { bio in PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) }
        guard let parsed else {
            EVPKey.clearErrors()
            throw .notAKey(path: path, expected: "an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)")
        }
        guard let key = SigningKey(adopting: parsed, id: id) else { throw .unsupportedKey(path: path) }
        return key
    }
}
