/// An HTTP/1.x protocol version (RFC 9112 §2.3).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version; always 1 for requests the server accepts.
    public let major: Int
    /// The minor version: 0 or 1 (a request claiming a higher 1.x minor is treated as 1.1, RFC 9110 §6.2).
    public let minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    // The versions' own names (HTTP/1.0, HTTP/1.1) read better than any camel case.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}
