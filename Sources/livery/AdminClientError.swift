import LiveryHTTPClient

/// What can go wrong in an ops command, with its exit status.
enum AdminClientError: Error, CustomStringConvertible {
    /// Bad arguments or local input (exit 2).
    case usage(String)
    /// The server cannot be reached, or the exchange broke off (exit 3).
    case unreachable(String)
    /// The server refused the request with a 4xx (exit 1).
    case rejected(String)
    /// The server failed with a 5xx (exit 3).
    case serverFailed(String)

    var description: String {
        switch self {
        case .usage(let text), .unreachable(let text), .rejected(let text), .serverFailed(let text): text
        }
    }

    /// The process exit status for this error.
    var exitCode: Int32 {
        switch self {
        case .rejected: 1
        case .usage: 2
        case .unreachable, .serverFailed: 3
        }
    }

    /// The ops command's error for the HTTP client's.
    init(_ error: HTTPClientError) {
        switch error {
        case .usage(let text): self = .usage(text)
        case .unreachable(let text): self = .unreachable(text)
        }
    }

    /// `body`'s value, its `HTTPClientError` thrown as the ops command's.
    static func from<Value>(_ body: () throws(HTTPClientError) -> Value) throws(AdminClientError) -> Value {
        do throws(HTTPClientError) {
            return try body()
        } catch {
            throw AdminClientError(error)
        }
    }
}
