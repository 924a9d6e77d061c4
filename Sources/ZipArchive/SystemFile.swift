#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor owned by this value: closed exactly once, when the value goes away.
///
/// Every call retries `EINTR`; reads and writes loop until done, so callers never see short transfers.
struct SystemFile: ~Copyable {
    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { _ = close(descriptor) }

    /// Opens an existing file for reading. A symbolic link as the last component is not followed: the open
    /// fails with `ELOOP`, so a file swapped for a link after it was checked is never read through the link.
    static func openForReading(_ path: String) throws(SystemError) -> SystemFile {
        while true {
            // O_NONBLOCK: opening a FIFO must not hang; it is then rejected as not a regular file.
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
            if fd >= 0 { return SystemFile(descriptor: fd) }
            let error = SystemError.currentErrno()
            if error != EINTR { throw SystemError("open", errno: error) }
        }
    }

    /// Creates a new, empty, uniquely named file (mode 0600) from a `mkstemp` template ending in `XXXXXX`;
    /// sets `path` to its name.
    static func createUnique(template: String, path: inout String) throws(SystemError) -> SystemFile {
        var bytes = Array(template.utf8CString)
        let fd = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else { throw SystemError("mkstemp") }
        let file = SystemFile(descriptor: fd)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return file
    }

    /// Opens a directory (for `fsync` after a rename).
    static func openDirectory(_ path: String) throws(SystemError) -> SystemFile {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open directory") }
        return SystemFile(descriptor: fd)
    }

    /// Size in bytes and whether it is a regular file.
    func status() throws(SystemError) -> (size: UInt64, isRegular: Bool) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemError("fstat") }
        return (UInt64(clamping: info.st_size), (info.st_mode & S_IFMT) == S_IFREG)
    }

    /// Reads until `buffer` is full or the file ends; returns the number of bytes read (less than the buffer
    /// only at end of file).
    func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = read(descriptor, base + filled, buffer.count - filled)
            if count > 0 {
                filled += count
            } else if count == 0 {
                break
            } else {
                let error = SystemError.currentErrno()
                if error != EINTR { throw SystemError("read", errno: error) }
            }
        }
        return filled
    }

    /// Writes all of `bytes`.
    func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = write(descriptor, base + written, bytes.count - written)
            if count >= 0 {
                written += count
            } else {
                let error = SystemError.currentErrno()
                if error != EINTR { throw SystemError("write", errno: error) }
            }
        }
    }

    /// Moves the file offset back to the start.
    func rewind() throws(SystemError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw SystemError("lseek") }
    }

    /// Drops the file's content (for reusing a spill file).
    func truncateToZero() throws(SystemError) {
        guard ftruncate(descriptor, 0) == 0 else { throw SystemError("ftruncate") }
        try rewind()
    }

    /// Flushes data and metadata to stable storage.
    func sync() throws(SystemError) {
        while fsync(descriptor) != 0 {
            let error = SystemError.currentErrno()
            if error != EINTR { throw SystemError("fsync", errno: error) }
        }
    }

    /// Sets the permission bits.
    func setMode(_ mode: mode_t) throws(SystemError) {
        guard fchmod(descriptor, mode) == 0 else { throw SystemError("fchmod") }
    }

    /// Hints that the file will be read front to back once (lets the kernel read ahead more).
    func adviseSequential() {
        #if os(Linux)
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
    }
}
