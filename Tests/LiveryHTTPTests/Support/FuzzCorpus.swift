import TestSupport

/// Seeds and mutations for fuzzing the parser and the server.
enum FuzzCorpus {
    static let validRequests: [[UInt8]] = [
        "GET /hello HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /query?a=1&b=%20x&a=2 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nUser-Agent: fuzz\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
        "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\nT: v\r\n\r\n",
        "HEAD /hello HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        "GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
        "GET /seq/1 HTTP/1.1\r\nHost: h\r\n\r\nGET /seq/2 HTTP/1.1\r\nHost: h\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET http://h/hello?x HTTP/1.1\r\nHost: h\r\n\r\n"
    ].map { Array($0.utf8) }

    /// Interesting bytes to splice in: delimiters, controls, high bytes.
    static let dictionary: [[UInt8]] =
        [
            "\r\n", "\n", "\r", " ", "\t", ":", "\u{0}", "\r\n\r\n", "0\r\n\r\n", "Transfer-Encoding: chunked\r\n",
            "Content-Length: 5\r\n", "Content-Length: 99999999999999999999\r\n", "Host: h\r\n",
            "ffffffffffffffffff\r\n",
            "%", "%00", "?", "#", "HTTP/1.1", "HTTP/1.0", "HTTP/9.9", ";", ",", "\u{7F}"
        ].map { Array($0.utf8) } + [[0xFF], [0x80], [0xC3, 0x28]]

    /// Applies 1-4 random mutations: flip, insert, delete, splice from the dictionary, duplicate or truncate.
    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        let rounds = Int(random.next() % 4) + 1
        for _ in 0..<rounds {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
            switch random.next() % 7 {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            case 1:
                bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
            case 2 where !bytes.isEmpty:
                let length = min(bytes.count - position, Int(random.next() % 8) + 1)
                bytes.removeSubrange(position..<(position + length))
            case 3:
                bytes.insert(contentsOf: dictionary[Int(random.next() % UInt64(dictionary.count))], at: position)
            case 4 where !bytes.isEmpty:
                let length = min(bytes.count - position, Int(random.next() % 32) + 1)
                bytes.insert(contentsOf: bytes[position..<(position + length)], at: position)
            case 5:
                bytes = Array(bytes.prefix(position))
            default:
                let length = Int(random.next() % 24)
                bytes.insert(
                    contentsOf: (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: position)
            }
        }
    }
}
