#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An open file descriptor owned by this value: closed exactly once, when the value goes away.
///
/// Every call goes through ``Syscall`` (so `EINTR` is retried and errors are ``SystemCallError``s naming
/// ``path``); reads and writes loop until done, so callers never see short transfers.
public struct SystemFile: ~Copyable, Sendable {
    /// The descriptor, valid for the value's lifetime. Never close it yourself.
    public let descriptor: Int32
    /// The path it was opened as, for error messages.
    public let path: String

    /// Takes ownership of `descriptor`.
    public init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { Syscall.close(descriptor) }

    /// Opens `path` with `flags` (close-on-exec added); `mode` applies with `O_CREAT`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(SystemCallError) -> SystemFile
    {
        SystemFile(descriptor: try Syscall.open(path, flags, mode: mode), path: path)
    }

    /// Opens an existing file for reading. A symbolic link as the last component is not followed: the open fails
    /// with `ELOOP`, so a file swapped for a link after it was checked is never read through the link.
    /// `O_NONBLOCK`: a FIFO planted in its place cannot hang the open (callers refuse non-regular files).
    public static func openForReading(_ path: String) throws(SystemCallError) -> SystemFile {
        try open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    }

    /// Opens a directory (to `fsync` its entries after a rename, or to walk beneath it).
    public static func openDirectory(_ path: String) throws(SystemCallError) -> SystemFile {
        try open(path, O_RDONLY | O_DIRECTORY)
    }

    /// Opens `relativePath` beneath the trusted folder `root` for reading, following no symbolic link in any
    /// component of `relativePath` (`root` itself may be reached through links: it comes from the operator).
    ///
    /// Each folder is opened with `openat(O_NOFOLLOW | O_DIRECTORY)` from the one before, and the last component
    /// with `O_NOFOLLOW | O_NONBLOCK`, so a link anywhere on the way, even one swapped in while the walk runs, is
    /// refused with `ELOOP` or `ENOTDIR` naming the path up to that component; nothing outside `root` is reached.
    /// Empty, `.` and `..` components are refused with `EINVAL`.
    public static func openBeneath(_ relativePath: String, in root: String) throws(SystemCallError) -> SystemFile {
        let components = relativePath.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard let last = components.last else { throw SystemCallError("open", path: root + "/", errno: EINVAL) }
        var shown = root
        var directory = try openDirectory(root)
        for component in components {
            let name = String(decoding: component, as: UTF8.self)
            shown += "/" + name
            guard !name.isEmpty, name != ".", name != ".." else {
                throw SystemCallError("open", path: shown, errno: EINVAL)
            }
            if component.startIndex == last.startIndex {
                let fd = try Syscall.open(
                    name, in: directory.descriptor, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, shownPath: shown)
                return SystemFile(descriptor: fd, path: shown)
            }
            let fd = try Syscall.open(
                name, in: directory.descriptor, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, shownPath: shown)
            directory = SystemFile(descriptor: fd, path: shown)
        }
        throw SystemCallError("open", path: shown, errno: EINVAL)
    }

    /// Creates a new, empty, uniquely named file (mode 0600) from a `mkstemp` template ending in `XXXXXX`;
    /// sets `path` to its name.
    public static func createUnique(template: String, path: inout String) throws(SystemCallError) -> SystemFile {
        var bytes = Array(template.utf8CString)
        let fd = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else { throw Syscall.lastFailure("mkstemp", path: template) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SystemFile(descriptor: fd, path: path)
    }

    /// The file's `fstat`.
    public func info() throws(SystemCallError) -> stat {
        try Syscall.fileStatus(descriptor, path: path)
    }

    /// Size in bytes and whether it is a regular file.
    public func status() throws(SystemCallError) -> (size: UInt64, isRegular: Bool) {
        let info = try info()
        return (UInt64(clamping: info.st_size), (info.st_mode & S_IFMT) == S_IFREG)
    }

    /// Reads up to `buffer.count` bytes at the current position; 0 only at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        do throws(SystemCallError) {
            switch try Syscall.read(descriptor, into: buffer) {
            case .processed(let count): return count
            // A regular file opened with O_NONBLOCK never blocks; only a FIFO or device would.
            case .wouldBlock: throw SystemCallError("read", path: path, errno: EAGAIN)
            }
        } catch {
            throw SystemCallError(error.operation, path: path, errno: error.errno)
        }
    }

    /// Reads until `buffer` is full or the file ends; returns the number of bytes read (less than the buffer
    /// only at end of file).
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try Syscall.readFully(descriptor, into: buffer, path: path)
    }

    /// The rest of the file from the current position, at most `limit` bytes when a limit is given.
    /// Sized by `fstat` first, so a small file costs one read and no copy; a file that grew since is read on.
    public func readAll(limit: Int? = nil) throws(SystemCallError) -> [UInt8] {
        let size = Int(try info().st_size)
        let wanted = limit.map { min($0, size) } ?? size
        var failure: SystemCallError?
        var bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            do throws(SystemCallError) {
                initialized = try readFully(into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        guard bytes.count == wanted else { return bytes }
        var chunk = [UInt8]()
        while limit.map({ bytes.count < $0 }) ?? true {
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 64 * 1024) }
            let room = limit.map { min(chunk.count, $0 - bytes.count) } ?? chunk.count
            let outcome = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in
                    try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room]))
                }
            }
            let count = try outcome.get()
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    /// Writes all of `bytes` (at `offset`, or at the current position when `offset` is nil).
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int? = nil) throws(SystemCallError) {
        try Syscall.writeAll(descriptor, bytes, at: offset, path: path)
    }

    /// Writes all of `bytes` (at `offset`, or at the current position when `offset` is nil).
    public func writeAll(_ bytes: [UInt8], at offset: Int? = nil) throws(SystemCallError) {
        try Syscall.writeAll(descriptor, bytes, at: offset, path: path)
    }

    /// Moves the file offset back to the start.
    public func rewind() throws(SystemCallError) {
        try Syscall.seek(descriptor, to: 0, path: path)
    }

    /// Truncates to `length` bytes (the offset stays where it is).
    public func truncate(to length: Int) throws(SystemCallError) {
        try Syscall.truncate(descriptor, to: length, path: path)
    }

    /// Drops the file's content and rewinds (for reusing a spill file).
    public func truncateToZero() throws(SystemCallError) {
        try truncate(to: 0)
        try rewind()
    }

    /// Flushes data and metadata to stable storage.
    public func sync() throws(SystemCallError) {
        try Syscall.sync(descriptor, path: path)
    }

    /// Sets the permission bits (exactly, whatever the umask).
    public func setMode(_ mode: mode_t) throws(SystemCallError) {
        guard fchmod(descriptor, mode) == 0 else { throw Syscall.lastFailure("fchmod", path: path) }
    }

    /// Takes an exclusive advisory lock without waiting; false if someone else holds it.
    public func tryLock() throws(SystemCallError) -> Bool {
        try Syscall.tryLock(descriptor, path: path)
    }

    /// Hints that the file will be read front to back once (lets the kernel read ahead more).
    public func adviseSequential() {
        #if os(Linux)
            _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
    }
}
