import COpenSSL
import LiveryProtocol

/// An incremental SHA-256 hasher on OpenSSL's EVP interface.
///
/// Feed bytes with `update`, then call `finalize()` once; the hasher cannot be reused after that.
/// Not thread-safe: one hasher belongs to one writer at a time.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    /// Creates a hasher ready to take bytes.
    public init() {
        // EVP_MD_CTX_new only fails on allocation failure, which Swift treats as fatal everywhere else too.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new: out of memory") }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds `bytes` to the digest.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update($0) }
        }
    }

    /// Returns the 32-byte digest of everything added.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return digest
    }

    /// The SHA-256 digest of `bytes`.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The lowercase hex SHA-256 digest of `bytes`.
    public static func hexHash<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.encode(hash(bytes))
    }
}
