import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A failure of the raw test client.
public struct TestClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One parsed response as the raw client saw it.
public struct TestResponse: Sendable {
    public var status: Int
    public var reason: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var closesConnection: Bool { header("connection")?.lowercased() == "close" }
}

/// A blocking raw-socket HTTP/1.1 client for tests, talking to 127.0.0.1 only.
///
/// Every receive has a timeout (5 s by default), so a server that never answers fails the test instead of
/// hanging it. Use it from one thread (inside TestSupport's `blocking { }`), never on the cooperative pool.
public final class TestClient: @unchecked Sendable {
    // Invariant: used by one thread at a time.
    public let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var sawEOF = false
    private var closed = false

    /// Connects to 127.0.0.1:`port`.
    ///
    /// - Parameters:
    ///   - timeout: seconds each send and receive may wait.
    ///   - receiveBufferSize: the socket's `SO_RCVBUF`, set before connecting (a small one makes the server's
    ///     sends block while the test does not read); nil for the system's default.
    public init(port: Int, timeout: Double = 5, receiveBufferSize: Int32? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError("socket: errno \(errno)") }
        if var size = receiveBufferSize {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestClientError("connect: errno \(code)")
        }
        var interval = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
    }

    deinit { close() }

    /// Closes the socket now (as a real client does once it sees the server's EOF).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw TestClientError("send: errno \(errno)")
            }
            sent += result
        }
    }

    /// Sends, ignoring failures (for hostile inputs the server may reject before reading everything).
    public func sendIgnoringErrors(_ bytes: [UInt8]) {
        try? send(bytes)
    }

    /// Receives more bytes into the buffer; false on EOF.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 {
                sawEOF = true
                return false
            }
            if errno == EINTR { continue }
            if errno == ECONNRESET {
                sawEOF = true
                return false
            }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw TestClientError("receive timed out") }
            throw TestClientError("recv: errno \(errno)")
        }
    }

    private func takeLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 0x0A), index > 0, buffer[index - 1] == 0x0D {
                let line = String(decoding: buffer[0..<(index - 1)], as: UTF8.self)
                buffer.removeFirst(index + 1)
                return line
            }
            guard try fill() else { throw TestClientError("connection closed mid-line") }
        }
    }

    private func take(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestClientError("connection closed mid-body") }
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads one response. `forHead` means no body follows (the request was HEAD).
    public func readResponse(forHead: Bool = false) throws -> TestResponse {
        let statusLine = try takeLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw TestClientError("bad status line: \(statusLine)")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try takeLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw TestClientError("bad header: \(line)") }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = TestResponse(
            status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [])
        if forHead || status < 200 || status == 204 || status == 304 { return response }
        guard let lengthText = response.header("content-length"), let length = Int(lengthText) else {
            throw TestClientError("response without Content-Length")
        }
        response.body = try take(length)
        return response
    }

    /// Reads until the server closes; returns the bytes not yet consumed.
    public func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the server closes the connection (EOF or reset) without sending anything more.
    public func closesWithoutData() throws -> Bool {
        if !buffer.isEmpty { return false }
        return try readUntilClosed().isEmpty
    }

    /// Unconsumed received bytes (for tests that inspect raw output).
    public var unreadBytes: [UInt8] { buffer }

    /// Sends one request and reads its response: `Host` first, then `Content-Length` unless the request is a GET or
    /// HEAD without a body, then `headers` in order, then `body`. Send errors are ignored (a server may answer and
    /// close before reading a refused body), so the response is what tells.
    public func request(
        _ method: String, _ target: String, host: String = "test", headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> TestResponse {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in Self.fields(method, host: host, headers: headers, body: body) {
            head += "\(name): \(value)\r\n"
        }
        sendIgnoringErrors(Array((head + "\r\n").utf8) + body)
        return try readResponse(forHead: method == "HEAD")
    }

    /// The header fields `request` sends, in order.
    public static func fields(
        _ method: String, host: String = "test", headers: [(String, String)], body: [UInt8]
    ) -> [(String, String)] {
        var fields = [("Host", host)]
        if !body.isEmpty || (method != "GET" && method != "HEAD") { fields.append(("Content-Length", "\(body.count)")) }
        return fields + headers
    }

    /// `GET path` with keep-alive; returns the response.
    public func get(_ path: String, headers: String = "") throws -> TestResponse {
        try send("GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n")
        return try readResponse()
    }
}
