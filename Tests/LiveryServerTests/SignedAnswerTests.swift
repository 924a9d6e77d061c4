import Foundation
import HTTPTestSupport
import LiveryCrypto
import LiveryProtocol
import SkinModel
import SkinServing
import Synchronization
import Testing

@testable import LiveryServer

/// A key that counts its signatures, and can be told to fail.
final class CountingKey: BodySigner {
    let key: SigningKey
    let signatures = Atomic<Int>(0)
    let failing = Atomic<Bool>(false)

    init(id: String = "k1") throws { key = try SigningKey.generate(id: try #require(KeyID(id))) }

    var id: KeyID { key.id }
    var algorithm: SignatureAlgorithm { key.algorithm }
    var count: Int { signatures.load(ordering: .relaxed) }

    func sign(_ bytes: [UInt8]) throws(KeyError) -> [UInt8] {
        if failing.load(ordering: .relaxed) { throw .cryptoFailure(operation: "sign") }
        signatures.add(1, ordering: .relaxed)
        return try key.sign(bytes)
    }

    /// A ring holding this key's public half, as an app embeds it.
    var ring: PublicKeyRing {
        var ring = PublicKeyRing()
        ring.add(key.publicKey, id: key.id)
        return ring
    }
}

/// Poll answers signed with `--signing-key`: a signature over the exact body, an `expiresAt` that moves in steps of
/// max-age, one signature per distinct body and step, and answers exactly as before without a key.
@Suite(.serialized) struct SignedAnswerTests {
    /// A harness whose answers `key` signs, with `maxAge` (default 60 s), its clock at `instant` (default 08:01:00Z).
    static func harness(
        _ key: CountingKey, maxAge: Int = 60, at instant: Date = Fixtures.t0.addingTimeInterval(60)
    ) async throws -> LiveryHarness {
        try await LiveryHarness(samples: ["christmas-2026"], at: instant) { configuration in
            configuration.client.signingKey = key
            configuration.client.maxAge = maxAge
        }
    }

    static func expiresAt(_ response: TestResponse) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["expiresAt"] as? String
    }

    @Test func aSignedAnswerCarriesASignatureOverItsExactBodyAndStatesWhenItExpires() async throws {
        let key = try CountingKey(id: "holiday-2026")
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let response = try await harness.get(LiveryHarness.poll)
        #expect(response.status == 200)
        let signature = try #require(response.header("Livery-Signature"))
        let header = try key.ring.verify(body: response.body, headerValue: signature)
        #expect(header.keyID.text == "holiday-2026" && header.algorithmName == "ecdsa-p256-sha256")
        // 08:01:00 is in the step 08:01:00 ..< 08:02:00: expiresAt is its end plus 5 minutes of clock skew, the
        // last member of the body, so no more than max-age + 5 minutes ahead.
        #expect(response.text.hasPrefix(#"{"skinSign":""#) && response.text.contains(#""skinId":"christmas-2026""#))
        #expect(
            response.text.hasSuffix(
                #","app":"demo","platform":"ios","scale":3,"appearance":"light","expiresAt":"2027-01-15T08:07:00Z"}"#),
            "\(response.text)")
        #expect(response.header("ETag") == SkinAnswer.etag(of: response.body), "the tag follows the signed bytes")
        // A cache may serve it stale (Varnish's grace) only until its expiresAt: 08:02:00 + 300 s = 08:07:00.
        #expect(
            response.header("Cache-Control") == "public, max-age=60, stale-while-revalidate=300, stale-if-error=300")
        // A byte changed anywhere in the body no longer verifies.
        var changed = response.body
        changed[changed.count / 2] ^= 0x01
        #expect(throws: PublicKeyRing.Failure.self) { try key.ring.verify(body: changed, headerValue: signature) }
        await harness.stop()
    }

    @Test func bodyETagAndSignatureStayTheSameWithinAStepAndChangeWhenItMoves() async throws {
        let key = try CountingKey()
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let first = try await harness.get(LiveryHarness.poll)
        for second in [15.0, 30, 59.9] {
            harness.clock.set(Fixtures.t0.addingTimeInterval(60 + second))
            let again = try await harness.get(LiveryHarness.poll)
            #expect(again.body == first.body && again.header("ETag") == first.header("ETag"))
            #expect(again.header("Livery-Signature") == first.header("Livery-Signature"))
        }
        let etag = try #require(first.header("ETag"))
        let notModified = try await harness.get(LiveryHarness.poll, headers: "If-None-Match: \(etag)\r\n")
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("ETag") == etag)
        #expect(key.count == 1, "one signature for every poll of the step")

