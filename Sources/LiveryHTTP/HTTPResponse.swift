/// A response as handlers produce it.
///
/// The server owns framing and connection management: it adds `Content-Length`, `Date`, `Server`,
/// `Connection` (when needed) and `X-Request-Id`, and drops any `Content-Length`, `Transfer-Encoding`,
/// `Connection`, `Date` or `X-Request-Id` a handler set. For `HEAD` it sends only the head, with the
/// `Content-Length` the body would have. Header names must be tokens and values must not contain CR, LF or NUL;
/// a response breaking that rule is replaced by a 500 (and logged), never sent.
public struct HTTPResponse: Sendable {
    /// The status; 200 by default.
    public var status: HTTPStatus
    /// Header fields set by the handler.
    public var headers: HTTPHeaders
    /// The content; empty by default.
    public var body: HTTPBody

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: HTTPBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response carrying JSON bytes as `application/json`.
    public static func json(_ status: HTTPStatus, _ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes(bytes))
    }

    /// 503 for a moment of overload (too many connections, no descriptor left): the error body, `Retry-After: 1`
    /// and `Cache-Control: no-store`, so neither a client nor a cache takes it for an answer.
    public static func overloaded(code: String, message: String) -> HTTPResponse {
        var response = error(.serviceUnavailable, code: code, message: message)
        response.headers.add(name: "Retry-After", value: "1")
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    /// The JSON error shape every Livery error uses:
    /// `{"error": {"code": "...", "message": "...", "details": {...}}}` (`details` only when given, keys sorted).
    ///
    /// `code` is a stable machine-readable identifier such as `not_found`; `message` is for humans. Neither should
    /// carry file paths or errno values.
    public static func error(
        _ status: HTTPStatus, code: String, message: String, details: [String: String]? = nil
    ) -> HTTPResponse {
        var text = #"{"error": {"code": "#
        JSONText.appendString(code, to: &text)
        text += #", "message": "#
        JSONText.appendString(message, to: &text)
        if let details, !details.isEmpty {
            text += #", "details": {"#
            for (index, key) in details.keys.sorted().enumerated() {
                if index > 0 { text += ", " }
                JSONText.appendString(key, to: &text)
                text += ": "
                JSONText.appendString(details[key] ?? "", to: &text)
            }
            text += "}"
        }
        text += "}}"
        return .json(status, Array(text.utf8))
    }
}

/// Minimal JSON string encoding for error bodies (RFC 8259 §7).
enum JSONText {
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
