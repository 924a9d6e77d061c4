/// The shape of an ECDSA signature in DER: `SEQUENCE { INTEGER r, INTEGER s }`, definite short-form lengths, each
/// integer positive and minimally encoded, at most 33 bytes (a P-256 scalar plus a sign byte).
enum ECDSASignatureDER {
    static func isWellFormed(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8, bytes[0] == 0x30, Int(bytes[1]) == bytes.count - 2, bytes[1] < 0x80 else {
            return false
        }
        var index = 2
        for _ in 0..<2 {
            guard index + 2 <= bytes.count, bytes[index] == 0x02 else { return false }
            let length = Int(bytes[index + 1])
            let start = index + 2
            guard (1...33).contains(length), start + length <= bytes.count else { return false }
            // Positive (high bit clear) and minimal (a leading zero only when the next byte needs it).
            guard bytes[start] & 0x80 == 0 else { return false }
            if length > 1 && bytes[start] == 0 && bytes[start + 1] & 0x80 == 0 { return false }
            index = start + length
        }
        return index == bytes.count
    }
}
