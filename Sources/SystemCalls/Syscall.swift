import CSystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every system call Livery makes on a descriptor, behind one type that checks results.
///
/// The rules, the same for every call:
/// - `EINTR` is retried (except by `close`, which releases the descriptor on Linux either way);
/// - `EAGAIN`/`EWOULDBLOCK` is ``IOResult/wouldBlock`` on the calls meant for non-blocking descriptors, a value and
///   not an error;
/// - `EBADF` and `EFAULT` are bugs in the caller (a descriptor used after close, a bad buffer): they stop the
///   process with a precondition failure, so a descriptor number reused by another file is never read or written;
/// - everything else throws one ``SystemCallError`` naming the call (and the path where there is one).
///
/// Sends always pass `MSG_NOSIGNAL` so a closed peer yields `EPIPE`, not `SIGPIPE`. The socket calls of an HTTP
/// connection (`receive`, `send`, `sendFile`, `readFile`) are `@inlinable`, allocate nothing and throw a typed
/// error, so they cost what the bare call costs.
public enum Syscall {
    /// Runs `body` (a call returning -1 with `errno` set on failure) until it does not fail with `EINTR`.
    @inlinable @inline(__always)
    public static func retryingInterrupts<Result: BinaryInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            if result < 0 && SystemCallError.currentErrno() == EINTR { continue }
            return result
        }
    }

    /// Checks a call's result: a count, `.wouldBlock` for `EAGAIN`, a trap for `EBADF`/`EFAULT`, else a throw.
    @inlinable @inline(__always)
    static func checked(
        _ operation: String, _ result: Int, path: String? = nil
    ) throws(SystemCallError) -> IOResult<Int> {
        if result >= 0 { return .processed(result) }
        let code = SystemCallError.currentErrno()
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
        throw failure(operation, errno: code, path: path)
    }

    /// The error for `errno` `code` after `operation`; traps on `EBADF`/`EFAULT` (see the type's rules).
    @inlinable
    public static func failure(_ operation: String, errno code: Int32, path: String? = nil) -> SystemCallError {
        precondition(code != EBADF && code != EFAULT, "\(operation) on an invalid descriptor or buffer: errno \(code)")
        return SystemCallError(operation, path: path, errno: code)
    }

    /// The error for the current `errno` after `operation` (see ``failure(_:errno:path:)``).
    @inlinable
    public static func lastFailure(_ operation: String, path: String? = nil) -> SystemCallError {
        failure(operation, errno: SystemCallError.currentErrno(), path: path)
    }

    // MARK: Sockets

    public static func socket(domain: Int32, type: Int32) throws(SystemCallError) -> Int32 {
        let fd = Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw lastFailure("socket") }
        return fd
    }

    public static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) throws(SystemCallError) {
        var value = value
        try setOption(fd, level: level, name: name, value: &value)
    }

    /// `setsockopt` with any value type (`timeval` for `SO_RCVTIMEO`, ...).
    public static func setOption<Value: BitwiseCopyable>(
        _ fd: Int32, level: Int32, name: Int32, value: inout Value
    ) throws(SystemCallError) {
        let result = withUnsafeBytes(of: &value) { setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) }
        guard result == 0 else { throw lastFailure("setsockopt") }
    }

    public static func bind(_ fd: Int32, address: UnsafePointer<sockaddr>, length: socklen_t) throws(SystemCallError) {
        guard Glibc.bind(fd, address, length) == 0 else { throw lastFailure("bind") }
    }

    public static func listen(_ fd: Int32, backlog: Int32) throws(SystemCallError) {
        guard Glibc.listen(fd, backlog) == 0 else { throw lastFailure("listen") }
    }

    /// Connects a socket. On a non-blocking socket a connection still under way is `.wouldBlock` (`EINPROGRESS`):
    /// wait for it to become writable, then read ``pendingError(_:)``.
    public static func connect(
        _ fd: Int32, address: UnsafePointer<sockaddr>, length: socklen_t
    ) throws(SystemCallError) -> IOResult<Void> {
        // Retrying an interrupted connect would fail with EALREADY: the connection goes on in the background,
        // exactly as EINPROGRESS says.
        if Glibc.connect(fd, address, length) == 0 { return .processed(()) }
        let code = SystemCallError.currentErrno()
        if code == EINPROGRESS || code == EINTR { return .wouldBlock }
        throw failure("connect", errno: code)
    }

    /// `SO_ERROR`: the outcome of a non-blocking connect, 0 when it succeeded.
    public static func pendingError(_ fd: Int32) throws(SystemCallError) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { throw lastFailure("getsockopt") }
        return code
    }

    public static func localAddress(_ fd: Int32) throws(SystemCallError) -> sockaddr_storage {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw lastFailure("getsockname") }
        return storage
    }

    /// Accepts one connection as a non-blocking, close-on-exec descriptor.
    ///
    /// Errors that concern only the connection being accepted (`ECONNABORTED`, `EPROTO`, `EPERM`) are reported as
    /// `.processed(nil)` so the caller simply tries the next one.
    public static func accept(_ fd: Int32, peer: inout sockaddr_storage) throws(SystemCallError) -> IOResult<Int32?> {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = retryingInterrupts {
            withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Int(livery_accept4(fd, $0, &length)) }
            }
        }
        if result < 0 {
            switch SystemCallError.currentErrno() {
            case ECONNABORTED, EPROTO, EPERM: return .processed(nil)
            default: break
            }
        }
        switch try checked("accept4", result) {
        case .processed(let newFD): return .processed(Int32(newFD))
        case .wouldBlock: return .wouldBlock
        }
    }

    /// Receives up to `buffer.count` bytes; 0 when the peer closed its side.
    @inlinable
    public static func receive(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemCallError) -> IOResult<Int> {
        try checked("recv", livery_recv(fd, buffer.baseAddress, buffer.count))
    }

    /// Sends bytes; `more` sets `MSG_MORE` so the kernel may coalesce them with the next call (used before
    /// `sendfile`, which would otherwise put the response head in a packet of its own).
    @inlinable
    public static func send(
        _ fd: Int32, _ buffer: UnsafeRawBufferPointer, more: Bool = false
    ) throws(SystemCallError) -> IOResult<Int> {
        try checked("send", livery_send(fd, buffer.baseAddress, buffer.count, more ? Int32(MSG_MORE) : 0))
    }

    /// Sends `first` then `second` in one `sendmsg` (two byte runs, neither copied into the other); returns how
    /// many bytes went, counted from the start of `first`.
    @inlinable
    public static func send(
        _ fd: Int32, _ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer
    ) throws(SystemCallError) -> IOResult<Int> {
        try checked(
            "sendmsg", livery_send_pair(fd, first.baseAddress, first.count, second.baseAddress, second.count))
    }

    /// Sends up to `count` bytes of `file` from `offset`, advancing `offset` by what was sent.
    @inlinable
    public static func sendFile(
        to socket: Int32, from file: Int32, offset: inout Int, count: Int
    ) throws(SystemCallError) -> IOResult<Int> {
        var fileOffset = off_t(offset)
        let result = retryingInterrupts { Glibc.sendfile(socket, file, &fileOffset, count) }
        let outcome = try checked("sendfile", result)
        offset = Int(fileOffset)
        return outcome
    }

    public static func shutdownWrite(_ fd: Int32) {
        // ENOTCONN (peer already gone) is the only expected failure and needs no handling.
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Shuts a socket down for reading. On a listening socket (Linux) this leaves the listen state at once: new
    /// connection attempts are refused and connections still in the backlog are reset. Failures (`ENOTCONN`) need
    /// no handling.
    public static func shutdownRead(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RD))
    }

    /// Waits until one of `descriptors` is ready or `timeoutMilliseconds` pass (-1: no limit); the number of ready
    /// descriptors, 0 on timeout. An interrupted wait goes on for the time that is left.
    public static func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemCallError) -> Int {
        let start = monotonicNanoseconds()
        var wait = timeoutMilliseconds
        while true {
            let result = descriptors.withUnsafeMutableBufferPointer {
                Glibc.poll($0.baseAddress, nfds_t($0.count), wait)
            }
            if result >= 0 { return Int(result) }
            let code = SystemCallError.currentErrno()
            guard code == EINTR else { throw failure("poll", errno: code) }
            if timeoutMilliseconds >= 0 {
                let elapsed = Int64((monotonicNanoseconds() &- start) / 1_000_000)
                wait = Int32(clamping: max(0, Int64(timeoutMilliseconds) - elapsed))
            }
        }
    }

    // MARK: Any descriptor

    /// Reads up to `buffer.count` bytes from the current position (a pipe, a socket or a file); 0 at the end.
    @inlinable
    public static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemCallError) -> IOResult<Int> {
        let result = retryingInterrupts { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        return try checked("read", result)
    }

    /// Reads up to `buffer.count` bytes of a file at `offset` (`pread`); 0 at its end.
    @inlinable
    public static func readFile(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
    ) throws(SystemCallError) -> Int {
        let result = retryingInterrupts { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
        guard result >= 0 else { throw lastFailure("pread") }
        return result
    }

    /// Reads until `buffer` is full or the descriptor ends; the number of bytes read (less than the buffer only at
    /// the end). For blocking descriptors.
    public static func readFully(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String? = nil
    ) throws(SystemCallError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = retryingInterrupts { Glibc.read(fd, base + filled, buffer.count - filled) }
            if count < 0 { throw lastFailure("read", path: path) }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Writes all of `bytes` (at `offset` with `pwrite`, or at the current position when `offset` is nil). For
    /// blocking descriptors.
    public static func writeAll(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil, path: String? = nil
    ) throws(SystemCallError) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = retryingInterrupts {
                if let offset { return pwrite(fd, base + written, bytes.count - written, off_t(offset + written)) }
                return Glibc.write(fd, base + written, bytes.count - written)
            }
            if count < 0 { throw lastFailure("write", path: path) }
            written += count
        }
    }

    /// Writes all of `bytes` (see ``writeAll(_:_:at:path:)-(_,UnsafeRawBufferPointer,_,_)``).
    public static func writeAll(
        _ fd: Int32, _ bytes: [UInt8], at offset: Int? = nil, path: String? = nil
    ) throws(SystemCallError) {
        let failure = bytes.withUnsafeBytes { buffer -> SystemCallError? in
            do throws(SystemCallError) { try writeAll(fd, buffer, at: offset, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes` to a blocking socket with `MSG_NOSIGNAL`.
    public static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        guard let base = bytes.baseAddress else { return }
        var sent = 0
        while sent < bytes.count {
            let count = livery_send(fd, base + sent, bytes.count - sent, 0)
            if count < 0 { throw lastFailure("send") }
            sent += count
        }
    }

    /// Flushes a file's data and metadata (or a directory's entries) to stable storage.
    public static func sync(_ fd: Int32, path: String? = nil) throws(SystemCallError) {
        guard retryingInterrupts({ fsync(fd) }) == 0 else { throw lastFailure("fsync", path: path) }
    }

    /// Truncates to `length` bytes.
    public static func truncate(_ fd: Int32, to length: Int, path: String? = nil) throws(SystemCallError) {
        guard retryingInterrupts({ ftruncate(fd, off_t(length)) }) == 0 else {
            throw lastFailure("ftruncate", path: path)
        }
    }

    /// Moves the file offset to `offset` from the start.
    public static func seek(_ fd: Int32, to offset: Int, path: String? = nil) throws(SystemCallError) {
        guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else { throw lastFailure("lseek", path: path) }
    }

    /// Takes an exclusive advisory lock without waiting; false if another open file description holds it.
    public static func tryLock(_ fd: Int32, path: String? = nil) throws(SystemCallError) -> Bool {
        let result = retryingInterrupts { flock(fd, LOCK_EX | LOCK_NB) }
        if result == 0 { return true }
        let code = SystemCallError.currentErrno()
        if code == EWOULDBLOCK { return false }
        throw failure("flock", errno: code, path: path)
    }

    public static func fileStatus(_ fd: Int32, path: String? = nil) throws(SystemCallError) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw lastFailure("fstat", path: path) }
        return info
    }

    /// Whether `fd` is an open descriptor of this process (`fcntl(F_GETFD)`), such as standard output, which a
    /// service manager may have closed.
    public static func isOpen(_ fd: Int32) -> Bool {
        fcntl(fd, F_GETFD) != -1
    }

    /// Closes a descriptor. `EINTR` is not retried: on Linux the descriptor is released either way.
    @inlinable
    public static func close(_ fd: Int32) {
        let result = Glibc.close(fd)
        if result != 0 {
            precondition(SystemCallError.currentErrno() != EBADF, "close on an invalid descriptor \(fd)")
        }
    }

    // MARK: Paths

    /// Opens `path` (close-on-exec added), retrying `EINTR`; `mode` applies with `O_CREAT`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(SystemCallError) -> Int32 {
        let fd = retryingInterrupts { Glibc.open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw lastFailure("open", path: path) }
        return fd
    }

    /// Opens `name` relative to the directory `directory` (`openat`), close-on-exec added, retrying `EINTR`.
    public static func open(
        _ name: String, in directory: Int32, _ flags: Int32, mode: mode_t = 0o644, shownPath: String? = nil
    ) throws(SystemCallError) -> Int32 {
        let fd = retryingInterrupts { openat(directory, name, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw lastFailure("open", path: shownPath ?? name) }
        return fd
    }

    public static func openForReading(_ path: String) throws(SystemCallError) -> Int32 {
        try open(path, O_RDONLY)
    }

    /// `stat` of `path`, following a symbolic link.
    public static func pathStatus(_ path: String) throws(SystemCallError) -> stat {
        var info = stat()
        let result = path.withCString { fstatat(AT_FDCWD, $0, &info, 0) }
        guard result == 0 else { throw lastFailure("stat", path: path) }
        return info
    }

    // MARK: Clocks

    /// Monotonic time in nanoseconds; never goes backwards, unaffected by wall-clock changes.
    @inlinable
    public static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Wall-clock seconds since the epoch at the kernel tick's resolution (a few ms): cheap enough per response.
    @inlinable
    public static func coarseWallClockSeconds() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &spec)
        return spec.tv_sec
    }
}
