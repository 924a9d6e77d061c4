import COpenSSL
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One connection's TLS state (an `SSL` on the connection's socket), driven non-blocking from the event loop.
///
/// `handshake`, `read` and `write` never block: when OpenSSL needs the socket to become readable or writable they
/// say so (`SSL_ERROR_WANT_READ` / `WANT_WRITE`), whichever call it was. Errors and a peer's bad bytes become a
/// `SystemCallError` (the connection closes), never a crash. Used only on its connection's loop thread.
final class TLSSession: @unchecked Sendable {
    // Invariant: used only on the owning connection's loop thread (made there too, by the loop that accepted it).
    private var ssl: OpaquePointer?
    private var shutdownSent = false

    init(ssl: OpaquePointer) {
        self.ssl = ssl
    }

    deinit { if let ssl { SSL_free(ssl) } }

    enum HandshakeStep: Equatable {
        case done
        /// Call again once the socket is readable.
        case wantRead
        /// Call again once the socket is writable.
        case wantWrite
        /// Not TLS, a protocol error, or the peer went away: close.
        case failed
    }

    func handshake() -> HandshakeStep {
        guard let ssl else { return .failed }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        default:
            ERR_clear_error()
            return .failed
        }
    }

    /// Decrypted bytes into `buffer`; `.processed(0)` at the end of input (close_notify or EOF).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> IOResult<Int> {
        guard let ssl, let base = buffer.baseAddress else { throw SystemCallError("SSL_read", errno: EBADF) }
        ERR_clear_error()
        let result = SSL_read(ssl, base, Int32(clamping: buffer.count))
        if result > 0 { return .processed(Int(result)) }
        return try outcome(of: result, call: "SSL_read")
    }

    /// Encrypts and sends up to `buffer.count` bytes. After `.wouldBlock` the same bytes must be offered again
    /// (they may sit in another buffer: `SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER`).
    func write(_ buffer: UnsafeRawBufferPointer) throws(SystemCallError) -> IOResult<Int> {
        guard let ssl else { throw SystemCallError("SSL_write", errno: EBADF) }
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .processed(0) }
        ERR_clear_error()
        let result = SSL_write(ssl, base, Int32(clamping: buffer.count))
        if result > 0 { return .processed(Int(result)) }
        return try outcome(of: result, call: "SSL_write")
    }

    private func outcome(of result: Int32, call: String) throws(SystemCallError) -> IOResult<Int> {
        let code = errno
        guard let ssl else { throw SystemCallError(call, errno: EBADF) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            // Either direction: the socket is level-triggered in the loop, and renegotiation is off, so a read
            // never needs the socket's writability for long (nor a write its readability).
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .processed(0)
        case SSL_ERROR_SYSCALL:
            ERR_clear_error()
            // With SSL_OP_IGNORE_UNEXPECTED_EOF an EOF without close_notify is ZERO_RETURN; what is left is a
            // socket error.
            throw SystemCallError(call, errno: code == 0 ? ECONNRESET : code)
        default:
            ERR_clear_error()
            throw SystemCallError(call, errno: EPROTO)
        }
    }

    /// Decrypted bytes OpenSSL holds that the socket's readiness will not announce.
    var hasPendingInput: Bool {
        guard let ssl else { return false }
        return SSL_pending(ssl) > 0
    }

    /// Sends close_notify once (best effort, never waits for the peer's).
    func shutdown() {
        guard let ssl, !shutdownSent else { return }
        shutdownSent = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// Frees the `SSL` (the socket is not closed here); later calls fail.
    func release() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
    }
}
