/// An HTTP response as `curl -si` saves it: a status line, header lines, an empty line, then the body's bytes.
///
/// Lines may end with CRLF or LF alone (a file that went through an editor or `dos2unix`); the body is everything
/// after the first empty line, byte for byte. Interim 1xx responses that curl prints before the final one (such as
/// `100 Continue`) are skipped.
struct SavedResponse {
    /// The status line, such as `HTTP/1.1 200 OK`.
    var statusLine: String
    /// Header fields in order: name as written, value without surrounding whitespace.
    var fields: [(name: String, value: String)]
    /// The body's exact bytes.
    var body: [UInt8]

    /// Why bytes are not a saved response.
    struct Unusable: Error {
        var reason: String
    }

    /// Values of every field named `name` (ignoring case).
    func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    init(parsing bytes: [UInt8]) throws(Unusable) {
        var start = 0
        while true {
            guard let (head, bodyStart) = Self.head(bytes, from: start) else {
                throw Unusable(reason: "no empty line ends the head: save the response with `curl -si URL > FILE`")
            }
            let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
                String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
            }
            let statusLine = lines[0]
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].count == 3, let status = Int(parts[1]) else {
                throw Unusable(
                    reason: "it does not start with an HTTP status line (such as `HTTP/1.1 200 OK`): "
                        + "save the response with `curl -si URL > FILE`, head included")
            }
            if (100...199).contains(status) {
                start = bodyStart
                continue
            }
            var fields: [(name: String, value: String)] = []
            for (number, line) in lines.dropFirst().enumerated() {
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                    !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
                else {
                    throw Unusable(reason: "header line \(number + 2) is not `Name: value`")
                }
                let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                fields.append(
                    (String(line[..<colon]), String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())))
            }
            self.statusLine = statusLine
            self.fields = fields
            body = Array(bytes[bodyStart...])
            return
        }
    }

    /// The head from `start` up to the first empty line (CRLF CRLF, or LF LF), without it, and where the body starts.
    private static func head(_ bytes: [UInt8], from start: Int) -> ([UInt8], Int)? {
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    return (Array(bytes[start..<index]), index + 2)
                }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"),
                    bytes[index + 2] == UInt8(ascii: "\n")
                {
                    return (Array(bytes[start..<index]), index + 3)
                }
            }
            index += 1
        }
        return nil
    }
}
