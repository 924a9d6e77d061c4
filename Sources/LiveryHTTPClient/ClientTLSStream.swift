import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TLS for `HTTPClient`'s `https://` servers: OpenSSL (already linked) over the client's blocking socket, whose
/// send and receive timeouts bound every step of the handshake too.
///
/// Verifies the server's certificate chain against the system's CAs, or only against `caFile` when given (a
/// private CA), and its name (or IP address) against the host in the URL; SNI carries a host name, never an
/// address. TLS 1.2 minimum, ALPN `http/1.1`.
///
/// Why not `URLSession`: on Linux, FoundationNetworking (libcurl) offers no way to trust a private CA file for
/// one session (its `URLSessionCertificateAuthorityInfoFile` is read on Android only), and would add libcurl to a
/// binary that otherwise needs none.
final class ClientTLSStream {
    private let context: OpaquePointer
    private let ssl: OpaquePointer

    init(fd: Int32, host: String, caFile: String?, server: String) throws(HTTPClientError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .unreachable("cannot set up TLS: \(Self.reason())")
        }
        self.context = context
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw .unreachable("cannot set up TLS: \(Self.reason())")
        }
        self.ssl = ssl
        _ = livery_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw .usage("--ca-file \(caFile): not a readable PEM certificate file (\(Self.reason()))")
            }
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        let protocols: [UInt8] = [8] + Array("http/1.1".utf8)
        _ = SSL_set_alpn_protos(ssl, protocols, UInt32(protocols.count))
        let parameters = SSL_get0_param(ssl)
        if Self.isAddress(host) {
            X509_VERIFY_PARAM_set1_ip_asc(parameters, host)
        } else {
            SSL_set1_host(ssl, host)
            livery_SSL_set_server_name(ssl, host)
        }
        SSL_set_fd(ssl, fd)
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let text = String(cString: X509_verify_cert_error_string(verify))
                let fix = caFile == nil ? " (for a private CA, pass --ca-file or set LIVERY_CA_FILE)" : ""
                throw .unreachable("TLS with \(server) failed: the certificate is not trusted: \(text)\(fix)")
            }
            throw .unreachable("TLS with \(server) failed: \(Self.reason())")
        }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// As `send(2)`: bytes written, or -1 with `errno` set (EAGAIN on a timeout).
    func send(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        ERR_clear_error()
        let written = SSL_write(ssl, base, Int32(clamping: buffer.count))
        return written > 0 ? Int(written) : failure(written)
    }

    /// As `recv(2)`: bytes read, 0 at the end, or -1 with `errno` set (EAGAIN on a timeout).
    func receive(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        ERR_clear_error()
        let read = SSL_read(ssl, base, Int32(clamping: buffer.count))
        if read > 0 { return Int(read) }
        if SSL_get_error(ssl, read) == SSL_ERROR_ZERO_RETURN { return 0 }
        return failure(read)
    }

    private func failure(_ result: Int32) -> Int {
        let code = errno
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_SYSCALL:
            // EOF without close_notify reads as an end; a timeout keeps its EAGAIN.
            if code == 0 { return 0 }
            errno = code
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            errno = EAGAIN
        default:
            errno = EPROTO
        }
        ERR_clear_error()
        return -1
    }

    private static func isAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    private static func reason() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "the connection broke off" }
        guard let text = ERR_reason_error_string(code) else { return "OpenSSL error \(code)" }
        return String(cString: text)
    }
}