        harness.clock.set(Fixtures.t0.addingTimeInterval(120))  // the next step
        let moved = try await harness.get(LiveryHarness.poll)
        #expect(try Self.expiresAt(moved) == "2027-01-15T08:08:00Z")
        #expect(moved.header("ETag") != etag && moved.header("Livery-Signature") != first.header("Livery-Signature"))
        _ = try key.ring.verify(body: moved.body, headerValue: try #require(moved.header("Livery-Signature")))
        let stale = try await harness.get(LiveryHarness.poll, headers: "If-None-Match: \(etag)\r\n")
        #expect(stale.status == 200 && stale.body == moved.body)
        #expect(key.count == 2)
        await harness.stop()
    }

    @Test func eachDistinctAnswerIsSignedOncePerStepAndARepublishedCatalogKeepsItsSignatures() async throws {
        let key = try CountingKey()
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let queries =
            [1, 2, 3].map { LiveryHarness.poll + "&scale=\($0)" } + [
                "/api/v1/skin?app=unknown&platform=ios&appVersion=7.0.0",
                "/api/v1/skin?app=demo&platform=harmony&appVersion=7.0.0"  // not a platform of the skin: no skin
            ]
        var first: [String: String] = [:]
        var bodies: Set<[UInt8]> = []
        for _ in 0..<3 {
            for query in queries {
                let response = try await harness.get(query)
                let signature = try #require(response.header("Livery-Signature"))
                _ = try key.ring.verify(body: response.body, headerValue: signature)
                #expect(first[query, default: signature] == signature)
                first[query] = signature
                bodies.insert(response.body)
            }
        }
        // One signature per distinct body: every question gets a body naming it, so even the unknown app and the
        // other platform, both "no skin", get bodies (and signatures) of their own.
        #expect(bodies.count == queries.count)
        #expect(key.count == bodies.count)
        // A catalog published again (an admin change elsewhere) gives the same bodies the same signatures.
        harness.service.client.publish(harness.service.client.current)
        for query in queries { #expect(try await harness.get(query).header("Livery-Signature") == first[query]) }
        #expect(key.count == bodies.count)
        await harness.stop()
    }

    /// The themes list is signed as poll answers are: over its exact body with `expiresAt`, once per list and step,
    /// the same bytes, tag and signature for every request within a step.
    @Test func aThemeListIsSignedOncePerStepWithItsExpiry() async throws {
        let key = try CountingKey()
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        try await ThemeListTests.upload(harness, "aurora")
        try await ThemeListTests.releaseTheme(harness, "aurora", #""order": 1"#)
        let signedBefore = key.count
        let first = try await harness.get(ThemeListTests.list)
        let again = try await harness.get(ThemeListTests.list)
        #expect(first.status == 200 && first.body == again.body)
        let signature = try #require(first.header("Livery-Signature"))
        _ = try key.ring.verify(body: first.body, headerValue: signature)
        #expect(again.header("Livery-Signature") == signature && key.count == signedBefore + 1)
        #expect(first.text.hasPrefix(#"{"themes":[{"id":"aurora","#))
        #expect(
            first.text.hasSuffix(
                #"],"app":"demo","platform":"ios","scale":3,"appearance":"light","expiresAt":"2027-01-15T08:07:00Z"}"#),
            "\(first.text)")
        #expect(first.header("ETag") == SkinAnswer.etag(of: first.body), "the tag follows the signed bytes")
        let cached = try await harness.get(
            ThemeListTests.list, headers: "If-None-Match: \(first.header("ETag") ?? "")\r\n")
        #expect(cached.status == 304 && cached.header("Livery-Signature") == nil)
        let control = "public, max-age=60, stale-while-revalidate=300, stale-if-error=300"
        #expect(first.header("Cache-Control") == control && cached.header("Cache-Control") == control)
        await harness.stop()
    }

    /// Rollout buckets are independent per theme, so varying `deviceId` over k themes at partial rollout reaches up
    /// to 2^k distinct lists, each signed: the signed lists kept stay within the byte bound whatever the mix, and
    /// every answer stays correct (the themes the device's buckets give) and verifiable.
    @Test func signedThemeListsKeptStayWithinTheirByteBoundWhateverTheDeviceMix() async throws {
        let key = try CountingKey()
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let ids = ["aurora", "bamboo", "cobalt", "dune", "ember", "fjord"]
        for id in ids {
            try await ThemeListTests.upload(harness, id)
            try await ThemeListTests.releaseTheme(harness, id, #""rollout": 50"#)
        }
        let catalog = harness.service.client.current
        let byteLimit = 16 << 10
        let lists = ThemeListFragments(catalog: catalog, keptLimit: 4096, keptBytesLimit: byteLimit)
        let signer = AnswerSigner(key: key, maxAge: 60)
        let now = Fixtures.t0.addingTimeInterval(60)
        let version = try #require(AppVersion("7.0.0"))
        var distinct: Set<[String]> = []
        var signedBytes = 0
        var mostHeld = (signed: 0, unsigned: 0)
        for device in 0..<600 {
            let request = SkinRequest(app: "demo", platform: .ios, appVersion: version, deviceID: "device-\(device)")
            let decision = SkinResolver.themes(request, in: catalog, at: now)
            let signed = try lists.signedAnswer(for: decision, answering: AnswerBinding(request), by: signer, at: now)
            _ = try key.ring.verify(body: signed.answer.body, headerValue: signed.signature)
            let listed = try #require(
                (try JSONSerialization.jsonObject(with: Data(signed.answer.body)) as? [String: Any])?["themes"]
                    as? [[String: Any]])
            let names = listed.compactMap { $0["id"] as? String }
            #expect(names == decision.themes.map(\.skinID.rawValue))
            if distinct.insert(names).inserted { signedBytes += signed.answer.body.count }
            let held = lists.held
            mostHeld = (max(mostHeld.signed, held.signed.bytes), max(mostHeld.unsigned, held.unsigned.bytes))
        }
        #expect(distinct.count > 40, "half-rollouts over six themes give many distinct lists")
        #expect(signedBytes > 2 * byteLimit, "the lists together are larger than the bound")
        #expect(mostHeld.signed <= byteLimit && mostHeld.unsigned <= byteLimit, "\(mostHeld)")
        // Lists are still kept within the bound: asked again within the step, a list is not signed again.
        let request = SkinRequest(app: "demo", platform: .ios, appVersion: version, deviceID: "device-again")
        let decision = SkinResolver.themes(request, in: catalog, at: now)
        let first = try lists.signedAnswer(for: decision, answering: AnswerBinding(request), by: signer, at: now)
        let signatures = key.count
        #expect(
            try lists.signedAnswer(for: decision, answering: AnswerBinding(request), by: signer, at: now) == first
                && key.count == signatures)
        await harness.stop()
    }

    @Test func noCacheKeepsASignedAnswerPastItsExpiry() async throws {
        // With an hour of max-age, steps last an hour (08:00 ..< 09:00, expiring 09:05): at 08:30 a copy may be
        // kept 35 minutes, not an hour, and served stale not a second longer (Varnish's default grace would add
        // 10 s past expiresAt).
        let key = try CountingKey()
        let harness = try await Self.harness(key, maxAge: 3600, at: Fixtures.t0.addingTimeInterval(1800))
        defer { harness.removeFiles() }
        let response = try await harness.get(LiveryHarness.poll)
        #expect(try Self.expiresAt(response) == "2027-01-15T09:05:00Z")
        #expect(response.header("Cache-Control") == "public, max-age=2100, stale-while-revalidate=0, stale-if-error=0")
        harness.clock.set(Fixtures.t0.addingTimeInterval(60))
        let early = try await harness.get(LiveryHarness.poll)
        #expect(early.header("Cache-Control") == "public, max-age=3600, stale-while-revalidate=240, stale-if-error=240")
        let revalidated = try await harness.get(
            LiveryHarness.poll, headers: "If-None-Match: \(early.header("ETag") ?? "")\r\n")
        #expect(revalidated.status == 304)
        #expect(revalidated.header("Cache-Control") == early.header("Cache-Control"), "a 304 refreshes the same limits")
        // The schedule's boundary still wins when it comes first (the window ends at 10:00).
        harness.clock.set(Fixtures.t0.addingTimeInterval(7200 - 10))
        let late = try await harness.get(LiveryHarness.poll)
        #expect(late.header("Cache-Control") == "public, max-age=10, stale-while-revalidate=300, stale-if-error=300")
        #expect(late.header("Livery-Signature") != nil)
        await harness.stop()
    }

    /// The stale allowance is the whole seconds from the end of max-age to `expiresAt`, never negative.
    @Test(arguments: [
        (60, 360.0, 300), (60, 360.9, 300), (305, 305.5, 0), (0, 0.4, 0), (10, 5.0, 0), (10, -3.0, 0),
        (3600, 3840.0, 240)
    ])
    func staleAllowanceEndsAtExpiry(maxAge: Int, untilExpiry: Double, stale: Int) {
        let now = Fixtures.t0
        let value = ClientAPI.signedCacheControl(
            maxAge: maxAge, expiresAt: now.addingTimeInterval(untilExpiry), now: now)
        #expect(value == "public, max-age=\(maxAge), stale-while-revalidate=\(stale), stale-if-error=\(stale)")
    }

    @Test func anAnswerThatCannotBeSignedIs503WithRetryAfterNeverNoSkin() async throws {
        let key = try CountingKey()
        key.failing.store(true, ordering: .relaxed)
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let failed = try await harness.get(LiveryHarness.poll)
        #expect(failed.status == 503)
        #expect(failed.header("Retry-After") == "1" && failed.header("Cache-Control") == "no-store")
        #expect(failed.text.contains(#""code":"signing_failed""#) && failed.header("Livery-Signature") == nil)
        key.failing.store(false, ordering: .relaxed)
        let recovered = try await harness.get(LiveryHarness.poll)
        #expect(recovered.status == 200 && recovered.header("Livery-Signature") != nil)
        await harness.stop()
    }

    @Test func withoutASigningKeyAnswersAreUnsignedAndStateNoExpiry() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"])
        defer { harness.removeFiles() }
        let response = try await harness.get(LiveryHarness.poll)
        #expect(response.status == 200 && response.header("Livery-Signature") == nil)
        #expect(try Self.expiresAt(response) == nil)
        #expect(response.text.hasSuffix(#""endsAt":"2027-01-15T10:00:00Z"}"#))
        #expect(!response.text.contains(#""app":"#) && !response.text.contains(#""platform":"#), "\(response.text)")
        await harness.stop()
    }

