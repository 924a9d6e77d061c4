import LiveryProtocol
import Testing

@Suite struct PublicKeyFileTests {
    /// A P-256 SubjectPublicKeyInfo (a public key: nothing secret).
    static let base64 =
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEKkgP00camcGqcqA0zTlEhj7HLDjtXG7oiY+Ii794VQ2lSYFHygatWWOsyd2l/98kINJffh5rGVB2J4wo8JKiUA=="

    /// The file `livery keys create --id k1` prints for that key, byte for byte.
    static let fileText = """
        # Livery public key "k1" (ecdsa-p256-sha256).
        # Apps embed the key id and this base64 SubjectPublicKeyInfo (DER):
        # \(base64)
        Livery-Key-Id: k1
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEKkgP00camcGqcqA0zTlEhj7HLDjt
        XG7oiY+Ii794VQ2lSYFHygatWWOsyd2l/98kINJffh5rGVB2J4wo8JKiUA==
        -----END PUBLIC KEY-----

        """

    static func file() throws -> PublicKeyFile {
        PublicKeyFile(keyID: try #require(KeyID("k1")), derRepresentation: try #require(Base64.decode(base64)))
    }

    @Test func writesTheTextLiveryKeysCreatePrints() throws {
        #expect(try Self.file().text == Self.fileText)
    }

    @Test func readsBackWhatItWrites() throws {
        let parsed = try PublicKeyFile.parse(Array(Self.fileText.utf8))
        #expect(parsed == (try Self.file()))
        #expect(parsed.derRepresentation.count == 91)
    }

    @Test func readsCRLFLineBreaksAndAnIdLineInAnyCase() throws {
        let text = Self.fileText.replacingOccurrences("Livery-Key-Id: k1", with: "livery-key-id:\tk1 ")
            .replacingOccurrences("\n", with: "\r\n")
        #expect(try PublicKeyFile.parse(Array(text.utf8)) == (try Self.file()))
    }

    @Test func refusesAFileWithoutItsKeyIdLine() {
        let text = Self.fileText.replacingOccurrences("Livery-Key-Id: k1\n", with: "")
        #expect(throws: PublicKeyFile.ParseError.missingKeyID) { try PublicKeyFile.parse(Array(text.utf8)) }
    }

    @Test func refusesAKeyIdBreakingTheRuleOrGivenTwice() {
        let bad = Self.fileText.replacingOccurrences("Livery-Key-Id: k1", with: "Livery-Key-Id: k 1")
        #expect(throws: PublicKeyFile.ParseError.invalidKeyID("k 1")) { try PublicKeyFile.parse(Array(bad.utf8)) }
        let twice = Self.fileText.replacingOccurrences(
            "Livery-Key-Id: k1", with: "Livery-Key-Id: k1\nLivery-Key-Id: k2")
        #expect(throws: PublicKeyFile.ParseError.invalidKeyID("k2")) { try PublicKeyFile.parse(Array(twice.utf8)) }
    }

    @Test func refusesAPrivateKeyFile() {
        let text =
            "Livery-Key-Id: k1\n-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"
        #expect(throws: PublicKeyFile.ParseError.privateKey) { try PublicKeyFile.parse(Array(text.utf8)) }
    }

    @Test func refusesACutOrDamagedBlock() {
        let cut = Self.fileText.replacingOccurrences("-----END PUBLIC KEY-----\n", with: "")
        #expect(throws: PublicKeyFile.ParseError.missingPublicKeyBlock) { try PublicKeyFile.parse(Array(cut.utf8)) }
        let damaged = Self.fileText.replacingOccurrences("XG7oiY+", with: "XG7oiY*")
        #expect(throws: PublicKeyFile.ParseError.invalidBase64) { try PublicKeyFile.parse(Array(damaged.utf8)) }
    }
}

extension String {
    /// Every occurrence of `target` replaced (Foundation-free, as the target under test is).
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
