import Foundation
import LiveryCrypto
import LiveryProtocol
import TestSupport
import Testing

/// `livery keys create` and `livery verify`, the real binary: keys apps can embed, and answers checked the way an
/// app checks them, with signatures made by the `openssl` command line from Livery's key file.
@Suite struct SigningCLITests {
    static let body = #"{"skinSign":"3f6c","skinId":"christmas-2026","expiresAt":"2026-12-24T08:05:00Z"}"#
    static let beforeExpiry = "2026-12-24T08:00:00Z"

    /// A scratch folder holding the key `id` (`ID.pem`) and its public key file (`ID.pub`), made by the binary.
    static func makeKey(_ id: String, in scratch: ScratchDirectory) async throws {
        let created = try await BuiltProduct.runLivery([
            "keys", "create", "--id", id, "--out", scratch.path("\(id).pem")
        ])
        try #require(created.status == 0, "\(created.transcript)")
        try scratch.write("\(id).pub", Array(created.standardOutput.utf8))
    }

    /// A response as `curl -si` saves it, its body signed with `openssl dgst -sha256 -sign KEY`.
    static func signedResponse(
        body: String = body, key: String, keyID: String? = nil, lineEnd: String = "\r\n", in scratch: ScratchDirectory
    ) async throws -> [UInt8] {
        try scratch.write("to-sign", Array(body.utf8))
        let signed = try await ExternalProcess.run(
            "openssl",
            [
                "dgst", "-sha256", "-sign", scratch.path("\(key).pem"), "-out", scratch.path("sig"),
                scratch.path("to-sign")
            ])
        try #require(signed.status == 0, "\(signed.transcript)")
        let signature = Data(try scratch.read("sig")).base64EncodedString()
        let head = [
            "HTTP/1.1 200 OK", "Content-Type: application/json", "Cache-Control: public, max-age=60",
            "Livery-Signature: keyid=\"\(keyID ?? key)\", alg=\"ecdsa-p256-sha256\", sig=\"\(signature)\"",
            "Content-Length: \(body.utf8.count)"
        ]
        return Array((head.joined(separator: lineEnd) + lineEnd + lineEnd + body).utf8)
    }

