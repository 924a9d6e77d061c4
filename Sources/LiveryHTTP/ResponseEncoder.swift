/// Writes response heads (RFC 9112 §4, §6) into an `OutputBuffer`.
enum ResponseEncoder {
    /// A handler's header that must not be sent.
    struct InvalidHeader: Error {
        let name: String
    }

    /// Per-response values the server adds.
    struct ServerFields {
        var date: [UInt8]
        var serverLine: [UInt8]
        var requestID: String
        var keepAlive: Bool
        /// Whether the request was HTTP/1.0 (keep-alive must then be announced).
        var requestIsHTTP10: Bool
    }

    static let continueLine: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"

    /// Encodes the status line and header section for `status`/`headers` with a body of `contentLength` bytes.
    ///
    /// Handler headers the server owns (`Content-Length`, `Transfer-Encoding`, `Connection`, `Date`, `Server`,
    /// `X-Request-Id`) are skipped. Names must be tokens and values free of CR, LF, NUL and other controls
    /// (RFC 9110 §5.5); otherwise nothing is kept in `out` and `InvalidHeader` is thrown.
    static func encodeHead(
        status: HTTPStatus, headers: HTTPHeaders, contentLength: UInt64, fields: ServerFields, into out: OutputBuffer
    ) throws(InvalidHeader) {
        let start = out.count
        let code = (100...599).contains(status.code) ? status.code : 500
        if let line = commonStatusLine(status) {
            out.append(line)
        } else {
            out.append("HTTP/1.1 ")
            out.appendDecimal(UInt64(code))
            out.append(byte: HTTPGrammar.space)
            if code == status.code, HTTPGrammar.isValidFieldValue(status.reason) {
                out.append(string: status.reason)
            } else if code != status.code {
                out.append("Internal Server Error")
            }
            out.append("\r\n")
        }
        if let wire = headers.wire {
            out.append(wire)
        } else {
            do {
                try encodeFields(headers, into: out)
            } catch {
                out.truncate(to: start)
                throw error
            }
        }
        // RFC 9110 §8.6: no Content-Length in 1xx and 204 responses; a 304 would announce the selected
        // representation's length, which the server does not know, so it sends none.
        if !(code < 200 || code == 204 || code == 304) {
            out.append("Content-Length: ")
            out.appendDecimal(contentLength)
            out.append("\r\n")
        }
        out.append(fields.date)
        out.append(fields.serverLine)
        out.append("X-Request-Id: ")
        out.append(string: fields.requestID)
        out.append("\r\n")
        if !fields.keepAlive {
            out.append("Connection: close\r\n")
        } else if fields.requestIsHTTP10 {
            out.append("Connection: keep-alive\r\n")
        }
        out.append("\r\n")
    }

    /// The status line of the statuses most responses have, with their standard reasons, written as is (the
    /// general path checks the reason phrase on every response); nil for any other status or reason.
    private static func commonStatusLine(_ status: HTTPStatus) -> StaticString? {
        switch status.code {
        case 200 where status.reason == HTTPStatus.ok.reason: "HTTP/1.1 200 OK\r\n"
        case 206 where status.reason == HTTPStatus.partialContent.reason: "HTTP/1.1 206 Partial Content\r\n"
        case 304 where status.reason == HTTPStatus.notModified.reason: "HTTP/1.1 304 Not Modified\r\n"
        case 404 where status.reason == HTTPStatus.notFound.reason: "HTTP/1.1 404 Not Found\r\n"
        default: nil
        }
    }

    /// Appends a `name: value` CRLF line for each field the server does not own, validating as it copies.
    /// On an invalid field, throws having appended part of the fields.
    static func encodeFields(_ headers: HTTPHeaders, into out: OutputBuffer) throws(InvalidHeader) {
        for field in headers {
            if isServerOwned(field.name) { continue }
            guard !field.name.isEmpty, out.append(field.name, ifEvery: HTTPGrammar.isTokenChar) else {
                throw InvalidHeader(name: field.name)
            }
            out.append(": ")
            guard out.append(field.value, ifEvery: HTTPGrammar.isFieldValueChar) else {
                throw InvalidHeader(name: field.name)
            }
            out.append("\r\n")
        }
    }

    private static func isServerOwned(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: HTTPGrammar.equalsIgnoringCase(name, "date")
        case 6: HTTPGrammar.equalsIgnoringCase(name, "server")
        case 10: HTTPGrammar.equalsIgnoringCase(name, "connection")
        case 12: HTTPGrammar.equalsIgnoringCase(name, "x-request-id")
        case 14: HTTPGrammar.equalsIgnoringCase(name, "content-length")
        case 17: HTTPGrammar.equalsIgnoringCase(name, "transfer-encoding")
        default: false
        }
    }
}
