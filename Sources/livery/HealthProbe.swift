import SystemCalls

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
        let received: [UInt8]
        do throws(SystemCallError) { received = try statusLine() } catch { throw Failure(description: describe(error)) }
        let line = String(decoding: received.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            throw Failure(description: "not an HTTP response")
        }
        return code
    }

    /// Sends the request and reads until the status line is complete ("HTTP/1.1 200 " is all that is needed).
    private func statusLine() throws(SystemCallError) -> [UInt8] {
        let socket = try ClientSocket(host: target.host, port: target.port, timeout: timeout)
        let hostHeader = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        try socket.sendAll(
            Array(
                "GET \(target.path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: livery-healthcheck\r\nConnection: close\r\n\r\n"
                    .utf8))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !received.contains(0x0A), received.count < 4096 {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try socket.receive(into: buffer) }
            }.get()
            if count == 0 { break }
            received += chunk[0..<count]
        }
        return received
    }

    private func describe(_ error: SystemCallError) -> String {
        switch (error.operation, error.errno) {
        case ("getaddrinfo", _): "cannot resolve \(target.host)"
        case ("connect", ETIMEDOUT): "connect: no answer within \(timeout) s"
        case ("recv", EAGAIN), ("send", EAGAIN): "no answer within \(timeout) s"
        default: "\(error.operation): \(error.reason.lowercased())"
        }
    }
}