    @Test func keysCreateWritesAnOwnerOnlyKeyNamedForItsIDAndPrintsThePublicKey() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        let run = try await blocking {
            try LiveryProcess.runSeparately(["keys", "create", "--id", "holiday-2026"], directory: scratch.path)
        }
        #expect(run.status == 0, "\(run.output)")
        let attributes = try FileManager.default.attributesOfItem(atPath: scratch.path("holiday-2026.pem"))
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let file = String(decoding: try scratch.read("holiday-2026.pem"), as: UTF8.self)
        #expect(file.hasPrefix("Livery-Key-Id: holiday-2026\n-----BEGIN PRIVATE KEY-----\n"))
        #expect(run.standardError.contains("holiday-2026.pem (mode 0600)"))
        // Standard output is the public key file: the base64 apps embed, the id and the PEM, which openssl reads.
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "# Livery public key \"holiday-2026\" (ecdsa-p256-sha256).")
        #expect(lines.contains("Livery-Key-Id: holiday-2026") && lines.contains("-----BEGIN PUBLIC KEY-----"))
        try scratch.write("holiday-2026.pub", Array(run.standardOutput.utf8))
        let der = try await ExternalProcess.run(
            "sh", ["-c", "openssl pkey -in '\(scratch.path("holiday-2026.pem"))' -pubout -outform DER | base64 -w0"])
        #expect(lines.contains("# " + der.standardOutput), "the embedded base64 is the key's SubjectPublicKeyInfo")
        let pub = try await ExternalProcess.run(
            "openssl", ["pkey", "-pubin", "-in", scratch.path("holiday-2026.pub"), "-noout"])
        #expect(pub.status == 0, "\(pub.transcript)")
        #expect(!run.output.contains(file.split(separator: "\n")[2]), "the private key is never printed")
    }

    @Test func keysCreateNeverOverwritesAFileAndChecksTheID() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        let existing = try scratch.write("k1.pem", Array("precious".utf8))
        let again = try await BuiltProduct.runLivery(["keys", "create", "--id", "k1", "--out", existing])
        #expect(again.status == 2)
        #expect(again.standardError.contains("\(existing): the file already exists"), "\(again.transcript)")
        #expect(try scratch.read("k1.pem") == Array("precious".utf8))
        let badID = try await BuiltProduct.runLivery([
            "keys", "create", "--id", "no/slash", "--out", scratch.path("x.pem")
        ])
        #expect(
            badID.status == 2 && badID.standardError.contains("--id 'no/slash' is not a key id."), "\(badID.transcript)"
        )
        #expect(try scratch.listing() == ["k1.pem"])
    }

    @Test(arguments: ["\r\n", "\n"])
    func verifyAcceptsASignedAnswerSavedByCurl(lineEnd: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        try scratch.write("response", try await Self.signedResponse(key: "k1", lineEnd: lineEnd, in: scratch))
        let run = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), "--at", Self.beforeExpiry, scratch.path("response")
        ])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(
            run.standardOutput.hasPrefix(
                "valid: signed by keyid 'k1' (ecdsa-p256-sha256) over \(Self.body.utf8.count) bytes, expires at 2026-12-24T08:05:00Z"
            ))
    }

    @Test func verifyReadsInterimResponsesAndHTTP2Heads() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        let http1 = String(decoding: try await Self.signedResponse(key: "k1", in: scratch), as: UTF8.self)
        // curl -si prints a 100 Continue head first; over HTTP/2 it prints `HTTP/2 200` and lowercase names.
        let variants = [
            "HTTP/1.1 100 Continue\r\n\r\n" + http1,
            http1.replacingOccurrences(of: "HTTP/1.1 200 OK", with: "HTTP/2 200")
                .replacingOccurrences(of: "Livery-Signature:", with: "livery-signature:")
        ]
        for response in variants {
            try scratch.write("response", Array(response.utf8))
            let run = try await BuiltProduct.runLivery([
                "verify", "--public-key", scratch.path("k1.pub"), "--at", Self.beforeExpiry, scratch.path("response")
            ])
            #expect(run.status == 0, "\(run.transcript)")
        }
    }

    @Test func verifyRefusesABodyChangedByOneByte() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        var response = try await Self.signedResponse(key: "k1", in: scratch)
        let index = try #require(response.lastIndex(of: UInt8(ascii: "3")), "the 3 of the body's \"3f6c\"")
        response[index] = UInt8(ascii: "4")
        try scratch.write("response", response)
        let run = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), "--at", Self.beforeExpiry, scratch.path("response")
        ])
        #expect(run.status == 1, "\(run.transcript)")
        #expect(
            run.standardOutput == "invalid: body changed: the signature by keyid 'k1' does not match the body's bytes\n"
        )
        try scratch.write("longer", response + [0x0A])
        let longer = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), "--at", Self.beforeExpiry, scratch.path("longer")
        ])
        #expect(longer.status == 1 && longer.standardOutput.contains("Content-Length says"), "\(longer.transcript)")
    }

    @Test func verifyRefusesAnUnknownKeyID() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        try await Self.makeKey("k2", in: scratch)
        // Signed by k1 but naming k2, and signed by k1 while only k2 is trusted.
        try scratch.write("misnamed", try await Self.signedResponse(key: "k1", keyID: "k2", in: scratch))
        let misnamed = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k2.pub"), "--at", Self.beforeExpiry, scratch.path("misnamed")
        ])
        #expect(
            misnamed.status == 1 && misnamed.standardOutput.hasPrefix("invalid: body changed"), "\(misnamed.transcript)"
        )
        try scratch.write("response", try await Self.signedResponse(key: "k1", in: scratch))
        let run = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k2.pub"), "--at", Self.beforeExpiry, scratch.path("response")
        ])
        #expect(run.status == 1, "\(run.transcript)")
        #expect(run.standardOutput == "invalid: unknown keyid 'k1': the public keys given are 'k2'\n")
    }

    @Test func verifyAcceptsEveryKeyGivenForRotation() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("2026-a", in: scratch)
        try await Self.makeKey("2026-b", in: scratch)
        for key in ["2026-a", "2026-b"] {
            try scratch.write("response", try await Self.signedResponse(key: key, in: scratch))
            let run = try await BuiltProduct.runLivery([
                "verify", "--public-key", scratch.path("2026-a.pub"), "--public-key", scratch.path("2026-b.pub"),
                "--at", Self.beforeExpiry, scratch.path("response")
            ])
            #expect(run.status == 0 && run.standardOutput.contains("keyid '\(key)'"), "\(run.transcript)")
        }
    }

    @Test func verifyRefusesAnExpiredAnswer() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        try scratch.write("response", try await Self.signedResponse(key: "k1", in: scratch))
        let run = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), "--at", "2026-12-24T16:05:00+08:00",
            scratch.path("response")
        ])
        #expect(run.status == 1, "\(run.transcript)")
        #expect(
            run.standardOutput.hasPrefix(
                "invalid: expired: expiresAt 2026-12-24T08:05:00Z is not after 2026-12-24T08:05:00Z"))
        // Without --at the clock decides: long past and far future.
        try scratch.write(
            "past",
            try await Self.signedResponse(
                body: #"{"skinSign":"","expiresAt":"2001-01-01T00:00:00Z"}"#, key: "k1", in: scratch))
        let past = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), scratch.path("past")
        ])
        #expect(past.status == 1 && past.standardOutput.hasPrefix("invalid: expired: "), "\(past.transcript)")
        try scratch.write(
            "future",
            try await Self.signedResponse(
                body: #"{"skinSign":"","expiresAt":"2999-01-01T00:00:00Z"}"#, key: "k1", in: scratch))
        let future = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), scratch.path("future")
        ])
        #expect(future.status == 0, "\(future.transcript)")
    }

    @Test(arguments: [
        (#"{"skinSign":""}"#, "but the body has no expiresAt"),
        (
            #"{"skinSign":"","expiresAt":"2026-12-24T08:05:00"}"#,
            "but expiresAt '2026-12-24T08:05:00' is not an ISO 8601 instant"
        ),
        ("not json", "but the body is not a JSON object")
    ])
    func verifyRefusesAnAnswerThatDoesNotSayWhenItExpires(body: String, reason: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        try scratch.write("response", try await Self.signedResponse(body: body, key: "k1", in: scratch))
        let run = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), "--at", Self.beforeExpiry, scratch.path("response")
        ])
        #expect(run.status == 1 && run.standardOutput.contains(reason), "\(run.transcript)")
    }

    /// An answer signed without naming its question (as before answers were bound to their question), or naming
    /// it wrongly typed, is refused once the question is asked: the field is missing or answers something else.
    @Test(arguments: [
        (
            #"{"skinSign":"","expiresAt":"2026-12-24T08:05:00Z"}"#, ["--app", "demo"],
            "invalid: wrong app: the body answers no app, expected 'demo'"
        ),
        (
            #"{"skinSign":"","app":"demo","platform":"ios","expiresAt":"2026-12-24T08:05:00Z"}"#,
            ["--app", "demo", "--platform", "ios", "--scale", "3"],
            "invalid: wrong scale: the body answers no scale, expected '3'"
        ),
        (
            #"{"skinSign":"","app":"demo","platform":"ios","scale":"3","appearance":"light","expiresAt":"2026-12-24T08:05:00Z"}"#,
            ["--scale", "3"], #"invalid: wrong scale: the body answers '"3"', expected '3'"#
        ),
        (
            #"{"skinSign":"","app":"demo","platform":"ios","scale":3,"appearance":"light","expiresAt":"2026-12-24T08:05:00Z"}"#,
            ["--app", "demo", "--platform", "IOS", "--scale", "3", "--appearance", "unspecified"], "valid: "
        )
    ])
    func verifyChecksTheQuestionTheBodyAnswers(body: String, flags: [String], expected: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-verify-question")
        try await Self.makeKey("k1", in: scratch)
        try scratch.write("answer", try await Self.signedResponse(body: body, key: "k1", in: scratch))
        let result = try await BuiltProduct.runLivery(
            ["verify", "--public-key", scratch.path("k1.pub"), "--at", Self.beforeExpiry] + flags + [
                scratch.path("answer")
            ])
        #expect(result.status == (expected.hasPrefix("valid") ? 0 : 1), "\(result.transcript)")
        #expect(result.standardOutput.hasPrefix(expected), "\(result.transcript)")
    }

    @Test func verifyRefusesMissingOrMalformedSignatures() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        let good = String(decoding: try await Self.signedResponse(key: "k1", in: scratch), as: UTF8.self)
        let signatureLine = try #require(good.split(separator: "\r\n").first { $0.hasPrefix("Livery-Signature:") })
        let cases = [
            (
                good.replacingOccurrences(of: signatureLine + "\r\n", with: ""),
                "invalid: no Livery-Signature header (HTTP/1.1 200 OK)"
            ),
            (
                good.replacingOccurrences(of: "sig=\"", with: "sig=\"AAAA"),
                "invalid: bad signature: sig is not a DER-encoded ECDSA signature"
            ),
            (
                good.replacingOccurrences(of: ", alg=", with: "; alg="),
                "invalid: bad signature: the Livery-Signature header is malformed at byte 10"
            ),
            (
                good.replacingOccurrences(of: "ecdsa-p256-sha256", with: "ed25519"),
                "invalid: bad signature: alg 'ed25519' is not ecdsa-p256-sha256"
            ),
            (
                good.replacingOccurrences(of: signatureLine, with: signatureLine + "\r\n" + signatureLine),
                "invalid: bad signature: 2 Livery-Signature headers, not one"
            )
        ]
        for (response, expected) in cases {
            try scratch.write("response", Array(response.utf8))
            let run = try await BuiltProduct.runLivery([
                "verify", "--public-key", scratch.path("k1.pub"), "--at", Self.beforeExpiry, scratch.path("response")
            ])
            #expect(run.status == 1 && run.standardOutput.hasPrefix(expected), "\(expected): \(run.transcript)")
        }
    }

    @Test func verifyExitsTwoForUnusableInput() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await Self.makeKey("k1", in: scratch)
        try scratch.write("response", try await Self.signedResponse(key: "k1", in: scratch))
        try scratch.write("body-only", Array(Self.body.utf8))
        try scratch.write(
            "other-k1.pub",
            try await {
                try await Self.makeKey("other", in: scratch)
                return Array(
                    String(decoding: try scratch.read("other.pub"), as: UTF8.self)
                        .replacingOccurrences(of: "Livery-Key-Id: other", with: "Livery-Key-Id: k1").utf8)
            }())
        try scratch.write(
            "no-id.pub",
            Array(
                String(decoding: try scratch.read("k1.pub"), as: UTF8.self)
                    .replacingOccurrences(of: "Livery-Key-Id: k1\n", with: "").utf8))
        let key = scratch.path("k1.pub")
        let response = scratch.path("response")
        let cases: [([String], String)] = [
            (["--public-key", key, scratch.path("missing")], "missing: cannot read the file."),
            (
                ["--public-key", key, scratch.path("body-only")],
                "body-only: not a saved HTTP response: no empty line ends the head"
            ),
            (["--public-key", scratch.path("none.pub"), response], "none.pub: cannot read the file: No such file"),
            (
                ["--public-key", scratch.path("k1.pem"), response],
                "k1.pem: expected a PEM public key, found a private key"
            ),
            (["--public-key", scratch.path("no-id.pub"), response], "no-id.pub: no 'Livery-Key-Id:' line"),
            (
                ["--public-key", key, "--public-key", scratch.path("other-k1.pub"), response],
                "another --public-key file already has the id 'k1'"
            ),
            (["--public-key", key, "--at", "tomorrow", response], "--at 'tomorrow' is not an ISO 8601 instant."),
            ([response], "no public key given.")
        ]
        for (arguments, expected) in cases {
            let run = try await BuiltProduct.runLivery(["verify"] + arguments)
            #expect(run.status == 2 && run.standardError.contains(expected), "\(expected): \(run.transcript)")
        }
    }
}

/// What Livery's own signer produces is what `livery verify` accepts: the two halves agree on the header format.
@Suite struct SignerAndVerifierAgreementTests {
    @Test func verifyAcceptsTheHeaderResponseSignerMakesWithTheKeyFile() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signing")
        try await SigningCLITests.makeKey("k1", in: scratch)
        let signer = ResponseSigner(signer: try SigningKey.load(from: scratch.path("k1.pem")))
        let body = Array(SigningCLITests.body.utf8)
        let head = "HTTP/1.1 200 OK\r\n\(SignatureHeader.name): \(try signer.headerValue(for: body))\r\n\r\n"
        try scratch.write("response", Array(head.utf8) + body)
        let run = try await BuiltProduct.runLivery(
            [
                "verify", "--public-key", scratch.path("k1.pub"), "--at", SigningCLITests.beforeExpiry,
                scratch.path("response")
            ])
        #expect(run.status == 0, "\(run.transcript)")
    }
}
