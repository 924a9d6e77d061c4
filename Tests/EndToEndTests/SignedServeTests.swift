import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery serve --signing-key`, the real binary: poll answers saved by curl and checked by the `openssl` command
/// line (which Livery did not write) and by `livery verify`, key rotation, and keys that must stop the start.
@Suite struct SignedServeTests {
    static let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0"

    /// `curl -si` of the poll (or `target`) into `name`, and the body alone into `name.body`.
    static func savePoll(
        _ port: Int, as name: String, in scratch: ScratchDirectory, target: String = poll
    ) async throws -> SavedPoll {
        let saved = try await ExternalProcess.run(
            "curl", ["-si", "--max-time", "10", "-o", scratch.path(name), "http://127.0.0.1:\(port)\(target)"])
        try #require(saved.status == 0, "\(saved.transcript)")
        let bytes = try scratch.read(name)
        let text = String(decoding: bytes, as: UTF8.self)
        let headEnd = try #require(text.range(of: "\r\n\r\n"), "a head and a body")
        let body = Array(text[headEnd.upperBound...].utf8)
        try scratch.write(name + ".body", body)
        let head = String(text[..<headEnd.lowerBound])
        let signatureLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("livery-signature:") }
        return SavedPoll(head: head, body: body, signatureLine: signatureLine.map(String.init))
    }

    struct SavedPoll {
        var head: String
        var body: [UInt8]
        var signatureLine: String?

        /// The `sig` parameter's bytes (DER), or nil.
        var signature: [UInt8]? {
            guard let line = signatureLine, let start = line.range(of: "sig=\"") else { return nil }
            let value = line[start.upperBound...].prefix { $0 != "\"" }
            return Data(base64Encoded: String(value)).map { [UInt8]($0) }
        }

        var keyID: String? {
            guard let line = signatureLine, let start = line.range(of: "keyid=\"") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }

        var expiresAt: String? {
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            return object?["expiresAt"] as? String
        }
    }

    /// `openssl pkeyutl -verify` of `signature` over SHA-256(`bodyFile`) with the public key file `publicKey`.
    static func opensslVerifies(
        _ bodyFile: String, signature: [UInt8], publicKey: String, in scratch: ScratchDirectory
    )
        async throws -> Bool
    {
        try scratch.write("sig.der", signature)
        let digest = try await ExternalProcess.run(
            "openssl", ["dgst", "-sha256", "-binary", "-out", scratch.path("digest"), bodyFile])
        try #require(digest.status == 0, "\(digest.transcript)")
        let pkeyutl = try await ExternalProcess.run(
            "openssl",
            [
                "pkeyutl", "-verify", "-pubin", "-inkey", publicKey, "-in", scratch.path("digest"), "-sigfile",
                scratch.path("sig.der")
            ])
        let dgst = try await ExternalProcess.run(
            "openssl", ["dgst", "-sha256", "-verify", publicKey, "-signature", scratch.path("sig.der"), bodyFile])
        // The two openssl commands must agree.
        #expect((pkeyutl.status == 0) == (dgst.status == 0), "\(pkeyutl.transcript)\n\(dgst.transcript)")
        return pkeyutl.status == 0 && pkeyutl.standardOutput.contains("Signature Verified Successfully")
            && dgst.standardOutput.contains("Verified OK")
    }

    /// `livery serve` with `arguments` and `environment`, once its catalog is loaded.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) async throws -> LiveryProcess {
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments, environment: environment)
            try LiveryProcess.waitUntilReady(port: livery.port)
            return livery
        }
    }

    /// The themes list is signed the same way: `expiresAt`, `Livery-Signature` over the exact body, checked by
    /// openssl and `livery verify`.
    @Test func themeListsVerifyWithOpenSSLAndLiveryVerify() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signed-themes")
        try await SigningCLITests.makeKey("k1", in: scratch)
        try scratch.write(
            "skins/ink/skin.json",
            Array(#"{"id":"ink","title":"Ink","app":"demo","release":{"kind":"theme","order":1}}"#.utf8))
        try scratch.write("skins/ink/config.json", Array(##"{"home":{"colors":{"color_background":"#FFFFFF"}}}"##.utf8))
        let livery = try await Self.serve([
            "--signing-key", scratch.path("k1.pem"), "--skins-dir", scratch.path("skins")
        ])
        let saved = try await Self.savePoll(
            livery.port, as: "themes", in: scratch, target: "/api/v1/themes?app=demo&platform=ios&appVersion=7.2.0")
        #expect(saved.head.hasPrefix("HTTP/1.1 200 "), "\(saved.head)")
        #expect(String(decoding: saved.body, as: UTF8.self).hasPrefix(#"{"themes":[{"id":"ink","#))
        #expect(saved.keyID == "k1" && saved.expiresAt != nil, "\(saved.head)")
        let signature = try #require(saved.signature)
        #expect(
            try await Self.opensslVerifies(
                scratch.path("themes.body"), signature: signature, publicKey: scratch.path("k1.pub"), in: scratch))
        let valid = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k1.pub"), scratch.path("themes")
        ])
        #expect(valid.status == 0 && valid.standardOutput.contains("signed by keyid 'k1'"), "\(valid.transcript)")
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }

    @Test func pollAnswersVerifyWithOpenSSLAndLiveryVerifyAndAChangedByteIsRefused() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signed-serve")
        try await SigningCLITests.makeKey("k1", in: scratch)
        try await SigningCLITests.makeKey("k2", in: scratch)
        let livery = try await Self.serve(["--signing-key", scratch.path("k1.pem")])
        let saved = try await Self.savePoll(livery.port, as: "answer", in: scratch)
        #expect(saved.head.hasPrefix("HTTP/1.1 200 "), "\(saved.head)")
        #expect(
            saved.keyID == "k1" && saved.signatureLine?.contains(#"alg="ecdsa-p256-sha256""#) == true, "\(saved.head)")
        let signature = try #require(saved.signature)
        #expect(
            try await Self.opensslVerifies(
                scratch.path("answer.body"), signature: signature, publicKey: scratch.path("k1.pub"), in: scratch))
        let expiresAt = try #require(saved.expiresAt)
        let key = scratch.path("k1.pub")
        let valid = try await BuiltProduct.runLivery(["verify", "--public-key", key, scratch.path("answer")])
        #expect(valid.status == 0 && valid.standardOutput.contains("signed by keyid 'k1'"), "\(valid.transcript)")

        // One byte of the body changed: openssl and livery verify both refuse it.
        var changed = saved.body
        let index = try #require(changed.firstIndex(of: UInt8(ascii: ":")))
        changed[index + 2] ^= 0x01
        try scratch.write("changed.body", changed)
        #expect(
            try await !Self.opensslVerifies(
                scratch.path("changed.body"), signature: signature, publicKey: key, in: scratch))
        var response = try scratch.read("answer")
        response[response.count - saved.body.count + index + 2] ^= 0x01
        try scratch.write("changed", response)
        let refused = try await BuiltProduct.runLivery(["verify", "--public-key", key, scratch.path("changed")])
        #expect(
            refused.status == 1 && refused.standardOutput.hasPrefix("invalid: body changed"), "\(refused.transcript)")

        // Only another key trusted: unknown keyid. After expiresAt: expired.
        let unknown = try await BuiltProduct.runLivery([
            "verify", "--public-key", scratch.path("k2.pub"), scratch.path("answer")
        ])
        #expect(
            unknown.status == 1 && unknown.standardOutput.hasPrefix("invalid: unknown keyid 'k1'"),
            "\(unknown.transcript)")
        let expired = try await BuiltProduct.runLivery([
            "verify", "--public-key", key, "--at", expiresAt, scratch.path("answer")
        ])
        #expect(expired.status == 1 && expired.standardOutput.hasPrefix("invalid: expired: "), "\(expired.transcript)")

        #expect(try await livery.stop(signal: SIGTERM) == 0)
        #expect(livery.output.contains("poll answers are signed") && livery.output.contains("k1"))
        let pem = String(decoding: try scratch.read("k1.pem"), as: UTF8.self)
        let keyLine = try #require(pem.split(separator: "\n").dropFirst(2).first)
        #expect(!livery.output.contains(keyLine), "no key material in the output")
    }

    /// A signed answer names the question it answers (app, platform, scale, appearance, just before `expiresAt`),
    /// signed with the rest: openssl verifies the exact bytes, `livery verify` with the question asked accepts them,
    /// and the same answer checked as the answer to another app, platform, scale or appearance is refused with the
    /// field, what the body answers and what was expected.
    @Test func signedAnswersNameTheirQuestionAndLiveryVerifyRefusesThemForAnother() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signed-question")
        try await SigningCLITests.makeKey("k1", in: scratch)
        try scratch.write(
            "skins/ink/skin.json",
            Array(#"{"id":"ink","title":"Ink","app":"demo","release":{"kind":"theme","order":1}}"#.utf8))
        try scratch.write("skins/ink/config.json", Array(##"{"home":{"colors":{"color_background":"#FFFFFF"}}}"##.utf8))
        let livery = try await Self.serve([
            "--signing-key", scratch.path("k1.pem"), "--skins-dir", scratch.path("skins")
        ])
        let key = scratch.path("k1.pub")
        let cases: [(name: String, target: String, question: String, flags: [String])] = [
            (
                "poll", "/api/v1/skin?app=demo&platform=iOS&appVersion=7.2.0&scale=2&appearance=unspecified",
                #""app":"demo","platform":"ios","scale":2,"appearance":"light","#,
                ["--app", "demo", "--platform", "ios", "--scale", "2", "--appearance", "light"]
            ),
            (
                "themes", "/api/v1/themes?app=demo&platform=android&appVersion=7.2.0&appearance=dark",
                #""app":"demo","platform":"android","scale":3,"appearance":"dark","#,
                ["--app", "demo", "--platform", "Android", "--scale", "3", "--appearance", "dark"]
            )
        ]
        for (name, target, question, flags) in cases {
            let saved = try await Self.savePoll(livery.port, as: name, in: scratch, target: target)
            #expect(saved.head.hasPrefix("HTTP/1.1 200 "), "\(saved.head)")
            let text = String(decoding: saved.body, as: UTF8.self)
            let expiresAt = try #require(saved.expiresAt)
            #expect(text.hasSuffix(question + #""expiresAt":"\#(expiresAt)"}"#), "\(text)")
            #expect(
                try await Self.opensslVerifies(
                    scratch.path("\(name).body"), signature: try #require(saved.signature), publicKey: key, in: scratch)
            )
            let valid = try await BuiltProduct.runLivery(["verify", "--public-key", key] + flags + [scratch.path(name)])
            #expect(valid.status == 0 && valid.standardOutput.contains("answering app 'demo'"), "\(valid.transcript)")
        }
        let wrong: [([String], String)] = [
            (["--app", "other"], "invalid: wrong app: the body answers 'demo', expected 'other'"),
            (["--app", "Demo"], "invalid: wrong app: the body answers 'demo', expected 'Demo'"),
            (["--platform", "android"], "invalid: wrong platform: the body answers 'ios', expected 'android'"),
            (["--scale", "3"], "invalid: wrong scale: the body answers '2', expected '3'"),
            (["--appearance", "dark"], "invalid: wrong appearance: the body answers 'light', expected 'dark'"),
            (
                ["--app", "demo", "--appearance", "any"],
                "invalid: wrong appearance: the body answers 'light', expected 'any'"
            )
        ]
        for (flags, expected) in wrong {
            let refused = try await BuiltProduct.runLivery(
                ["verify", "--public-key", key] + flags + [scratch.path("poll")])
            #expect(refused.status == 1 && refused.standardOutput == expected + "\n", "\(flags): \(refused.transcript)")
        }
        // A value no request could send is unusable input, exit 2.
        for flags in [["--platform", "windows"], ["--scale", "4"], ["--appearance", "sepia"]] {
            let unusable = try await BuiltProduct.runLivery(
                ["verify", "--public-key", key] + flags + [scratch.path("poll")])
            #expect(unusable.status == 2, "\(flags): \(unusable.transcript)")
        }
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }

    @Test func aRotatedKeySignsUnderItsOwnIDAndAppsTrustingBothAcceptEither() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signed-serve")
        try await SigningCLITests.makeKey("2026-a", in: scratch)
        try await SigningCLITests.makeKey("2026-b", in: scratch)
        let both = ["--public-key", scratch.path("2026-a.pub"), "--public-key", scratch.path("2026-b.pub")]
        for (index, id) in ["2026-a", "2026-b"].enumerated() {
            let livery = try await Self.serve([], environment: ["LIVERY_SIGNING_KEY": scratch.path("\(id).pem")])
            let saved = try await Self.savePoll(livery.port, as: "answer\(index)", in: scratch)
            #expect(saved.keyID == id, "\(saved.head)")
            let verified = try await BuiltProduct.runLivery(["verify"] + both + [scratch.path("answer\(index)")])
            #expect(verified.status == 0 && verified.standardOutput.contains("keyid '\(id)'"), "\(verified.transcript)")
            #expect(try await livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func aSigningKeyThatCannotBeUsedStopsTheStartNamingTheFile() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-signed-serve")
        try await SigningCLITests.makeKey("k1", in: scratch)
        let open = scratch.path("open.pem")
        try FileManager.default.copyItem(atPath: scratch.path("k1.pem"), toPath: open)
        chmod(open, 0o644)
        let garbage = try scratch.write("garbage.pem", Array("Livery-Key-Id: k9\nnot a key\n".utf8))
        chmod(garbage, 0o600)
        let cases: [([String], [String: String], String)] = [
            (
                ["--signing-key", open], [:],
                "--signing-key '\(open)': \(open): the private key file may be read by other users (mode 644). Run `chmod 600 \(open)`"
            ),
            (
                ["--signing-key", garbage], [:],
                "--signing-key '\(garbage)': \(garbage): expected an unencrypted PEM private key"
            ),
            ([], ["LIVERY_SIGNING_KEY": scratch.path("k1.pub")], "LIVERY_SIGNING_KEY='\(scratch.path("k1.pub"))': "),
            (
                ["--signing-key", scratch.path("missing.pem")], [:],
                "--signing-key '\(scratch.path("missing.pem"))': \(scratch.path("missing.pem")): cannot read the file"
            )
        ]
        for (flags, environment, expected) in cases {
            let run = try await blocking {
                try LiveryProcess.runSeparately(
                    ["serve", "--host", "127.0.0.1", "--port", "0"] + flags, environment: environment)
            }
            #expect(run.status == 2, "\(run.output)")
            #expect(run.standardError.hasPrefix("livery: " + expected), "\(run.standardError)")
            #expect(!run.output.contains("LIVERY_LISTENING"))
        }
    }
}
