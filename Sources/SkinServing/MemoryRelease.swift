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
/// runs once per upload, on a thread of its own. Elsewhere (not glibc) it does nothing.
package enum MemoryRelease {
    /// glibc's `malloc_trim`, which Swift's Glibc module does not export; looked up once.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Returns free heap pages to the system, off the caller's thread; returns once done.
    package static func returnFreedMemory() async {
        guard let trim = mallocTrim else { return }
        await BlockingWorkRunner.onOwnThread(name: "livery.trim") { _ = trim(0) }
    }
}