    @Test func stepsLastMaxAgeAndExpiryIsAtMostMaxAgePlusFiveMinutesAhead() throws {
        let key = try CountingKey()
        for maxAge in [0, 1, 60, 300, 86_400] {
            let signer = AnswerSigner(key: key, maxAge: maxAge)
            #expect(signer.period == max(1, maxAge))
            for offset in [0.0, 0.5, 59.99, 3599.5] {
                let now = Fixtures.t0.addingTimeInterval(offset)
                let expiry = signer.expiresAt(step: signer.step(at: now))
                #expect(expiry > now.addingTimeInterval(TimeInterval(AnswerSigner.clockSkew)))
                #expect(expiry <= now.addingTimeInterval(TimeInterval(max(1, maxAge) + AnswerSigner.clockSkew)))
            }
        }
    }

    @Test func anEmptyObjectGetsTheQuestionAndExpiresAtAsItsOnlyMembers() throws {
        let signer = AnswerSigner(key: try CountingKey(), maxAge: 60)
        let binding = AnswerBinding(
            app: "demo", platform: .macos, variant: try #require(PackageVariant(scale: 1, contents: .any)))
        let signed = try signer.sign(
            jsonObject: Array("{}".utf8), answering: binding, step: signer.step(at: Fixtures.t0))
        #expect(
            String(decoding: signed.body, as: UTF8.self)
                == #"{"app":"demo","platform":"macos","scale":1,"appearance":"any","expiresAt":"2027-01-15T08:06:00Z"}"#
        )
    }

