import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An IPv4 or IPv6 socket address with its printable form.
///
/// `description` is `127.0.0.1:8080` for IPv4 and `[::1]:8080` for IPv6 (IPv4-mapped IPv6 peers of a dual-stack
/// socket print as plain IPv4).
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric host: `127.0.0.1`, `::1`.
    public let host: String
    /// The TCP port.
    public let port: Int
    /// Whether the address is IPv6.
    public let isIPv6: Bool

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    init(host: String, port: Int, isIPv6: Bool) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    /// Reads a kernel socket address; nil for families other than IPv4 and IPv6.
    init?(_ storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let (address, port) = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ($0.pointee.sin_addr, $0.pointee.sin_port) }
            }
            self.init(host: Self.format(family: AF_INET, address), port: Int(UInt16(bigEndian: port)), isIPv6: false)
        case AF_INET6:
            let (address, port) = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    ($0.pointee.sin6_addr, $0.pointee.sin6_port)
                }
            }
            let host = Self.format(family: AF_INET6, address)
            if host.hasPrefix("::ffff:"), host.contains(".") {
                self.init(host: String(host.dropFirst(7)), port: Int(UInt16(bigEndian: port)), isIPv6: false)
            } else {
                self.init(host: host, port: Int(UInt16(bigEndian: port)), isIPv6: true)
            }
        default:
            return nil
        }
    }

    private static func format<T>(family: Int32, _ address: T) -> String {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = withUnsafePointer(to: &address) { inet_ntop(family, $0, &text, socklen_t(text.count)) != nil }
        guard ok else { return "?" }
        let end = text.firstIndex(of: 0) ?? text.count
        return String(decoding: text[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A resolved address ready for `bind`.
struct BindAddress {
    var storage: sockaddr_storage
    var length: socklen_t
    var family: Int32

    /// Resolves a numeric host (`0.0.0.0`, `::`, `127.0.0.1`, `::1`) or a host name (first result of
    /// `getaddrinfo`) together with a port.
    static func resolve(host: String, port: Int) throws(HTTPServerError) -> BindAddress {
        guard (0...65535).contains(port) else { throw .invalidAddress(host: host, port: port) }
        let addresses: [ResolvedAddress]
        do throws(SystemCallError) {
            addresses = try Syscall.resolve(host: host, port: port, passive: true)
        } catch {
            throw .invalidAddress(host: host, port: port)
        }
        // The first IPv4 or IPv6 result.
        guard let first = addresses.first else { throw .invalidAddress(host: host, port: port) }
        return BindAddress(storage: first.storage, length: first.length, family: first.family)
    }
}
