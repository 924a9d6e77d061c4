/// Why a request could not be read. Each case knows the status and the stable error code the client gets.
///
/// Every parse error ends the connection: the server answers with the status, `Connection: close` and a JSON
/// error body, then closes, because after a framing error the next request's boundary is unknown.
enum HTTPParseError: Error, Equatable {
    /// A line ended with LF alone, or a CR was not followed by LF (RFC 9112 §2.2).
    case invalidLineEnding
    /// The request-line is not `method SP request-target SP HTTP-version` (RFC 9112 §3).
    case invalidRequestLine
    /// The method is not a token (RFC 9112 §3.1).
    case invalidMethod
    /// The request-target has characters outside visible ASCII, is in an unsupported form, or its path does not
    /// percent-decode (RFC 9112 §3.2).
    case invalidTarget
    /// `CONNECT` and its authority-form target are not supported.
    case methodNotImplemented
    /// A major version other than 1 (RFC 9112 §2.3).
    case unsupportedVersion
    /// A field name is not a token (RFC 9112 §5).
    case invalidHeaderName
    /// Whitespace between a field name and the colon (RFC 9112 §5.1: MUST reject with 400).
    case whitespaceBeforeColon
    /// A field value holds NUL, a bare CR or another control character (RFC 9110 §5.5).
    case invalidHeaderValue
    /// A field line starts with whitespace: obsolete line folding (RFC 9112 §5.2).
    case obsoleteLineFolding
    /// HTTP/1.1 without Host, more than one Host, or an invalid Host value (RFC 9112 §3.2).
    case invalidHost
    /// More than one Authorization field line. Its value is not a list (RFC 9110 §11.6.2), so two lines cannot be
    /// combined, and a proxy that reads the last while we read the first would disagree about who is asking.
    case duplicateAuthorization
    /// Content-Length is not a single run of digits, or too large to represent (RFC 9112 §6.3).
    case invalidContentLength
    /// More than one Content-Length field line (RFC 9112 §6.3; we reject even identical duplicates).
    case duplicateContentLength
    /// Both Transfer-Encoding and Content-Length: a request smuggling vector (RFC 9112 §6.1, §6.3).
    case contentLengthWithTransferEncoding
    /// Transfer-Encoding in an HTTP/1.0 request, chunked applied twice or not last (RFC 9112 §6.1, §6.3).
    case invalidTransferEncoding
    /// A transfer coding other than chunked (RFC 9112 §6.1: 501).
    case unsupportedTransferCoding
    /// A chunk-size line is malformed, too long, or its size overflows (RFC 9112 §7.1).
    case invalidChunkSize
    /// Chunk data not followed by CRLF (RFC 9112 §7.1).
    case invalidChunkFraming
    /// An `Expect` value other than `100-continue` (RFC 9110 §10.1.1: 417).
    case unsupportedExpectation
    /// The request line plus header section is over `maxHeaderBytes` (431).
    case headerSectionTooLarge
    /// More header field lines than `maxHeaderCount` (431).
    case tooManyHeaders
    /// The body is over the route's limit (413); answered before the body is read when the length is declared.
    case contentTooLarge(limit: Int)

    var status: HTTPStatus {
        switch self {
        case .methodNotImplemented, .unsupportedTransferCoding: .notImplemented
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedExpectation: .expectationFailed
        case .headerSectionTooLarge, .tooManyHeaders: .requestHeaderFieldsTooLarge
        case .contentTooLarge: .contentTooLarge
        default: .badRequest
        }
    }

