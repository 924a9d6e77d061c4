import LiveryCrypto
import LiveryProtocol
import Testing

/// HMAC-SHA256 against RFC 4231's test vectors (the device hashes of phones' reports are made with it).
@Suite struct HMACSHA256Tests {
    @Test func matchesRFC4231() {
        let short = HMACSHA256.code(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(Hex.encode(short) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // A key longer than the block is hashed first.
        let long = HMACSHA256.code(
            key: [UInt8](repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(Hex.encode(long) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
