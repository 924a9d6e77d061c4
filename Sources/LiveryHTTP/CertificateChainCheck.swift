import COpenSSL
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a certificate file may hold, checked before OpenSSL loads it: the server certificate and the
/// certificates of its issuer chain, and no more than a handshake can carry.
///
/// Why: OpenSSL sends every certificate of the file in each handshake. A file with a whole CA bundle appended, or
/// thousands of unrelated certificates, loads fine and then makes every handshake fail on the client
/// ("excessive message size"), taking the whole TLS port down at start or on the SIGHUP that installed it.
enum CertificateChainCheck {
    /// Most certificates in the file, the server's included.
    static let maximumCertificates = 10
    /// Most bytes of DER over all of them.
    static let maximumDERBytes = 64 << 10
    /// Most bytes of the PEM file read (PEM is about 4/3 of its DER plus headers; anything larger is refused).
    static let maximumFileBytes = 1 << 20

    /// Reads the PEM file at `path` and checks it; the reason names what is wrong and the fix. A file that cannot
    /// be read passes here: the load that follows reports it.
    static func check(_ path: String) throws(TLSSetupError) {
        let bytes: [UInt8]
        do {
            bytes = try SystemFile.openForReading(path).readAll(limit: maximumFileBytes + 1)
        } catch {
            return  // OpenSSL's load that follows names an unreadable file as before
        }
        guard bytes.count <= maximumFileBytes else {
            throw TLSSetupError(
                path: path,
                reason:
                    "is larger than \(maximumFileBytes) bytes; a certificate file holds the server certificate and its intermediates only"
            )
        }
        var certificates: [OpaquePointer] = []
        defer { for certificate in certificates { X509_free(certificate) } }
        ERR_clear_error()
        bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return }
            defer { BIO_free(bio) }
            while certificates.count <= maximumCertificates, let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(certificate)
            }
        }
        ERR_clear_error()  // the end of the file reads as an error
        guard certificates.count <= maximumCertificates else {
            throw TLSSetupError(
                path: path,
                reason:
                    "holds more than \(maximumCertificates) certificates; keep the server certificate and its intermediates "
                    + "only (a CA bundle belongs in clients' trust stores, not in this file)")
        }
        guard let leaf = certificates.first else { return }  // OpenSSL's own load names an empty file
        let der = certificates.reduce(0) { $0 + Int(max(0, i2d_X509($1, nil))) }
        guard der <= maximumDERBytes else {
            throw TLSSetupError(
                path: path,
                reason:
                    "holds \(der) bytes of certificates (DER), more than \(maximumDERBytes) a handshake can carry; keep the "
                    + "server certificate and its intermediates only")
        }
        // Every further certificate must be on the leaf's issuer path, in any order.
        var remaining = Array(certificates.dropFirst())
        var current = leaf
        while let index = remaining.firstIndex(where: { X509_check_issued($0, current) == X509_V_OK }) {
            current = remaining.remove(at: index)
        }
        if let stray = remaining.first {
            let position = (certificates.firstIndex(of: stray) ?? 0) + 1
            throw TLSSetupError(
                path: path,
                reason:
                    "certificate \(position) of \(certificates.count) (\(subject(of: stray))) is not in the issuer chain of the "
                    + "server certificate (\(subject(of: leaf))); keep the server certificate and its intermediates only"
            )
        }
    }

    /// The certificate's subject, one line.
    private static func subject(of certificate: OpaquePointer) -> String {
        guard let name = X509_get_subject_name(certificate) else { return "no subject" }
        var buffer = [CChar](repeating: 0, count: 256)
        guard X509_NAME_oneline(name, &buffer, Int32(buffer.count)) != nil else { return "no subject" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
