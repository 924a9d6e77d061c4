#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One IPv4 or IPv6 socket address, as `getaddrinfo` gave it: ready for `bind` or `connect`.
public struct ResolvedAddress: @unchecked Sendable {
    public var storage: sockaddr_storage
    public var length: socklen_t
    /// `AF_INET` or `AF_INET6`.
    public var family: Int32

    /// Runs `body` with the address as the `sockaddr` the socket calls take.
    public func withSocketAddress<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemCallError) -> Result
    ) throws(SystemCallError) -> Result {
        var copy = storage
        let result = withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Swift.Result { () throws(SystemCallError) in try body(address, length) }
            }
        }
        return try result.get()
    }
}

extension Syscall {
    /// The IPv4 and IPv6 addresses of `host` and `port` for a stream socket, in `getaddrinfo`'s order (the one
    /// name resolution of the server and the CLI).
    ///
    /// - Parameters:
    ///   - host: a numeric address or a name; empty with `passive` means every local address (`0.0.0.0`/`::`).
    ///   - passive: addresses to `bind` (`AI_PASSIVE`) rather than to connect to.
    /// - Throws: operation `getaddrinfo` (its `errno` the `EAI_` code) when the name does not resolve or yields
    ///   no IPv4 or IPv6 address.
    public static func resolve(host: String, port: Int, passive: Bool) throws(SystemCallError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty && passive ? nil : host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw SystemCallError("getaddrinfo", path: host, errno: status) }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            let family = entry.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let address = entry.pointee.ai_addr else { continue }
            var storage = sockaddr_storage()
            let length = min(entry.pointee.ai_addrlen, socklen_t(MemoryLayout<sockaddr_storage>.size))
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
            }
            addresses.append(ResolvedAddress(storage: storage, length: length, family: family))
        }
        guard !addresses.isEmpty else { throw SystemCallError("getaddrinfo", path: host, errno: EAI_NONAME) }
        return addresses
    }
}
