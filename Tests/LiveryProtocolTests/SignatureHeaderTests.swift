import LiveryProtocol
import Testing

/// The `Livery-Signature` value: written one way, read strictly by RFC 9110's list, parameter and quoted-string rules.
@Suite struct SignatureHeaderTests {
    static let signature: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02, 0xFF]
    static let sig = Base64.encode(signature)
    static func make(keyID: String = "k1") throws -> SignatureHeader {
        SignatureHeader(keyID: try #require(KeyID(keyID)), algorithm: .ecdsaP256SHA256, signature: signature)
    }

    @Test func formatsTheThreeParametersAsQuotedStrings() throws {
        #expect(try Self.make().format() == #"keyid="k1", alg="ecdsa-p256-sha256", sig="MAYCAQECAQL/""#)
        #expect(SignatureHeader.name == "Livery-Signature")
    }

    @Test func parsesWhatItFormats() throws {
        let header = try Self.make(keyID: "holiday-2026.v2_a")
        #expect(try SignatureHeader.parse(header.format()) == header)
        #expect(try SignatureHeader.parse(header.format()).algorithm == .ecdsaP256SHA256)
    }

    @Test(arguments: [
        "sig=\"\(sig)\", keyid=\"k1\", alg=\"ecdsa-p256-sha256\"",  // any order
        "keyid=k1, alg=ecdsa-p256-sha256, sig=\"\(sig)\"",  // token values
        "KeyID=\"k1\", ALG=\"ecdsa-p256-sha256\", Sig=\"\(sig)\"",  // names ignore case
        "keyid=\"k1\",alg=\"ecdsa-p256-sha256\",\tsig=\"\(sig)\"  ",  // optional whitespace
        ", keyid=\"k1\", , alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\",",  // empty list elements
        // unknown parameters
        "keyid=\"k1\", created=1700000000, note=\"a \\\"quoted\\\", \\\\ value\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"",
        "keyid=\"\\k\\1\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\""  // quoted-pairs in a known value
    ])
    func acceptsEveryRFC9110Spelling(value: String) throws {
        #expect(try SignatureHeader.parse(value) == Self.make())
    }

    @Test(arguments: [
        (
            "keyid=\"k1\", keyid=\"k2\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"",
            SignatureHeader.ParseError.duplicate("keyid")
        ),
        ("keyid=\"k1\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\", SIG=\"\(sig)\"", .duplicate("sig")),
        ("keyid=\"k1\", x=1, alg=\"a\", X=2, sig=\"\(sig)\"", .duplicate("x")),
        ("alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"", .missing("keyid")),
        ("keyid=\"k1\", sig=\"\(sig)\"", .missing("alg")),
        ("keyid=\"k1\", alg=\"ecdsa-p256-sha256\"", .missing("sig")),
        ("", .missing("keyid")),
        ("keyid=\"k 1\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"", .invalidKeyID("k 1")),
        ("keyid=\"\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"", .invalidKeyID("")),
        ("keyid=\"k1\", alg=\"ecdsa-p256-sha256\", sig=\"MAYC AQECAQL/\"", .invalidSignatureEncoding),
        ("keyid=\"k1\", alg=\"ecdsa-p256-sha256\", sig=\"MAYCAQECAQL_\"", .invalidSignatureEncoding),
        ("keyid=\"k1\", alg=\"ecdsa-p256-sha256\", sig=\"\"", .invalidSignatureEncoding),
        (
            "keyid=\"k1\", alg=\"ecdsa-p256-sha256\", sig=\"MAYCAQECAQL/",
            .syntax(offset: 54, expected: "a closing '\"'")
        ),
        (
            "keyid = \"k1\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"",
            .syntax(offset: 5, expected: "'=' right after 'keyid'")
        ),
        ("keyid=\"k1\" alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"", .syntax(offset: 11, expected: "',' or the end")),
        ("keyid=\"k1\"; alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"", .syntax(offset: 10, expected: "',' or the end")),
        (
            "keyid=, alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"",
            .syntax(offset: 6, expected: "a token or a quoted string")
        ),
        ("=\"k1\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"", .syntax(offset: 0, expected: "a parameter name")),
        (
            "keyid=\"k1\r\n\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"",
            .syntax(offset: 9, expected: "a quoted-string character (no control bytes)")
        ),
        (
            "keyid=\"k1\u{0}\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"",
            .syntax(offset: 9, expected: "a quoted-string character (no control bytes)")
        ),
        (
            "keyid=\"k1\\\u{7}\", alg=\"ecdsa-p256-sha256\", sig=\"\(sig)\"",
            .syntax(offset: 10, expected: "a tab, space, visible or obs-text byte after '\\'")
        )
    ])
    func refusesMalformedValues(value: String, error: SignatureHeader.ParseError) {
        #expect(throws: error) { try SignatureHeader.parse(value) }
    }

    @Test func keepsAnUnknownAlgorithmForTheVerifierToName() throws {
        let header = try SignatureHeader.parse("keyid=\"k1\", alg=\"ed25519\", sig=\"\(Self.sig)\"")
        #expect(header.algorithmName == "ed25519" && header.algorithm == nil)
    }
}

/// Base64 as the header and public keys use it: standard alphabet, padded, one spelling per byte string.
@Suite struct Base64Tests {
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy")
    ])
    func encodesAndDecodesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func roundTripsEveryByte() {
        let bytes = (0..<256).map { UInt8($0) } + [0xFB, 0xFF]
        #expect(Base64.encode(bytes).contains("+") && Base64.encode(bytes).contains("/"))
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zh==", "Zm9=", "Zg==Zg==", "Zm9v\n", " Zm9v", "Zm-v", "Zm_v", "Z===", "=Zm9", "Zm9\u{E9}"
    ])
    func refusesNonCanonicalText(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
