#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One blocking `GET` over plain HTTP/1.1, for container health checks: connect, send, read the status line.
///
/// Deliberately tiny (no TLS, redirects or bodies): the image has no curl, and a health check must not depend on
/// anything but the binary. Every step is bounded by `timeout`.
struct HealthProbe {
    /// A parsed `http://host[:port]/path` URL.
    struct Target: Equatable {
        var host: String
        var port: Int
        var path: String

        /// Parses `http://HOST[:PORT][/PATH]`; HOST may be an IPv6 literal in brackets. Port defaults to 80.
        init?(url: String) {
            guard url.hasPrefix("http://") else { return nil }
            let rest = url.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var path = String(rest.dropFirst(authority.count))
            if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
            if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
            guard !authority.isEmpty, !authority.contains("@") else { return nil }
            var host: Substring
            var portText: Substring?
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[authority.index(after: authority.startIndex)..<close]
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { return nil }
                    portText = after.dropFirst()
                }
            } else if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            let port = portText.map { Int($0) } ?? 80
            guard !host.isEmpty, let port, (1...65535).contains(port),
                path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else { return nil }
            self.host = String(host)
            self.port = port
            self.path = path
        }
    }

    /// Why a probe did not get a status.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let target: Target
    /// Bound of the connect, of sending, and of each receive, in seconds.
    let timeout: Double

    /// The response's status code.
    func status() throws(Failure) -> Int {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target.host, String(target.port), &hints, &list) == 0, let first = list else {
            throw Failure(description: "cannot resolve \(target.host)")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(Self.reason())") }
        defer { close(fd) }
        try connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen)
        var interval = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))

        let hostHeader = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        let request = Array(
            "GET \(target.path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: livery-healthcheck\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { bytes -> Int in
                guard let base = bytes.baseAddress else { return 0 }
                return send(fd, base + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send: \(Self.reason())")
            }
            sent += count
        }
        // "HTTP/1.1 200 " is all that is needed; read until the status line is complete.
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !received.contains(0x0A), received.count < 4096 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[0..<count]
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw Failure(description: errno == EAGAIN ? "no answer within \(timeout) s" : "recv: \(Self.reason())")
            }
        }
        let line = String(decoding: received.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            throw Failure(description: "not an HTTP response")
        }
        return code
    }

    /// A connect bounded by `timeout`: non-blocking, then `poll`, then back to blocking.
    private func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) throws(Failure) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(fd, address, length) != 0 {
            guard errno == EINPROGRESS else { throw Failure(description: "connect: \(Self.reason())") }
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, Int32(timeout * 1000))
            guard ready > 0 else { throw Failure(description: "connect: no answer within \(timeout) s") }
            var code: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size)
            guard code == 0 else {
                throw Failure(description: "connect: \(String(cString: strerror(code)).lowercased())")
            }
        }
        _ = fcntl(fd, F_SETFL, flags)
    }

    private static func reason() -> String { String(cString: strerror(errno)).lowercased() }
}
