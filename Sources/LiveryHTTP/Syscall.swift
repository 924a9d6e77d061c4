#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLiveryHTTP

/// The result of a non-blocking I/O call: either progress or "try again when the descriptor is ready".
enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

/// A failed system call: which call, and its `errno`.
///
/// Never shown to clients; it is logged and turned into a closed connection or an `HTTPServerError`.
struct SyscallError: Error, CustomStringConvertible {
    let call: StaticString
    let errno: Int32

    var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Every system call the server makes, behind one type that checks results.
///
/// Each wrapper retries `EINTR`, turns `EAGAIN`/`EWOULDBLOCK` into `.wouldBlock` where the call is non-blocking,
/// and treats `EBADF`/`EFAULT` as a bug in this module (asserts in debug builds, throws in release builds so a
/// server never dies from it). Sends always pass `MSG_NOSIGNAL` so a closed peer yields `EPIPE`, not `SIGPIPE`.
enum Syscall {
    private static func check(_ call: StaticString, _ result: Int) throws(SyscallError) -> IOResult<Int> {
        if result >= 0 { return .processed(result) }
        let code = errno
        switch code {
        case EAGAIN, EWOULDBLOCK:
            return .wouldBlock
        case EBADF, EFAULT:
            assertionFailure("\(call) on an invalid descriptor or buffer: errno \(code)")
            throw SyscallError(call: call, errno: code)
        default:
            throw SyscallError(call: call, errno: code)
        }
    }

    /// Runs `body` until it does not fail with `EINTR`.
    private static func retrying(_ body: () -> Int) -> Int {
        while true {
            let result = body()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    static func socket(domain: Int32, type: Int32) throws(SyscallError) -> Int32 {
        let fd = Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SyscallError(call: "socket", errno: errno) }
        return fd
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) throws(SyscallError) {
        var value = value
        let result = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        guard result == 0 else { throw SyscallError(call: "setsockopt", errno: errno) }
    }

    static func bind(_ fd: Int32, address: UnsafePointer<sockaddr>, length: socklen_t) throws(SyscallError) {
        guard Glibc.bind(fd, address, length) == 0 else { throw SyscallError(call: "bind", errno: errno) }
    }

    static func listen(_ fd: Int32, backlog: Int32) throws(SyscallError) {
        guard Glibc.listen(fd, backlog) == 0 else { throw SyscallError(call: "listen", errno: errno) }
    }

    static func localAddress(_ fd: Int32) throws(SyscallError) -> sockaddr_storage {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SyscallError(call: "getsockname", errno: errno) }
        return storage
    }

    /// Accepts one connection as a non-blocking, close-on-exec descriptor.
    ///
    /// Errors that concern only the connection being accepted (`ECONNABORTED`, `EPROTO`, `EPERM`) are reported as
    /// `.processed(nil)` so the caller simply tries the next one.
    static func accept(_ fd: Int32, peer: inout sockaddr_storage) throws(SyscallError) -> IOResult<Int32?> {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = retrying {
            withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Int(livery_accept4(fd, $0, &length)) }
            }
        }
        if result < 0 {
            switch errno {
            case ECONNABORTED, EPROTO, EPERM: return .processed(nil)
            default: break
            }
        }
        switch try check("accept4", result) {
        case .processed(let newFD): return .processed(Int32(newFD))
        case .wouldBlock: return .wouldBlock
        }
    }

    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> IOResult<Int> {
        let result = retrying { recv(fd, buffer.baseAddress, buffer.count, 0) }
        return try check("recv", result)
    }

    /// Sends bytes; `more` sets `MSG_MORE` so the kernel may coalesce them with the next call (used before
    /// `sendfile`, which would otherwise put the response head in a packet of its own).
    static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, more: Bool = false) throws(SyscallError) -> IOResult<Int> {
        let flags = Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0)
        let result = retrying { Glibc.send(fd, buffer.baseAddress, buffer.count, flags) }
        return try check("send", result)
    }

    static func sendFile(to socket: Int32, from file: Int32, offset: inout Int, count: Int) throws(SyscallError) -> IOResult<Int> {
        var fileOffset = off_t(offset)
        let result = retrying { Glibc.sendfile(socket, file, &fileOffset, count) }
        let checked = try check("sendfile", result)
        offset = Int(fileOffset)
        return checked
    }

    /// Reads up to `buffer.count` bytes of a file at `offset` (`pread`); 0 at its end.
    static func readFile(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SyscallError) -> Int {
        let result = retrying { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
        guard result >= 0 else { throw SyscallError(call: "pread", errno: errno) }
        return result
    }

    static func shutdownWrite(_ fd: Int32) {
        // ENOTCONN (peer already gone) is the only expected failure and needs no handling.
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes a descriptor. `EINTR` is not retried: on Linux the descriptor is released either way.
    static func close(_ fd: Int32) {
        let result = Glibc.close(fd)
        if result != 0 && errno == EBADF {
            assertionFailure("close on an invalid descriptor \(fd)")
        }
    }

    static func openForReading(_ path: String) throws(SyscallError) -> Int32 {
        let fd = path.withCString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw SyscallError(call: "open", errno: errno) }
        return fd
    }

    static func fileStatus(_ fd: Int32) throws(SyscallError) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SyscallError(call: "fstat", errno: errno) }
        return info
    }

    static func pathStatus(_ path: String) throws(SyscallError) -> stat {
        var info = stat()
        let result = path.withCString { fstatat(AT_FDCWD, $0, &info, 0) }
        guard result == 0 else { throw SyscallError(call: "stat", errno: errno) }
        return info
    }

    /// Monotonic time in nanoseconds; never goes backwards, unaffected by wall-clock changes.
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Wall-clock seconds since the epoch at the kernel tick's resolution (a few ms): cheap enough per response.
    static func coarseWallClockSeconds() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &spec)
        return spec.tv_sec
    }
}
