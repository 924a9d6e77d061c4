import COpenSSL

/// Small helpers over OpenSSL's EVP key API shared by `SigningKey` and `PublicKey`.
enum EVPKey {
    /// Whether `key` is an elliptic-curve key on NIST P-256 (`prime256v1`), the only kind Livery uses.
    static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_is_a(key, "EC") == 1 else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }

    /// Runs `body` with a new memory BIO and returns what it wrote to it, or `nil` if `body` returns false.
    ///
    /// With `secure`, the BIO is OpenSSL's secure-memory kind, cleared when freed (for private key text).
    static func written(secure: Bool = false, _ body: (OpaquePointer) -> Bool) -> [UInt8]? {
        guard let bio = BIO_new(secure ? BIO_s_secmem() : BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let length = livery_BIO_get_mem_data(bio, &data)
        guard length >= 0, let data else { return length == 0 ? [] : nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Runs `body` with a read-only memory BIO over `bytes`.
    static func reading<T>(_ bytes: [UInt8], _ body: (OpaquePointer) -> T?) -> T? {
        bytes.withUnsafeBytes { buffer -> T? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// The SubjectPublicKeyInfo DER of `key`'s public half.
    static func publicDER(_ key: OpaquePointer) -> [UInt8]? {
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        return written == length ? der : nil
    }

    /// Forgets OpenSSL's queued errors for this thread after a failure was handled, so they never surface later
    /// attached to an unrelated call.
    static func clearErrors() { ERR_clear_error() }
}
