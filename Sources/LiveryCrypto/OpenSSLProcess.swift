import COpenSSL

/// How OpenSSL lives in a Livery process.
public enum OpenSSLProcess {
    /// Initialises OpenSSL without its exit handler, so the library is never torn down while the process still runs.
    ///
    /// By default OpenSSL registers `OPENSSL_cleanup` with `atexit`: it frees the library's locks and tables when
    /// `main` returns, while threads may still be hashing or signing (a package build that shutdown stopped waiting
    /// for), and those threads then crash on a freed lock (SIGSEGV instead of exit status 0). Without the handler
    /// the process ends with OpenSSL intact and the system reclaims its memory. Call it first in `main`, before any
    /// other OpenSSL call: only the first initialisation decides whether the handler is registered. Returns whether
    /// OpenSSL initialised.
    @discardableResult
    public static func keepLibraryUntilExit() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}
