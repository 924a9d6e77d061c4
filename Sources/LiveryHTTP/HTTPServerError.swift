import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why an `HTTPServer` could not start.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// The host does not resolve to an IPv4 or IPv6 address, or the port is outside 0...65535.
    case invalidAddress(host: String, port: Int)
    /// The address is already in use by another socket.
    case addressInUse(host: String, port: Int)
    /// Binding needs privileges this process lacks (a port below 1024 without the capability).
    case permissionDenied(host: String, port: Int)
    /// Another socket call failed while setting up the listener.
    case socket(call: String, errno: Int32)
    /// `start()` was called on a server that was already started.
    case alreadyStarted
    /// A configuration value is out of range; the message names it.
    case invalidConfiguration(String)
    /// The TLS certificate or key cannot be used; names the file and OpenSSL's reason.
    case tls(TLSSetupError)

    public var description: String {
        switch self {
        case .invalidAddress(let host, let port): "invalid listen address \(host) port \(port)"
        case .addressInUse(let host, let port): "address \(host) port \(port) is already in use"
        case .permissionDenied(let host, let port): "permission denied binding \(host) port \(port)"
        case .socket(let call, let code): "\(call) failed: \(SystemCallError.text(code))"
        case .alreadyStarted: "the server was already started"
        case .invalidConfiguration(let message): "invalid server configuration: \(message)"
        case .tls(let error): "TLS: \(error)"
        }
    }
}
