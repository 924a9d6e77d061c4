import Testing

/// Bytes compared exactly but described briefly (size and an FNV-1a digest), so a failed comparison of two
/// images reports which differ instead of printing thousands of numbers.
struct ByteString: Equatable, CustomTestStringConvertible {
    let bytes: [UInt8]?

    init(_ bytes: [UInt8]?) { self.bytes = bytes }

    var testDescription: String {
        guard let bytes else { return "(no file)" }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return "\(bytes.count) bytes, fnv1a \(String(hash, radix: 16))"
    }
}
