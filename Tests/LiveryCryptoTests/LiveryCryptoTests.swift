import LiveryCrypto
import LiveryProtocol
import Testing

@Suite struct SHA256Tests {
    @Test func hashesKnownVectors() {
        #expect(SHA256.hexHash([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexHash(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func incrementalUpdatesEqualOneShot() {
        let data = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA256()
        for chunk in stride(from: 0, to: data.count, by: 777) {
            hasher.update(data[chunk..<min(chunk + 777, data.count)])
        }
        #expect(hasher.finalize() == SHA256.hash(data))
    }
}

@Suite struct HexTests {
    @Test func roundTrips() {
        let bytes: [UInt8] = [0, 1, 0xAB, 0xFF]
        #expect(Hex.encode(bytes) == "0001abff")
        #expect(Hex.decode("0001ABff") == bytes)
    }

    @Test(arguments: ["0", "zz", "0g"]) func rejectsMalformed(_ text: String) {
        #expect(Hex.decode(text) == nil)
    }
}

@Suite struct SecretsTests {
    @Test func comparesByContent() {
        #expect(Secrets.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Secrets.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Secrets.constantTimeEquals([1, 2], [1, 2, 3]))
    }

    @Test func randomBytesDiffer() throws {
        let a = try Secrets.randomBytes(count: 32)
        let b = try Secrets.randomBytes(count: 32)
        #expect(a.count == 32 && a != b)
    }
}
