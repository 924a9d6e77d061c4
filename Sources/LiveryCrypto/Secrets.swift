import COpenSSL

/// Operations on secrets: comparison that does not leak where inputs differ, and secure randomness.
public enum Secrets {
    /// Compares two byte strings in time that depends only on their lengths, never on their contents.
    ///
    /// Unequal lengths return `false` immediately; callers compare fixed-length digests (such as SHA-256
    /// of a token), so length carries no secret.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    ///
    /// - Throws: `SecretsError.randomUnavailable` if the generator is not seeded (never seen on Linux).
    public static func randomBytes(count: Int) throws(SecretsError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw .randomUnavailable }
        return bytes
    }
}

/// Failures of `Secrets`.
public enum SecretsError: Error, Equatable {
    /// OpenSSL's random generator could not produce bytes.
    case randomUnavailable
}
