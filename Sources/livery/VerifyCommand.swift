import ArgumentParser
import Foundation
import LiveryCrypto
import LiveryJSON
import LiveryProtocol
import SkinModel

/// `livery verify --public-key FILE [--public-key FILE…] [--at INSTANT] [--app A] [--platform P] [--scale S]
/// [--appearance X] RESPONSE`: checks a signed answer saved with `curl -si`, as an app would, including (for each
/// of the four given) that it answers the question the app asked.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the Livery-Signature of a response saved with `curl -si`, and that it has not expired.",
        discussion: """
            The response file holds the status line, the headers, an empty line and the body (CRLF or LF line \
            ends). It is valid when its Livery-Signature header is a signature of the exact body bytes by one of \
            the public keys given (matched by keyid), and the body's `expiresAt` (an ISO 8601 instant in the JSON \
            body, which the signature covers) is later than now, or than --at. With --app, --platform, --scale or \
            --appearance, the body must also name that question (its `app`, `platform`, `scale` and `appearance` \
            members, signed with it), as the app sent it: a signed answer to another app, platform or variant is \
            refused.

            Exit status: 0 valid; 1 invalid, with the reason (no or malformed signature header, unknown keyid, \
            bad signature, body changed, no expiresAt, expired, wrong or missing app, platform, scale or \
            appearance); 2 unusable input (an unreadable or malformed response or public key file, two keys with \
            one id, a bad --at, --platform, --scale or --appearance).
            """)

    @Option(
        name: .customLong("public-key"),
        help: ArgumentHelp(
            "A public key file as `livery keys create` prints it; repeat for every key apps trust (rotation).",
            valueName: "file"))
    var publicKeys: [String] = []

    @Option(
        help: ArgumentHelp("Check expiry at this ISO 8601 instant with an offset instead of now.", valueName: "instant")
    )
    var at: String?

    @Option(help: ArgumentHelp("The app the request asked for (`app=`), exactly as sent.", valueName: "app"))
    var app: String?

    @Option(
        help: ArgumentHelp(
            "The platform the request asked for: ios, android, harmony or macos (any case).", valueName: "platform"))
    var platform: String?

    @Option(
        help: ArgumentHelp(
            "The scale the request asked for: 1, 2 or 3 (3 when the request gave none).", valueName: "scale"))
    var scale: String?

    @Option(
        help: ArgumentHelp(
            "The appearance the request asked for: light, dark or any (unspecified, or none, means light).",
            valueName: "appearance"))
    var appearance: String?

    @Argument(help: ArgumentHelp("The response saved with `curl -si URL > FILE`.", valueName: "response"))
    var response: String

    func run() throws {
        // Checked here rather than in validate(), so bad arguments exit 2 like every other unusable input.
        guard !publicKeys.isEmpty else {
            CommandInput.fail(
                "no public key given.", fix: "Give at least one --public-key FILE (repeat it for every trusted key).")
        }
        var now = Date()
        if let at {
            guard let instant = ISO8601Instant.parse(at) else {
                CommandInput.fail(
                    "--at '\(at)' is not an ISO 8601 instant.",
                    fix: "Write it with an offset, such as 2026-12-24T08:00:00Z.")
            }
            now = instant
        }
        let question = Self.question(app: app, platform: platform, scale: scale, appearance: appearance)
        var ring = PublicKeyRing()
        for path in publicKeys {
            let loaded: (id: KeyID, key: PublicKey)
            do {
                loaded = try PublicKey.load(from: path)
            } catch {
                CommandInput.fail(error.description, fix: error.fix)
            }
            guard ring.add(loaded.key, id: loaded.id) else {
                CommandInput.fail(
                    "\(path): another --public-key file already has the id '\(loaded.id)'.",
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
            CommandInput.fail(
                "\(response): not a saved HTTP response: \(error.reason).",
                fix: "Save it with `curl -si URL > FILE`.")
        }
        switch Self.check(saved, ring: ring, at: now, question: question) {
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

    /// The members a signed body must hold for the options given, in body order (`app`, `platform`, `scale`,
    /// `appearance`), each as the body states it when it answers that question: the app exactly as given, the
    /// platform and appearance in lowercase (`unspecified` is `light`), the scale as a number. Exits 2 for a value no
    /// request could send.
    static func question(app: String?, platform: String?, scale: String?, appearance: String?) -> [(String, JSONValue)]
    {
        var members: [(String, JSONValue)] = []
        if let app { members.append(("app", .string(app))) }
        if let platform {
            guard let named = Platform(rawValue: platform.lowercased()) else {
                CommandInput.fail(
                    "--platform '\(platform)' is not a platform.", fix: "Give ios, android, harmony or macos.")
            }
            members.append(("platform", .string(named.rawValue)))
        }
        if let scale {
            guard let value = Int(scale), (1...3).contains(value) else {
                CommandInput.fail("--scale '\(scale)' is not a scale.", fix: "Give 1, 2 or 3.")
            }
            members.append(("scale", .number(JSONNumber(value))))
        }
        if let appearance {
            let lowered = appearance.lowercased()
            guard let named = lowered == "unspecified" ? .light : PackageAppearance(rawValue: lowered) else {
                CommandInput.fail(
                    "--appearance '\(appearance)' is not an appearance.", fix: "Give light, dark, any or unspecified.")
            }
            members.append(("appearance", .string(named.rawValue)))
        }
        return members
    }

    /// Checks the signature first, then (the body being authentic) that it answers `question` (members as
    /// `question(app:platform:scale:appearance:)` makes them), then its `expiresAt`.
    static func check(
        _ saved: SavedResponse, ring: PublicKeyRing, at now: Date, question: [(String, JSONValue)] = []
    ) -> Result<String, Invalid> {
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
        for (name, expected) in question where object[name] != expected {
            // A value of another kind than expected shows as JSON ('"3"' for the string "3" where 3 is expected).
            let answered =
                object[name].map { value in
                    "'\(expected.stringValue != nil ? Self.text(value) : value.compactText)'"
                } ?? "no \(name)"
            return .failure(
                Invalid(
                    reason:
                        "wrong \(name): the body answers \(answered), expected '\(Self.text(expected))'"))
        }
        guard let expiresText = object["expiresAt"]?.stringValue else {
            return .failure(Invalid(reason: "\(signed), but the body has no expiresAt: it could be replayed forever"))
        }
        guard let expiresAt = ISO8601Instant.parse(expiresText) else {
            return .failure(Invalid(reason: "\(signed), but expiresAt '\(expiresText)' is not an ISO 8601 instant"))
        }
        guard now < expiresAt else {
            return .failure(
                Invalid(
                    reason:
                        "expired: expiresAt \(expiresText) is not after \(ISO8601Instant.format(now)); \(signed)"))
        }
        let answering =
            question.isEmpty
            ? "" : ", answering " + question.map { "\($0.0) '\(Self.text($0.1))'" }.joined(separator: ", ")
        return .success("\(signed)\(answering), expires at \(expiresText)")
    }

    /// A member's value as the operator reads it: a string as it is, anything else as its JSON.
    private static func text(_ value: JSONValue) -> String { value.stringValue ?? value.compactText }
}