    /// A stable machine-readable code for the JSON error body.
    var code: String {
        switch self {
        case .invalidLineEnding: "invalid_line_ending"
        case .invalidRequestLine: "invalid_request_line"
        case .invalidMethod: "invalid_method"
        case .invalidTarget: "invalid_target"
        case .methodNotImplemented: "method_not_implemented"
        case .unsupportedVersion: "unsupported_version"
        case .invalidHeaderName: "invalid_header_name"
        case .whitespaceBeforeColon: "whitespace_before_colon"
        case .invalidHeaderValue: "invalid_header_value"
        case .obsoleteLineFolding: "obsolete_line_folding"
        case .invalidHost: "invalid_host"
        case .duplicateAuthorization: "duplicate_authorization"
        case .invalidContentLength: "invalid_content_length"
        case .duplicateContentLength: "duplicate_content_length"
        case .contentLengthWithTransferEncoding: "content_length_with_transfer_encoding"
        case .invalidTransferEncoding: "invalid_transfer_encoding"
        case .unsupportedTransferCoding: "unsupported_transfer_coding"
        case .invalidChunkSize: "invalid_chunk_size"
        case .invalidChunkFraming: "invalid_chunk_framing"
        case .unsupportedExpectation: "unsupported_expectation"
        case .headerSectionTooLarge: "header_section_too_large"
        case .tooManyHeaders: "too_many_headers"
        case .contentTooLarge: "content_too_large"
        }
    }

    /// The part of the request at fault, for `details.field`: a header's name, `method`, `target`, `version`,
    /// `request-line`, `headers` (the header section as a whole) or `body`.
    var field: String {
        switch self {
        case .invalidLineEnding, .invalidRequestLine: "request-line"
        case .invalidMethod, .methodNotImplemented: "method"
        case .invalidTarget: "target"
        case .unsupportedVersion: "version"
        case .invalidHeaderName, .whitespaceBeforeColon, .invalidHeaderValue, .obsoleteLineFolding,
            .headerSectionTooLarge, .tooManyHeaders:
            "headers"
        case .invalidHost: "Host"
        case .duplicateAuthorization: "Authorization"
        case .invalidContentLength, .duplicateContentLength: "Content-Length"
        case .contentLengthWithTransferEncoding, .invalidTransferEncoding, .unsupportedTransferCoding:
            "Transfer-Encoding"
        case .unsupportedExpectation: "Expect"
        case .invalidChunkSize, .invalidChunkFraming, .contentTooLarge: "body"
        }
    }

    /// The JSON error answer for this error (`details.field` names the part at fault, `details.reason` says why).
    var response: HTTPResponse {
        .error(status, code: code, message: message, details: [("field", field), ("reason", message)])
    }

    var message: String {
        switch self {
        case .invalidLineEnding: "Lines must end with CRLF."
        case .invalidRequestLine: "The request line is malformed."
        case .invalidMethod: "The method is not a valid token."
        case .invalidTarget: "The request target is malformed."
        case .methodNotImplemented: "This method is not supported."
        case .unsupportedVersion: "Only HTTP/1.0 and HTTP/1.1 are supported."
        case .invalidHeaderName: "A header field name is not a valid token."
        case .whitespaceBeforeColon: "Whitespace between a header field name and its colon is not allowed."
        case .invalidHeaderValue: "A header field value contains a forbidden character."
        case .obsoleteLineFolding: "Header line folding is not allowed."
        case .invalidHost: "An HTTP/1.1 request needs exactly one valid Host header field."
        case .duplicateAuthorization: "Authorization appears more than once; send one credential."
        case .invalidContentLength: "Content-Length is not a valid number."
        case .duplicateContentLength: "Content-Length appears more than once."
        case .contentLengthWithTransferEncoding: "Content-Length and Transfer-Encoding cannot be combined."
        case .invalidTransferEncoding: "Transfer-Encoding is not valid for this request."
        case .unsupportedTransferCoding: "Only the chunked transfer coding is supported."
        case .invalidChunkSize: "A chunk size line is malformed."
        case .invalidChunkFraming: "Chunk data must be followed by CRLF."
        case .unsupportedExpectation: "Only the 100-continue expectation is supported."
        case .headerSectionTooLarge: "The request line and header fields are too large."
        case .tooManyHeaders: "There are too many header fields."
        case .contentTooLarge(let limit): "The request body is larger than \(limit) bytes."
        }
    }
}
