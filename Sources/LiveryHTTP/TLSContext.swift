import COpenSSL
import Synchronization

extension HTTPServer {
    /// Where a TLS listener finds its certificate chain and private key (PEM files, read at start and on every
    /// `reloadTLS()`).
    public struct TLSConfiguration: Sendable, Equatable {
        /// The server certificate first, then any intermediates (`SSL_CTX_use_certificate_chain_file`).
        public var certificatePath: String
        /// The private key matching the certificate (unencrypted PEM).
        public var privateKeyPath: String

        public init(certificatePath: String, privateKeyPath: String) {
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
        }
    }
}

/// Why a certificate and key could not be loaded: the file and OpenSSL's reason.
public struct TLSSetupError: Error, Equatable, CustomStringConvertible {
    /// The file at fault (certificate or key), or empty when the fault is not a file's.
    public let path: String
    public let reason: String

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}

/// One `SSL_CTX`: the certificate chain and key read from disk, TLS 1.2 as the minimum with forward-secret AEAD
/// cipher suites only (`tls12Ciphers`; TLS 1.3's are all AEAD), no renegotiation, ALPN `http/1.1` only, a
/// server-side session cache (and TLS 1.3 tickets) for resumption.
///
/// Immutable once made. A reload makes a new one for new connections; each `SSL` holds a reference on the context
/// it was made from, so connections already open keep theirs until they close.
final class TLSContext: @unchecked Sendable {
    // Invariant: `context` is never mutated after `init`; OpenSSL allows SSL_new from several threads on one SSL_CTX.
    private let context: OpaquePointer

    /// The TLS 1.2 cipher suites, in the server's order of preference: ECDHE key exchange with AES-GCM or
    /// ChaCha20-Poly1305, for ECDSA and RSA certificates (Mozilla's "intermediate" list without finite-field DHE).
    /// OpenSSL's default also offers CBC suites (LUCKY13, which testssl.sh reports) and non-forward-secret ones.
    static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    init(_ configuration: HTTPServer.TLSConfiguration) throws(TLSSetupError) {
        try CertificateChainCheck.check(configuration.certificatePath)
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSSetupError(path: "", reason: "cannot create a TLS context: \(Self.openSSLReason())")
        }
        guard livery_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            SSL_CTX_free(context)
            throw TLSSetupError(path: "", reason: "cannot require TLS 1.2: \(Self.openSSLReason())")
        }
        livery_SSL_CTX_set_server_defaults(context)
        guard SSL_CTX_set_cipher_list(context, Self.tls12Ciphers) == 1 else {
            SSL_CTX_free(context)
            throw TLSSetupError(path: "", reason: "cannot set the TLS 1.2 cipher suites: \(Self.openSSLReason())")
        }
        livery_SSL_CTX_use_http11_alpn(context)
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificatePath) == 1 else {
            SSL_CTX_free(context)
            throw TLSSetupError(
                path: configuration.certificatePath,
                reason: "not a readable PEM certificate chain (\(Self.openSSLReason()))")
        }
        guard SSL_CTX_use_PrivateKey_file(context, configuration.privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(context)
            throw TLSSetupError(
                path: configuration.privateKeyPath,
                reason: "not a readable unencrypted PEM private key (\(Self.openSSLReason()))")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            SSL_CTX_free(context)
            throw TLSSetupError(
                path: configuration.privateKeyPath,
                reason: "does not match the certificate in \(configuration.certificatePath)")
        }
        self.context = context
    }

    deinit { SSL_CTX_free(context) }

    /// A server session for the accepted socket `fd`, or nil if OpenSSL cannot allocate one.
    func makeSession(fd: Int32) -> TLSSession? {
        guard let method = SocketBIOMethod.shared.method, let ssl = SSL_new(context) else { return nil }
        guard livery_SSL_set_socket(ssl, method, fd) == 1 else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        return TLSSession(ssl: ssl)
    }

    /// The reason of the oldest error on this thread's OpenSSL error queue (emptied).
    static func openSSLReason() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no reason given" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The socket BIO method (see `livery_socket_bio_method_new`), made once per process and never freed.
private struct SocketBIOMethod: @unchecked Sendable {
    // Invariant: the method table is immutable once made.
    let method: OpaquePointer?
    static let shared = SocketBIOMethod(method: livery_socket_bio_method_new())
}

/// The TLS context a server's new connections use, replaced on reload.
final class TLSContextHolder: Sendable {
    let configuration: HTTPServer.TLSConfiguration
    private let current: Mutex<TLSContext>

    init(_ configuration: HTTPServer.TLSConfiguration) throws(TLSSetupError) {
        self.configuration = configuration
        current = Mutex(try TLSContext(configuration))
    }

    var context: TLSContext { current.withLock { $0 } }

    /// Reads the files again; on failure the current context stays.
    func reload() throws(TLSSetupError) {
        let fresh = try TLSContext(configuration)
        current.withLock { $0 = fresh }
    }
}
