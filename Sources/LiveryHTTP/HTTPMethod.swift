/// A request method (RFC 9110 §9): the standard ones as cases, any other valid token as `.other`.
///
/// Methods are case-sensitive (RFC 9110 §9.1): `get` is an unknown method, not `GET`.
public enum HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    case get, head, post, put, delete, options, patch
    /// Any other method token, such as `TRACE`, `CONNECT` or `PROPFIND`, stored verbatim.
    case other(String)

    /// Creates a method from its token; `GET` becomes `.get`, anything else `.other`.
    public init(_ token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        case "PATCH": self = .patch
        default: self = .other(token)
        }
    }

    /// Recognises the standard methods straight from request bytes without building a `String`.
    init(bytes: UnsafeRawBufferPointer) {
        switch bytes.count {
        case 3 where bytes[0] == 0x47 && bytes[1] == 0x45 && bytes[2] == 0x54: self = .get  // GET
        case 3 where bytes[0] == 0x50 && bytes[1] == 0x55 && bytes[2] == 0x54: self = .put  // PUT
        case 4 where bytes[0] == 0x48 && bytes[1] == 0x45 && bytes[2] == 0x41 && bytes[3] == 0x44: self = .head  // HEAD
        case 4 where bytes[0] == 0x50 && bytes[1] == 0x4F && bytes[2] == 0x53 && bytes[3] == 0x54: self = .post  // POST
        default: self.init(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The method token as sent on the wire.
    public var rawValue: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .patch: "PATCH"
        case .other(let token): token
        }
    }

    public var description: String { rawValue }
}