    /// A signed answer names the question it answers, as the request asked it: the app as spelled, the platform in
    /// lowercase, the scale as a number (3 when absent), the appearance (`unspecified` and none are `light`), in
    /// this order and just before `expiresAt`. Answers to other questions are other bodies, so a signature for one
    /// never verifies another's bytes.
    @Test(arguments: [
        (
            "/api/v1/skin?app=demo&platform=ios&appVersion=7.0.0",
            #""app":"demo","platform":"ios","scale":3,"appearance":"light","#
        ),
        (
            "/api/v1/skin?app=demo&platform=Android&appVersion=7.0.0&scale=2&appearance=unspecified",
            #""app":"demo","platform":"android","scale":2,"appearance":"light","#
        ),
        (
            "/api/v1/skin?app=demo&platform=iOS&appVersion=7.0.0&scale=1&appearance=Dark",
            #""app":"demo","platform":"ios","scale":1,"appearance":"dark","#
        ),
        (
            "/api/v1/skin?app=Other.App_1&platform=macos&appVersion=7.0.0&scale=03&appearance=any",
            #""app":"Other.App_1","platform":"macos","scale":3,"appearance":"any","#
        ),
        (
            "/api/v1/themes?app=demo&platform=harmony&appVersion=7.0.0&scale=2&appearance=dark",
            #""app":"demo","platform":"harmony","scale":2,"appearance":"dark","#
        )
    ])
    func aSignedAnswerNamesTheQuestionItAnswersBeforeExpiresAt(query: String, question: String) async throws {
        let key = try CountingKey()
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let response = try await harness.get(query)
        #expect(response.status == 200)
        _ = try key.ring.verify(body: response.body, headerValue: try #require(response.header("Livery-Signature")))
        #expect(response.text.hasSuffix(question + #""expiresAt":"2027-01-15T08:07:00Z"}"#), "\(response.text)")
        await harness.stop()
    }

    /// The same decision asked by two apps (a skin for neither, or the kill switch) or for two variants: each body
    /// names its own question, so one's signature does not verify the other's bytes.
    @Test func theSameDecisionForAnotherQuestionIsAnotherSignedBody() async throws {
        let key = try CountingKey()
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let queries = [
            "/api/v1/skin?app=alpha&platform=ios&appVersion=7.0.0",
            "/api/v1/skin?app=beta&platform=ios&appVersion=7.0.0",
            "/api/v1/skin?app=alpha&platform=android&appVersion=7.0.0",
            "/api/v1/skin?app=alpha&platform=ios&appVersion=7.0.0&scale=2",
            "/api/v1/skin?app=alpha&platform=ios&appVersion=7.0.0&appearance=dark"
        ]
        var answers: [(body: [UInt8], signature: String)] = []
        for query in queries {
            let response = try await harness.get(query)
            #expect(response.text.hasPrefix(#"{"skinSign":"","#), "\(response.text)")
            answers.append((response.body, try #require(response.header("Livery-Signature"))))
        }
        for (index, answer) in answers.enumerated() {
            for other in answers[(index + 1)...] {
                #expect(answer.body != other.body)
                #expect(throws: PublicKeyRing.Failure.self) {
                    try key.ring.verify(body: other.body, headerValue: answer.signature)
                }
            }
        }
        await harness.stop()
    }

    /// Every made-up app name is a question of its own, so each is signed; what is kept stays within the table's
    /// bounds (count and bytes) whatever the mix, and every answer still verifies and names its app.
    @Test func signedAnswersKeptStayWithinTheirBoundsWhateverTheAppNames() async throws {
        let key = try CountingKey()
        let harness = try await Self.harness(key)
        defer { harness.removeFiles() }
        let catalog = harness.service.client.current
        let fragments = AnswerFragments(catalog: catalog)
        let byteLimit = 8 << 10
        let table = SignedAnswers<SignedAnswer>(
            signer: AnswerSigner(key: key, maxAge: 60), keptLimit: 50, keptBytesLimit: byteLimit
        ) { $0 }
        let version = try #require(AppVersion("7.0.0"))
        let now = Fixtures.t0.addingTimeInterval(60)
        var most = (count: 0, bytes: 0)
        for index in 0..<400 {
            let request = SkinRequest(app: "app-\(index)", platform: .ios, appVersion: version)
            let decision = SkinResolver.resolve(request, in: catalog, at: now, horizon: SkinResolver.defaultHorizon)
            let signed = try table.answer(for: decision, answering: AnswerBinding(request), from: fragments, at: now)
            _ = try key.ring.verify(body: signed.answer.body, headerValue: signed.signature)
            #expect(String(decoding: signed.answer.body, as: UTF8.self).contains(#""app":"app-\#(index)","#))
            let held = table.held
            most = (max(most.count, held.count), max(most.bytes, held.bytes))
        }
        #expect(key.count == 400)
        #expect(most.count <= 50 && most.bytes <= byteLimit && most.bytes > byteLimit / 2, "\(most)")
        await harness.stop()
    }
}
