/// Cheap, unique request ids: a random per-server prefix, the event loop's index and a per-loop counter.
///
/// Ids look like `k3v9a-1f` and stay within 15 bytes (a Swift small string: no allocation) for the first 32^9
/// requests of a loop. Uniqueness holds within a server's lifetime; the random prefix separates restarts.
struct RequestIDGenerator {
    /// The base-32 digit for 0..<32: `0-9` then `a-v`.
    @inline(__always)
    private static func digit(_ value: UInt64) -> UInt8 {
        let value = UInt8(truncatingIfNeeded: value & 31)
        return value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
    private let prefix: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
    private var counter: UInt64 = 0

    /// - Parameters:
    ///   - seed: random bits for the prefix (the server draws them once).
    ///   - loopIndex: the event loop's index, 0..<32.
    init(seed: UInt64, loopIndex: Int) {
        prefix = (
            Self.digit(seed), Self.digit(seed >> 5), Self.digit(seed >> 10), Self.digit(seed >> 15),
            Self.digit(UInt64(loopIndex)), UInt8(ascii: "-")
        )
    }

    mutating func next() -> String {
        counter &+= 1
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &scratch) { bytes in
            bytes[0] = prefix.0
            bytes[1] = prefix.1
            bytes[2] = prefix.2
            bytes[3] = prefix.3
            bytes[4] = prefix.4
            bytes[5] = prefix.5
            var digits = 0
            var value = counter
            repeat {
                digits += 1
                value >>= 5
            } while value > 0
            value = counter
            var position = 6 + digits
            while position > 6 {
                position -= 1
                bytes[position] = Self.digit(value)
                value >>= 5
            }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<(6 + digits)]), as: UTF8.self)
        }
    }

    /// Whether a client-supplied id is safe to echo and log: 1-64 characters of `A-Z a-z 0-9 . _ : -`.
    static func isAcceptable(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
                UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}
