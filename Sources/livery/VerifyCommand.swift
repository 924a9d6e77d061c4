import ArgumentParser
import Foundation
import LiveryCrypto
import LiveryJSON
import LiveryProtocol
import SkinModel

/// `livery verify --public-key FILE [--public-key FILE…] [--at INSTANT] RESPONSE`: checks a signed answer saved with
/// `curl -si`, as an app would.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the Livery-Signature of a response saved with `curl -si`, and that it has not expired.",
        discussion: """
            The response file holds the status line, the headers, an empty line and the body (CRLF or LF line \
            ends). It is valid when its Livery-Signature header is a signature of the exact body bytes by one of \
            the public keys given (matched by keyid), and the body's `expiresAt` (an ISO 8601 instant in the JSON \
            body, which the signature covers) is later than now, or than --at.

            Exit status: 0 valid; 1 invalid, with the reason (no or malformed signature header, unknown keyid, \
            bad signature, body changed, no expiresAt, expired); 2 unusable input (an unreadable or malformed \
            response or public key file, two keys with one id, a bad --at).
            """)

    @Option(
        name: .customLong("public-key"),
        help: ArgumentHelp(
            "A public key file as `livery keys create` prints it; repeat for every key apps trust (rotation).",
            valueName: "file"))
    var publicKeys: [String] = []

    @Option(help: ArgumentHelp("Check expiry at this ISO 8601 instant with an offset instead of now.", valueName: "instant"))
    var at: String?

    @Argument(help: ArgumentHelp("The response saved with `curl -si URL > FILE`.", valueName: "response"))
    var response: String

    func run() throws {
        // Checked here rather than in validate(), so bad arguments exit 2 like every other unusable input.
        guard !publicKeys.isEmpty else {
            CommandInput.fail("no public key given.", fix: "Give at least one --public-key FILE (repeat it for every trusted key).")
        }
        var now = Date()
        if let at {
            guard let instant = ISO8601Instant.parse(at) else {
                CommandInput.fail("--at '\(at)' is not an ISO 8601 instant.", fix: "Write it with an offset, such as 2026-12-24T08:00:00Z.")
            }
            now = instant
        }
        var ring = PublicKeyRing()
        for path in publicKeys {
            let loaded: (id: KeyID, key: PublicKey)
            do {
                loaded = try PublicKey.load(from: path)
            } catch {
                CommandInput.fail(error.description, fix: error.fix)
            }
            guard ring.add(loaded.key, id: loaded.id) else {
                CommandInput.fail("\(path): another --public-key file already has the id '\(loaded.id)'.",
                    fix: "Give each key id once; a rotated key needs an id of its own.")
            }
        }
        guard let data = FileManager.default.contents(atPath: response) else {
            CommandInput.fail("\(response): cannot read the file.", fix: "Check the path and its permissions.")
        }
        let saved: SavedResponse
        do {
            saved = try SavedResponse(parsing: [UInt8](data))
        } catch {
            CommandInput.fail("\(response): not a saved HTTP response: \(error.reason).",
                fix: "Save it with `curl -si URL > FILE`.")
        }
        switch Self.check(saved, ring: ring, at: now) {
        case .success(let summary):
            OpsCommand.print("valid: \(summary)")
        case .failure(let reason):
            OpsCommand.print("invalid: \(reason.reason)")
            throw ExitCode(1)
        }
    }

    /// Why a response is invalid, in words for the operator.
    struct Invalid: Error {
        var reason: String
    }

    /// Checks the signature first, then (the body being authentic) its `expiresAt`.
    static func check(_ saved: SavedResponse, ring: PublicKeyRing, at now: Date) -> Result<String, Invalid> {
        let headers = saved.values(SignatureHeader.name)
        guard let headerValue = headers.first else {
            return .failure(Invalid(reason: "no \(SignatureHeader.name) header (\(saved.statusLine))"))
        }
        guard headers.count == 1 else {
            return .failure(Invalid(reason: "bad signature: \(headers.count) \(SignatureHeader.name) headers, not one"))
        }
        let header: SignatureHeader
        do {
            header = try ring.verify(body: saved.body, headerValue: headerValue)
        } catch {
            var reason = error.description
            if case .bodyChanged = error, let length = saved.values("Content-Length").first.flatMap({ Int($0) }),
                length != saved.body.count
            {
                reason += " (the body has \(saved.body.count) bytes, Content-Length says \(length))"
            }
            return .failure(Invalid(reason: reason))
        }
        let signed = "signed by keyid '\(header.keyID)' (\(header.algorithmName)) over \(saved.body.count) bytes"
        guard let body = try? JSONValue.parse(saved.body), let object = body.objectValue else {
            return .failure(Invalid(reason: "\(signed), but the body is not a JSON object, so it states no expiresAt"))
        }
        guard let expiresText = object["expiresAt"]?.stringValue else {
            return .failure(Invalid(reason: "\(signed), but the body has no expiresAt: it could be replayed forever"))
        }
        guard let expiresAt = ISO8601Instant.parse(expiresText) else {
            return .failure(Invalid(reason: "\(signed), but expiresAt '\(expiresText)' is not an ISO 8601 instant"))
        }
        guard now < expiresAt else {
            return .failure(Invalid(reason:
                "expired: expiresAt \(expiresText) is not after \(ISO8601Instant.format(now)); \(signed)"))
        }
        return .success("\(signed), expires at \(expiresText)")
    }
}
