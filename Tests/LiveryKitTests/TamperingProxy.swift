import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP socket on 127.0.0.1 (tests only).
struct RawSocket: Sendable {
    let descriptor: Int32

    static func connect(port: Int) throws -> RawSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw KitTestError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw KitTestError("connect to 127.0.0.1:\(port): \(errno)")
        }
        return RawSocket(descriptor: fd)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw KitTestError("send: \(errno)") }
            offset += sent
        }
    }

    func readToEnd() throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    /// Reads exactly `count` bytes (a request body of that `Content-Length`); nil when the peer closes first.
    func read(count: Int) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let received = result[offset...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received < 0 && errno == EINTR { continue }
            guard received > 0 else { return nil }
            offset += received
        }
        return result
    }

    /// Reads up to the end of a request head (`\r\n\r\n`); a body is read after it with `read(count:)`.
    func readHead() -> [UInt8]? {
        var result: [UInt8] = []
        var byte: UInt8 = 0
        while result.count < 65_536 {
            let count = recv(descriptor, &byte, 1, 0)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            result.append(byte)
            if result.count >= 4, result.suffix(4).elementsEqual([13, 10, 13, 10]) { return result }
        }
        return nil
    }

    func close() { _ = Glibc.close(descriptor) }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}

/// An HTTP proxy on 127.0.0.1 in front of `livery serve` that can change what a phone receives: each request is
/// forwarded (with `Connection: close`, its body too), and `rule` decides what goes back — the answer as it came,
/// changed, cut after some body bytes, or one of its own. Requests `local` answers are not forwarded: the proxy is
/// then the capturing server (of outcome reports), and with `local` answering everything, a server of its own.
final class TamperingProxy: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var head: String
        var body: [UInt8] = []
        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

        mutating func setHeader(_ name: String, _ value: String?) {
            headers.removeAll { $0.0.lowercased() == name.lowercased() }
            if let value { headers.append((name, value)) }
        }
    }

    enum Action: Sendable {
        /// Send this response.
        case send(Response)
        /// Send the head (with the full Content-Length) and only the first `bytes` of the body, then close.
        case cut(Response, bytes: Int)
    }

    typealias Rule = @Sendable (Request, Response) -> Action
    typealias Local = @Sendable (Request) -> Response?

    private let listener: Int32
    private let upstreamPort: Int
    private let lock = NSLock()
    private var rule: Rule = { .send($1) }
    private var local: Local = { _ in nil }
    private var seen: [Request] = []
    private var stopped = false
    private(set) var port = 0
    var url: String { "http://127.0.0.1:\(port)" }

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw KitTestError("proxy bind: \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Replaces the rule for the following requests.
    func setRule(_ rule: @escaping Rule) { lock.withLock { self.rule = rule } }

    /// Answers the requests `local` returns a response for, without forwarding them.
    func answerLocally(_ local: @escaping Local) { lock.withLock { self.local = local } }

    /// Every request so far.
    var requests: [Request] { lock.withLock { seen } }

    /// Stops accepting and closes the listening socket, once: a second call (`deinit` after a test's own `stop()`)
    /// must not close the descriptor number again, which by then may belong to another test's open file.
    func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread { [self] in handle(RawSocket(descriptor: client)) }.start()
        }
    }

    private func handle(_ client: RawSocket) {
        defer { client.close() }
        guard let headBytes = client.readHead() else { return }
        let headText = String(decoding: headBytes, as: UTF8.self)
        let requestLine = headText.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        var request = Request(
            method: parts.first.map(String.init) ?? "", path: parts.dropFirst().first.map(String.init) ?? "",
            head: headText)
        if let length = request.header("Content-Length").flatMap({ Int($0) }), length > 0 {
            guard let body = client.read(count: length) else { return }
            request.body = body
        }
        let (rule, local) = lock.withLock { () -> (Rule, Local) in
            seen.append(request)
            return (self.rule, self.local)
        }
        if let answer = local(request) {
            try? client.send(Self.serialize(answer, bodyBytes: answer.body.count))
            return
        }
        var forwarded = headText.split(separator: "\r\n", omittingEmptySubsequences: true)
            .filter { !$0.lowercased().hasPrefix("connection:") && !$0.lowercased().hasPrefix("keep-alive:") }
            .joined(separator: "\r\n")
        forwarded += "\r\nConnection: close\r\n\r\n"
        guard let upstream = try? RawSocket.connect(port: upstreamPort) else { return }
        defer { upstream.close() }
        guard (try? upstream.send(Array(forwarded.utf8) + request.body)) != nil, let raw = try? upstream.readToEnd(),
            let split = RawSocket.headEnd(raw)
        else { return }
        let responseHead = String(decoding: raw[..<split], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let status = Int(responseHead.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [(String, String)] = []
        for line in responseHead.dropFirst() {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2 { headers.append((String(pieces[0]), pieces[1].trimmingCharacters(in: .whitespaces))) }
        }
        let response = Response(status: status, headers: headers, body: Array(raw[(split + 4)...]))
        switch rule(request, response) {
        case .send(let answer):
            try? client.send(Self.serialize(answer, bodyBytes: answer.body.count))
        case .cut(let answer, let bytes):
            try? client.send(Self.serialize(answer, bodyBytes: min(bytes, answer.body.count)))
        }
    }

    private static func serialize(_ response: Response, bodyBytes: Int) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) X\r\n"
        for (name, value) in response.headers
        where !["content-length", "connection", "transfer-encoding", "keep-alive"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + response.body.prefix(bodyBytes)
    }
}

extension TamperingProxy {
    /// A rule that makes the server look like one without the catalog: a catalog request gets the real server's
    /// answer to a path it does not have (404 `not_found`); everything else goes to `rule`.
    static func withoutCatalog(upstreamPort: Int, _ rule: @escaping Rule = { .send($1) }) -> Rule {
        { request, response in
            guard request.path.hasPrefix("/api/v1/catalog") else { return rule(request, response) }
            guard let missing = try? HTTPGet.fetch(port: upstreamPort, path: "/api/v1/no-catalog-here") else {
                return .send(Response(status: 502, headers: [], body: []))
            }
            return .send(Response(missing))
        }
    }
}

extension TamperingProxy.Response {
    /// A response `HTTPGet` fetched, headers as they came.
    init(_ fetched: HTTPGet.Response) {
        var headers: [(String, String)] = []
        for line in fetched.head.split(separator: "\r\n").dropFirst() {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2 { headers.append((String(pieces[0]), pieces[1].trimmingCharacters(in: .whitespaces))) }
        }
        self.init(status: fetched.status, headers: headers, body: fetched.body)
    }
}
