#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: which operation, on which path (when there is one), and its `errno`.
///
/// The one error type of the system-call layer. Each caller maps it to its own domain error once (`ZipError`,
/// `StoreError`, `SkinSourceError`, ...); it is never shown to an HTTP client (it names paths).
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, such as `open`, `fsync` or `rename`.
    public let operation: String
    /// The path the call was about, if any.
    public let path: String?
    /// The call's `errno` (for `getaddrinfo`, its `EAI_` code).
    public let errno: Int32

    @inlinable
    public init(_ operation: String, path: String? = nil, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// `strerror` of `errno` (`gai_strerror` for `getaddrinfo`, whose `errno` is its `EAI_` code).
    public var reason: String {
        if operation == "getaddrinfo", let text = gai_strerror(errno) { return String(cString: text) }
        return Self.text(errno)
    }

    /// `open /srv/x: No such file or directory (errno 2)`.
    public var description: String {
        "\(operation)\(path.map { " \($0)" } ?? ""): \(reason) (errno \(errno))"
    }

    /// `ELOOP`: an `O_NOFOLLOW` open met a symbolic link (or the path loops through links).
    public var isSymbolicLinkRefusal: Bool { errno == ELOOP }

    /// The text of an `errno` value.
    public static func text(_ errno: Int32) -> String {
        guard let text = strerror(errno) else { return "unknown error" }
        return String(cString: text)
    }

    /// The calling thread's current `errno`.
    @inlinable
    public static func currentErrno() -> Int32 {
        #if canImport(Darwin)
            return Darwin.errno
        #elseif canImport(Musl)
            return Musl.errno
        #else
            return Glibc.errno
        #endif
    }
}

/// The result of a call on a non-blocking descriptor: progress, or "try again when the descriptor is ready".
/// `EAGAIN`/`EWOULDBLOCK` is this value, never an error.
@frozen
public enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

extension IOResult: Equatable where Value: Equatable {}
extension IOResult: Sendable where Value: Sendable {}
