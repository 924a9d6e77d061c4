import Dispatch
import LiveryCrypto
import LiveryProtocol
import Synchronization
import Testing

/// A key that counts its signatures, and can be told to fail.
final class CountingSigner: BodySigner {
    let key: SigningKey
    let signatures = Atomic<Int>(0)
    let failing = Atomic<Bool>(false)

    init(id: String = "k1") throws { key = try SigningKeyTests.make(id: id) }

    var id: KeyID { key.id }
    var algorithm: SignatureAlgorithm { key.algorithm }

    func sign(_ bytes: [UInt8]) throws(KeyError) -> [UInt8] {
        if failing.load(ordering: .relaxed) { throw .cryptoFailure(operation: "sign") }
        signatures.add(1, ordering: .relaxed)
        return try key.sign(bytes)
    }
}

/// The signer makes each distinct body's signature once, however many requests and threads ask.
@Suite struct ResponseSignerTests {
    static func ring(_ keys: SigningKey...) -> PublicKeyRing {
        var ring = PublicKeyRing()
        for key in keys { ring.add(key.publicKey, id: key.id) }
        return ring
    }

    @Test func signsEachDistinctBodyOnceAndRepeatsTheSameValue() throws {
        let key = try CountingSigner()
        let signer = ResponseSigner(signer: key)
        let bodies = (0..<5).map { Array(#"{"skinSign":"\#($0)"}"#.utf8) }
        var first: [String] = []
        for body in bodies { first.append(try signer.headerValue(for: body)) }
        for _ in 0..<20 {
            for (index, body) in bodies.enumerated() { #expect(try signer.headerValue(for: body) == first[index]) }
        }
        #expect(key.signatures.load(ordering: .relaxed) == 5)
        for (index, body) in bodies.enumerated() {
            try Self.ring(key.key).verify(body: body, headerValue: first[index])
        }
    }

    @Test func concurrentRequestsStillSignEachBodyOnce() throws {
        let key = try CountingSigner()
        let signer = ResponseSigner(signer: key)
        let bodies = (0..<16).map { Array("body \($0)".utf8) }
        let values = Mutex<[Int: Set<String>]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<50 {
                let index = (worker + round) % bodies.count
                guard let value = try? signer.headerValue(for: bodies[index]) else { continue }
                values.withLock { _ = $0[index, default: []].insert(value) }
            }
        }
        #expect(key.signatures.load(ordering: .relaxed) == bodies.count)
        let seen = values.withLock { $0 }
        #expect(seen.count == bodies.count && seen.values.allSatisfy { $0.count == 1 }, "one value per body")
    }

    @Test func theCacheIsBoundedAndKeepsBodiesInUse() throws {
        let key = try CountingSigner()
        let signer = ResponseSigner(signer: key, capacity: 8)
        let hot = Array("the current answer".utf8)
        _ = try signer.headerValue(for: hot)
        for index in 0..<100 {
            _ = try signer.headerValue(for: Array("old answer \(index)".utf8))
            _ = try signer.headerValue(for: hot)
            #expect(signer.cachedCount <= 8)
        }
        #expect(key.signatures.load(ordering: .relaxed) == 101, "the body asked for all along was signed once")
        _ = try signer.headerValue(for: Array("old answer 0".utf8))
        #expect(key.signatures.load(ordering: .relaxed) == 102, "a body that aged out is signed again")
    }

    @Test func aFailureIsNotCached() throws {
        let key = try CountingSigner()
        let signer = ResponseSigner(signer: key)
        key.failing.store(true, ordering: .relaxed)
        #expect(throws: KeyError.cryptoFailure(operation: "sign")) { try signer.headerValue(for: [1, 2, 3]) }
        key.failing.store(false, ordering: .relaxed)
        let value = try signer.headerValue(for: [1, 2, 3])
        try Self.ring(key.key).verify(body: [1, 2, 3], headerValue: value)
    }
}

/// A ring of public keys by id says why a body and its header do not verify.
@Suite struct PublicKeyRingTests {
    static let body = Array(#"{"skinSign":"3f6c","expiresAt":"2026-12-24T08:00:00Z"}"#.utf8)

    @Test func verifiesAnswersSignedByAnyKeyItHolds() throws {
        let old = try SigningKeyTests.make(id: "2026-a")
        let new = try SigningKeyTests.make(id: "2026-b")
        let ring = ResponseSignerTests.ring(old, new)
        for key in [old, new] {
            let header = try ring.verify(
                body: Self.body, headerValue: ResponseSigner(signer: key).headerValue(for: Self.body))
            #expect(header.keyID == key.id)
        }
    }

    @Test func refusesABodyChangedByOneByte() throws {
        let key = try SigningKeyTests.make(id: "k1")
        let value = try ResponseSigner(signer: key).headerValue(for: Self.body)
        for index in [0, Self.body.count / 2, Self.body.count - 1] {
            var changed = Self.body
            changed[index] ^= 0x01
            #expect(throws: PublicKeyRing.Failure.bodyChanged(key.id)) {
                try ResponseSignerTests.ring(key).verify(body: changed, headerValue: value)
            }
        }
        #expect(throws: PublicKeyRing.Failure.bodyChanged(key.id)) {
            try ResponseSignerTests.ring(key).verify(body: Self.body + [0x0A], headerValue: value)
        }
    }

    @Test func refusesAnUnknownKeyIDAndAKeyWithAnotherKeysID() throws {
        let signing = try SigningKeyTests.make(id: "k2")
        let value = try ResponseSigner(signer: signing).headerValue(for: Self.body)
        let trusted = try SigningKeyTests.make(id: "k1")
        let k2 = try #require(KeyID("k2"))
        #expect(throws: PublicKeyRing.Failure.unknownKeyID(k2, known: [trusted.id])) {
            try ResponseSignerTests.ring(trusted).verify(body: Self.body, headerValue: value)
        }
        var impostor = PublicKeyRing()
        impostor.add(trusted.publicKey, id: k2)
        #expect(throws: PublicKeyRing.Failure.bodyChanged(k2)) {
            try impostor.verify(body: Self.body, headerValue: value)
        }
    }

    @Test func refusesMalformedSignaturesAndUnknownAlgorithms() throws {
        let key = try SigningKeyTests.make(id: "k1")
        let ring = ResponseSignerTests.ring(key)
        let good = try SignatureHeader.parse(try ResponseSigner(signer: key).headerValue(for: Self.body))
        var raw = good
        raw.signature = Array(repeating: 0x11, count: 64)
        #expect(throws: PublicKeyRing.Failure.malformedSignature) { try ring.verify(body: Self.body, header: raw) }
        var truncated = good
        truncated.signature.removeLast()
        #expect(throws: PublicKeyRing.Failure.malformedSignature) {
            try ring.verify(body: Self.body, header: truncated)
        }
        let other = try SignatureHeader.parse(#"keyid="k1", alg="ed25519", sig="\#(Base64.encode(good.signature))""#)
        #expect(throws: PublicKeyRing.Failure.unsupportedAlgorithm("ed25519")) {
            try ring.verify(body: Self.body, header: other)
        }
        #expect(throws: PublicKeyRing.Failure.malformedHeader(.missing("sig"))) {
            try ring.verify(body: Self.body, headerValue: #"keyid="k1", alg="ecdsa-p256-sha256""#)
        }
    }

    @Test func refusesTwoDifferentKeysUnderOneID() throws {
        let a = try SigningKeyTests.make(id: "k1")
        let b = try SigningKeyTests.make(id: "k1")
        var ring = PublicKeyRing()
        let added = ring.add(a.publicKey, id: a.id)
        let addedAgain = ring.add(a.publicKey, id: a.id)
        let conflicting = ring.add(b.publicKey, id: b.id)
        #expect(added && addedAgain, "the same key again is harmless")
        #expect(!conflicting)
        #expect(ring.keys[a.id] == a.publicKey)
    }
}
