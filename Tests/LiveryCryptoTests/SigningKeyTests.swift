import Foundation
import LiveryCrypto
import LiveryProtocol
import TestSupport
import Testing

/// Signing keys: generated, written to a 0600 file that records the id, loaded back, signing bytes that tools
/// Livery did not write (the `openssl` command line) verify.
@Suite struct SigningKeyTests {
    static func make(id: String = "holiday-2026") throws -> SigningKey {
        try SigningKey.generate(id: try #require(KeyID(id)))
    }

    /// The permission bits of the file at `path`.
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    static func openssl(_ arguments: [String]) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run("openssl", arguments)
    }

    @Test func aGeneratedKeySignsWhatItsPublicKeyVerifies() throws {
        let key = try Self.make()
        let body = Array(#"{"skinSign":"abc"}"#.utf8)
        let signature = try key.sign(body)
        #expect(key.publicKey.isValidSignature(signature, for: body))
        #expect(!key.publicKey.isValidSignature(signature, for: body + [0x20]))
        #expect(try !Self.make().publicKey.isValidSignature(signature, for: body), "another key's public key")
        #expect((68...72).contains(signature.count) && signature.first == 0x30, "DER SEQUENCE, not raw r||s")
    }

    @Test func keyFileRoundTripsWithItsIDAndMode0600() throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let key = try Self.make(id: "k1")
        try key.write(toNewFile: scratch.path("k1.pem"))
        #expect(try Self.mode(scratch.path("k1.pem")) == 0o600)
        #expect(try scratch.listing() == ["k1.pem"], "no temporary file is left behind")
        let text = String(decoding: try scratch.read("k1.pem"), as: UTF8.self)
        #expect(text.hasPrefix("Livery-Key-Id: k1\n-----BEGIN PRIVATE KEY-----\n"), "\(text.prefix(40))")
        let loaded = try SigningKey.load(from: scratch.path("k1.pem"))
        #expect(loaded.id == key.id)
        #expect(loaded.publicKey == key.publicKey)
        let body = Array("bytes".utf8)
        #expect(key.publicKey.isValidSignature(try loaded.sign(body), for: body))
    }

