#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A blocking TCP connection for the command line's small clients (`livery healthcheck`, the ops commands): every
/// step bounded by one timeout. Owns its descriptor and closes it exactly once.
public struct ClientSocket: ~Copyable {
    /// The connected socket, valid for the value's lifetime. Never close it yourself.
    public let descriptor: Int32

    deinit { Syscall.close(descriptor) }

    /// Connects to `host:port`, trying each address `getaddrinfo` gives in order until one accepts.
    ///
    /// Each connect waits at most `timeout` seconds, and so does every later send and receive
    /// (`SO_SNDTIMEO`/`SO_RCVTIMEO`). A name that does not resolve throws operation `getaddrinfo` (its `errno`
    /// then holds the `EAI_` code and `reason` its text); otherwise the last address's failure is thrown, and a
    /// connect that outlived `timeout` has `ETIMEDOUT`.
    public init(host: String, port: Int, timeout: Double) throws(SystemCallError) {
        let addresses = try Syscall.resolve(host: host, port: port, passive: false)
        var failure = SystemCallError("connect", path: host, errno: EHOSTUNREACH)
        for address in addresses {
            do throws(SystemCallError) {
                let fd = try Syscall.socket(domain: address.family, type: Int32(SOCK_STREAM.rawValue))
                do throws(SystemCallError) {
                    try address.withSocketAddress { (pointer, length) throws(SystemCallError) in
                        try Self.connect(fd, pointer, length, timeout: timeout)
                    }
                } catch {
                    Syscall.close(fd)
                    throw error
                }
                descriptor = fd
                return
            } catch {
                failure = SystemCallError(error.operation, path: host, errno: error.errno)
            }
        }
        throw failure
    }

    /// A connect bounded by `timeout`: non-blocking, then `poll`, then back to blocking with send and receive
    /// timeouts.
    private static func connect(
        _ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t, timeout: Double
    ) throws(SystemCallError) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        if case .wouldBlock = try Syscall.connect(fd, address: address, length: length) {
            let deadline = ContinuousClock.now + .seconds(timeout)
            var ready = 0
            while ready == 0 {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw SystemCallError("connect", errno: ETIMEDOUT) }
                var descriptors = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
                let milliseconds =
                    left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                ready = try Syscall.poll(&descriptors, timeoutMilliseconds: Int32(clamping: milliseconds))
            }
            let code = try Syscall.pendingError(fd)
            guard code == 0 else { throw SystemCallError("connect", errno: code) }
        }
        _ = fcntl(fd, F_SETFL, flags)
        let seconds = max(timeout, 0.001)
        var interval = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        try Syscall.setOption(fd, level: SOL_SOCKET, name: SO_RCVTIMEO, value: &interval)
        try Syscall.setOption(fd, level: SOL_SOCKET, name: SO_SNDTIMEO, value: &interval)
    }

    /// Sends all of `bytes`; a send that outlives the timeout throws `EAGAIN`.
    public func sendAll(_ bytes: [UInt8]) throws(SystemCallError) {
        let failure = bytes.withUnsafeBytes { buffer -> SystemCallError? in
            do throws(SystemCallError) { try Syscall.sendAll(descriptor, buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Receives up to `buffer.count` bytes; 0 when the server closed the connection. A receive that outlives the
    /// timeout throws `EAGAIN`.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        switch try Syscall.receive(descriptor, into: buffer) {
        case .processed(let count): return count
        case .wouldBlock: throw SystemCallError("recv", errno: EAGAIN)
        }
    }
}
