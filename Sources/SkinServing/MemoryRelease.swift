#if canImport(Glibc)
    import Glibc
#endif

/// Gives memory the allocator holds but no longer uses back to the system, after a large transient job (an
/// upload is parsed, validated and hashed in memory: tens of bytes of heap per byte of `config.json`).
///
/// glibc keeps freed heap memory for reuse: in the arena of the thread that freed it, fragmented among live
/// small blocks, and above a trim threshold that grows with every large block freed. Without this, a server that
/// accepted one large upload kept most of its peak resident until exit. `malloc_trim(0)` walks every arena and
/// returns each free page (`madvise(MADV_DONTNEED)`); it costs a few milliseconds for hundreds of megabytes, so it
/// runs once per large upload, on a thread of its own. It also holds each arena's lock while it walks it, so
/// every thread allocating there waits: small uploads (whose transient memory is small) skip it. Elsewhere (not
/// glibc) it does nothing.
package enum MemoryRelease {
    /// Uploads smaller than this leave too little behind to be worth a walk of every arena.
    package static let largeUploadBytes = 64 * 1024

    /// glibc's `malloc_trim`, which Swift's Glibc module does not export; looked up once.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
            return nil
        #endif
    }()

    /// Returns free heap pages to the system, off the caller's thread, after a job that read `bytes` of input;
    /// returns once done. Does nothing below `largeUploadBytes`.
    package static func returnFreedMemory(afterReading bytes: Int) async {
        guard bytes >= largeUploadBytes, let trim = mallocTrim else { return }
        await BlockingWorkRunner.onOwnThread(name: "livery.trim") { _ = trim(0) }
    }
}