    @Test func writingNeverReplacesAnExistingFileOrFollowsALink() throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let existing = try scratch.write("k1.pem", Array("precious".utf8))
        #expect(throws: KeyError.fileExists(path: existing)) { try Self.make().write(toNewFile: existing) }
        #expect(try scratch.read("k1.pem") == Array("precious".utf8))
        let link = scratch.path("dangling.pem")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.path("target.pem"))
        #expect(throws: KeyError.fileExists(path: link)) { try Self.make().write(toNewFile: link) }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("target.pem")))
        #expect(try scratch.listing() == ["dangling.pem", "k1.pem"], "no temporary file is left behind")
    }

    @Test func writingIntoAMissingFolderFailsNamingTheFile() throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let path = scratch.path("missing/k1.pem")
        #expect(throws: KeyError.cannotWrite(path: path, code: ENOENT)) { try Self.make().write(toNewFile: path) }
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o700])
    func loadingRefusesAKeyFileOthersMayRead(mode: Int) throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let path = scratch.path("k1.pem")
        try Self.make(id: "k1").write(toNewFile: path)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        if mode & 0o077 == 0 {
            #expect(try SigningKey.load(from: path).id.text == "k1", "owner-only modes such as 0700 are fine")
            return
        }
        let error = #expect(throws: KeyError.self) { try SigningKey.load(from: path) }
        #expect(error == .readableByOthers(path: path, mode: UInt32(0o100000 | mode)))
        #expect(
            error?.description.contains(path) == true && error?.description.contains(String(mode, radix: 8)) == true)
        #expect(error?.fix == "Run `chmod 600 \(path)` (the file must be readable by its owner only).")
    }

    @Test func loadingRefusesFilesThatAreNotLiveryKeys() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let good = try Self.make(id: "k1")
        try good.write(toNewFile: scratch.path("good.pem"))
        let pem = String(decoding: try scratch.read("good.pem"), as: UTF8.self)
        let withoutID = String(pem.drop { $0 != "-" })
        func file(_ name: String, _ text: String) throws -> String {
            let path = try scratch.write(name, Array(text.utf8))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            return path
        }
        let noID = try file("no-id.pem", withoutID)
        #expect(throws: KeyError.missingKeyID(path: noID)) { try SigningKey.load(from: noID) }
        let badID = try file("bad-id.pem", "Livery-Key-Id: has space\n" + withoutID)
        #expect(throws: KeyError.invalidKeyID(path: badID, text: "has space")) { try SigningKey.load(from: badID) }
        let twoIDs = try file("two-ids.pem", "Livery-Key-Id: a\nLivery-Key-Id: b\n" + withoutID)
        #expect(throws: KeyError.invalidKeyID(path: twoIDs, text: "b")) { try SigningKey.load(from: twoIDs) }
        let garbage = try file(
            "garbage.pem", "Livery-Key-Id: k1\n-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n")
        #expect(
            throws: KeyError.notAKey(
                path: garbage, expected: "an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)")
        ) {
            try SigningKey.load(from: garbage)
        }
        let folder = scratch.path("folder")
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(throws: KeyError.notARegularFile(path: folder)) { try SigningKey.load(from: folder) }
        #expect(throws: KeyError.cannotRead(path: scratch.path("none.pem"), code: ENOENT)) {
            try SigningKey.load(from: scratch.path("none.pem"))
        }

        // Keys made by openssl itself: an encrypted one must fail without prompting; other curves and types are refused.
        let encrypted = scratch.path("encrypted.pem")
        let encrypt = try await Self.openssl([
            "pkcs8", "-topk8", "-in", scratch.path("good.pem"), "-out", encrypted, "-passout", "pass:secret"
        ])
        try #require(encrypt.status == 0, "\(encrypt.transcript)")
        let encryptedPath = try file(
            "encrypted-id.pem",
            "Livery-Key-Id: k1\n" + String(decoding: try scratch.read("encrypted.pem"), as: UTF8.self))
        #expect(
            throws: KeyError.notAKey(
                path: encryptedPath, expected: "an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)")
        ) {
            try SigningKey.load(from: encryptedPath)
        }
        for (name, options) in [
            ("p384", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]),
            ("ed25519", ["-algorithm", "ED25519"])
        ] {
            let made = try await Self.openssl(["genpkey"] + options + ["-out", scratch.path(name + ".raw")])
            try #require(made.status == 0, "\(made.transcript)")
            let path = try file(
                name + ".pem", "Livery-Key-Id: k1\n" + String(decoding: try scratch.read(name + ".raw"), as: UTF8.self))
            #expect(throws: KeyError.unsupportedKey(path: path)) { try SigningKey.load(from: path) }
        }
    }

    @Test func opensslReadsTheKeyFileAsItIs() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let key = try Self.make(id: "k1")
        try key.write(toNewFile: scratch.path("k1.pem"))
        let exported = try await Self.openssl(["pkey", "-in", scratch.path("k1.pem"), "-pubout"])
        #expect(exported.status == 0, "\(exported.transcript)")
        #expect(exported.standardOutput == key.publicKey.pem)
    }

    @Test func signaturesVerifyWithTheOpenSSLCommandLine() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let key = try Self.make(id: "k1")
        try scratch.write("k1.pub", Array(key.publicKey.fileText(id: key.id).utf8))
        let body = Array(#"{"skinSign":"3f6c","expiresAt":"2026-12-24T08:00:00Z"}"#.utf8)
        try scratch.write("body", body)
        try scratch.write("sig", try key.sign(body))
        try scratch.write("changed", body.dropLast() + [UInt8(ascii: "]")])
        let pkeyutl = [
            "pkeyutl", "-verify", "-pubin", "-inkey", scratch.path("k1.pub"), "-rawin", "-digest", "sha256", "-sigfile",
            scratch.path("sig"), "-in"
        ]
        let verified = try await Self.openssl(pkeyutl + [scratch.path("body")])
        #expect(
            verified.status == 0 && verified.standardOutput.contains("Signature Verified Successfully"),
            "\(verified.transcript)")
        let dgst = try await Self.openssl([
            "dgst", "-sha256", "-verify", scratch.path("k1.pub"), "-signature", scratch.path("sig"),
            scratch.path("body")
        ])
        #expect(dgst.status == 0 && dgst.standardOutput.contains("Verified OK"), "\(dgst.transcript)")
        let changed = try await Self.openssl(pkeyutl + [scratch.path("changed")])
        #expect(changed.status != 0, "a body changed by one byte must fail: \(changed.transcript)")
    }

    @Test func opensslSignaturesVerifyWithThePublicKey() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let key = try Self.make(id: "k1")
        try key.write(toNewFile: scratch.path("k1.pem"))
        let body = Array("made by openssl".utf8)
        try scratch.write("body", body)
        let signed = try await Self.openssl([
            "dgst", "-sha256", "-sign", scratch.path("k1.pem"), "-out", scratch.path("sig"), scratch.path("body")
        ])
        try #require(signed.status == 0, "\(signed.transcript)")
        #expect(key.publicKey.isValidSignature(try scratch.read("sig"), for: body))
    }

    @Test func descriptionsAndErrorsNeverShowTheKeyMaterial() throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let key = try Self.make(id: "k1")
        try key.write(toNewFile: scratch.path("k1.pem"))
        let pemLines = String(decoding: try scratch.read("k1.pem"), as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("-----") && !$0.hasPrefix("Livery") }
        var dumped = ""
        dump(key, to: &dumped)
        let texts = [key.description, String(reflecting: key), "\(key)", dumped]
        for text in texts {
            #expect(text.contains("k1"))
            for line in pemLines { #expect(!text.contains(line.prefix(16)), "\(text)") }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: scratch.path("k1.pem"))
        let error = #expect(throws: KeyError.self) { try SigningKey.load(from: scratch.path("k1.pem")) }
        for line in pemLines { #expect(error?.description.contains(line.prefix(16)) == false) }
    }
}

/// Public keys in the forms apps embed (base64 SubjectPublicKeyInfo DER) and operators keep (PEM).
@Suite struct PublicKeyTests {
    @Test func roundTripsThroughBase64DERAndPEM() throws {
        let key = try SigningKeyTests.make().publicKey
        #expect(key.derRepresentation.count == 91)
        #expect(key.base64.hasPrefix("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"), "the P-256 SubjectPublicKeyInfo prefix")
        #expect(PublicKey(base64: key.base64) == key)
        #expect(PublicKey(derRepresentation: key.derRepresentation) == key)
        #expect(PublicKey(pem: Array(key.pem.utf8)) == key)
        #expect(key.description == "PublicKey(\(key.base64))")
    }

    @Test func refusesAnythingButOneP256PublicKey() throws {
        let der = try SigningKeyTests.make().publicKey.derRepresentation
        #expect(PublicKey(derRepresentation: Array(der.dropLast())) == nil, "truncated")
        #expect(PublicKey(derRepresentation: der + [0]) == nil, "trailing bytes")
        #expect(PublicKey(derRepresentation: []) == nil)
        #expect(PublicKey(base64: "not base64!") == nil)
        #expect(PublicKey(base64: Base64.encode(der) + "\n") == nil, "only canonical base64")
        #expect(PublicKey(pem: Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8)) == nil)
        // Other curves' SubjectPublicKeyInfo, made with `openssl genpkey … | openssl pkey -pubout -outform DER`.
        let p384 =
            "MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEofuj4E3eond+Oq8SkgR6eMcNM/TeWR0aOXMxs8TcUgNcfuf7NljsZdwRzSlKXD4kLdvuAevb6/1+BPIfxebJvs0NWO22PmYO9UFl7JdycgCoUhlx93XEBGujtmCWmFgM"
        let secp256k1 =
            "MFYwEAYHKoZIzj0CAQYFK4EEAAoDQgAEqHgwYPCpYxgcuNHqRD7m9SxhgTlV5pOIeyyM1Br6roTzauHTWwtxA+sf2FoQCYkQ88UkBIE2d2qax/0JH2qLtw=="
        #expect(Base64.decode(p384) != nil && Base64.decode(secp256k1) != nil)
        #expect(PublicKey(base64: p384) == nil)
        #expect(PublicKey(base64: secp256k1) == nil, "a 256-bit curve that is not P-256")
    }

    @Test func publicKeyFilesRecordTheIDAndOpenSSLReadsThem() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let key = try SigningKeyTests.make(id: "k2")
        let path = try scratch.write("k2.pub", Array(key.publicKey.fileText(id: key.id).utf8))
        let loaded = try PublicKey.load(from: path)
        #expect(loaded.id == key.id && loaded.key == key.publicKey)
        let openssl = try await SigningKeyTests.openssl(["pkey", "-pubin", "-in", path, "-outform", "DER"])
        #expect(openssl.status == 0, "\(openssl.transcript)")
        let der = try await ExternalProcess.run(
            "sh", ["-c", "openssl pkey -pubin -in '\(path)' -outform DER | base64 -w0"])
        #expect(der.standardOutput == key.publicKey.base64)
        try key.write(toNewFile: scratch.path("k2.pem"))
        let error = #expect(throws: KeyError.self) { try PublicKey.load(from: scratch.path("k2.pem")) }
        #expect(error?.description.contains("found a private key") == true)
    }

    /// The SDK reads the public key file with `PublicKeyFile.parse` (no OpenSSL): the same id and key as the server's
    /// OpenSSL reader, and a private key file refused the same way.
    @Test func thePortableReaderReadsPublicKeyFilesAsTheServerDoes() throws {
        let scratch = try ScratchDirectory(prefix: "livery-keys")
        let key = try SigningKeyTests.make(id: "k3")
        let text = Array(key.publicKey.fileText(id: key.id).utf8)
        let parsed = try PublicKeyFile.parse(text)
        let loaded = try PublicKey.load(from: try scratch.write("k3.pub", text))
        #expect(parsed.keyID == loaded.id && parsed.derRepresentation == loaded.key.derRepresentation)
        #expect(PublicKey(derRepresentation: parsed.derRepresentation) == key.publicKey)
        try key.write(toNewFile: scratch.path("k3.pem"))
        let privateText = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path("k3.pem"))))
        #expect(throws: PublicKeyFile.ParseError.privateKey) { try PublicKeyFile.parse(privateText) }
    }
}
