import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small blocking HTTP/1.1 client: one request per connection (`Connection: close`), `http://` or `https://`
/// (OpenSSL, `ClientTLSStream`: the system's CAs, or `caFile` for a private CA), bounded waits. The CLI's ops
/// commands talk to a server with it, and the server calls its guard's webhook with it.
///
/// Written on sockets rather than `URLSession` so neither needs libcurl and both behave the same everywhere; on
/// Linux `URLSession` also cannot trust a private CA file (see `ClientTLSStream`). Blocking: callers on the
/// cooperative pool run it on a thread of their own.
public struct HTTPClient: Sendable {
    /// Where the server is: `http[s]://HOST[:PORT][/PREFIX]`.
    public struct Server: Sendable, Equatable, CustomStringConvertible {
        /// Whether the URL is `https://` (TLS).
        public var isSecure: Bool
        public var host: String
        public var port: Int
        /// A path prefix the server is mounted under (empty, or starting with `/` without a trailing one).
        public var prefix: String

        /// Parses a server URL; `option` names where it came from in the messages.
        ///
        /// - Throws: `HTTPClientError.usage` naming the problem (another scheme, missing host, bad port).
        public init(parsing text: String, option: String = "--server") throws(HTTPClientError) {
            let scheme = ["http://", "https://"].first { text.hasPrefix($0) }
            guard let scheme else {
                throw .usage("\(option) \(text): expected http[s]://HOST[:PORT], such as https://livery.example.com")
            }
            isSecure = scheme == "https://"
            let rest = text.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" }
            var path = String(rest.dropFirst(authority.count))
            while path.hasSuffix("/") { path.removeLast() }
            var host = String(authority)
            var port = isSecure ? 443 : 80
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else {
                    throw .usage("\(option) \(text): unclosed [ in the host")
                }
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let parsed = Int(after.dropFirst()), (1...65535).contains(parsed) else {
                        throw .usage("\(option) \(text): the port must be 1-65535")
                    }
                    port = parsed
                }
                host = String(host[host.index(after: host.startIndex)..<close])
            } else if let colon = host.lastIndex(of: ":") {
                guard let parsed = Int(host[host.index(after: colon)...]), (1...65535).contains(parsed) else {
                    throw .usage("\(option) \(text): the port must be 1-65535")
                }
                port = parsed
                host = String(host[..<colon])
            }
            guard !host.isEmpty else { throw .usage("\(option) \(text): no host") }
            self.host = host
            self.port = port
            self.prefix = path
        }

        public var description: String {
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "\(isSecure ? "https" : "http")://\(shownHost):\(port)\(prefix)"
        }
    }

    /// A response: status, headers (names lowercased) and body.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
    }

    public let server: Server
    /// PEM file of the CAs trusted for `https://` instead of the system's (a private CA). Default nil.
    public var caFile: String?
    /// Seconds to wait for connecting, sending, and each read. Default 120 (large uploads are validated before
    /// the answer).
    public var timeout: Int = 120
    /// The `User-Agent` sent. Default `livery-cli`.
    public var userAgent = "livery-cli"

    public init(server: Server, caFile: String? = nil, timeout: Int = 120) {
        self.server = server
        self.caFile = caFile
        self.timeout = timeout
    }

    /// Sends one request and reads the whole response.
    ///
    /// - Parameter target: the path and query below the server's prefix, such as `/admin/v1/skins`.
    /// - Throws: `HTTPClientError.unreachable` when no connection can be made or the exchange breaks off.
    public func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws(HTTPClientError) -> Response {
        let socket = try connect()
        let tls =
            server.isSecure
            ? try ClientTLSStream(fd: socket.descriptor, host: server.host, caFile: caFile, server: "\(server)") : nil
        var head = "\(method) \(server.prefix)\(target) HTTP/1.1\r\n"
        let shownHost = server.host.contains(":") ? "[\(server.host)]" : server.host
        head += "Host: \(shownHost):\(server.port)\r\nUser-Agent: \(userAgent)\r\nConnection: close\r\n"
        head += "Content-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try sendAll(socket, tls, Array(head.utf8) + body)
        return try Self.parse(try receiveAll(socket, tls))
    }

    private func connect() throws(HTTPClientError) -> ClientSocket {
        do throws(SystemCallError) {
            return try ClientSocket(host: server.host, port: server.port, timeout: Double(timeout))
        } catch {
            if error.operation == "getaddrinfo" { throw .unreachable("cannot resolve \(server.host): \(error.reason)") }
            throw .unreachable("cannot connect to \(server): \(error.reason)")
        }
    }

    /// One send or receive, through TLS when there is a session; `EINTR` retried, other failures thrown.
    private func transfer(
        _ socket: borrowing ClientSocket, _ tls: ClientTLSStream?, sending: UnsafeRawBufferPointer?,
        receiving: UnsafeMutableRawBufferPointer?
    ) throws(SystemCallError) -> Int {
        guard let tls else {
            if let receiving { return try socket.receive(into: receiving) }
            guard let sending else { return 0 }
            switch try Syscall.send(socket.descriptor, sending) {
            case .processed(let count): return count
            case .wouldBlock: throw SystemCallError("send", errno: EAGAIN)
            }
        }
        let count = Syscall.retryingInterrupts { receiving.map(tls.receive) ?? sending.map(tls.send) ?? 0 }
        guard count >= 0 else { throw SystemCallError(receiving == nil ? "SSL_write" : "SSL_read", errno: errno) }
        return count
    }

    private func sendAll(
        _ socket: borrowing ClientSocket, _ tls: ClientTLSStream?, _ bytes: [UInt8]
    ) throws(HTTPClientError) {
        var sent = 0
        while sent < bytes.count {
            let outcome = bytes.withUnsafeBytes { buffer in
                Result { () throws(SystemCallError) in
                    try transfer(
                        socket, tls, sending: UnsafeRawBufferPointer(rebasing: buffer[sent...]), receiving: nil)
                }
            }
            switch outcome {
            case .success(let count):
                sent += count
            case .failure(let error) where error.errno == EPIPE || error.errno == ECONNRESET:
                // The server may answer (413, 401) and close before reading the whole body: read what it said.
                return
            case .failure(let error):
                throw .unreachable("sending to \(server) failed: \(error.reason)")
            }
        }
    }

    private func receiveAll(
        _ socket: borrowing ClientSocket, _ tls: ClientTLSStream?
    ) throws(HTTPClientError) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let outcome = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try transfer(socket, tls, sending: nil, receiving: buffer) }
            }
            switch outcome {
            case .success(0):
                return received
            case .success(let count):
                received += chunk[0..<count]
            case .failure(let error) where error.errno == ECONNRESET && !received.isEmpty:
                return received
            case .failure(let error) where error.errno == EAGAIN || error.errno == EWOULDBLOCK:
                throw .unreachable("\(server) did not answer within \(timeout) s")
            case .failure(let error):
                throw .unreachable("reading from \(server) failed: \(error.reason)")
            }
        }
    }

    /// Parses a complete HTTP/1.1 response read until the server closed the connection.
    public static func parse(_ bytes: [UInt8]) throws(HTTPClientError) -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw .unreachable(
                bytes.isEmpty ? "the server closed the connection without answering" : "the server's answer is not HTTP"
            )
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(
            separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw .unreachable("the server's answer is not HTTP")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            var value = line[line.index(after: colon)...]
            while value.first == " " { value = value.dropFirst() }
            headers[name] = String(value)
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap({ Int($0) }), length <= body.count {
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: body)
    }
}

/// Why an exchange did not happen: bad local input (a URL, a CA file), or no answer.
public enum HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// Bad local input: a URL or a CA file (the CLI's exit 2).
    case usage(String)
    /// The server cannot be reached, or the exchange broke off.
    case unreachable(String)

    public var description: String {
        switch self {
        case .usage(let text), .unreachable(let text): text
        }
    }
}
