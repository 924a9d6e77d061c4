import Crypto
import Foundation
import LiveryJSON
import LiveryProtocol
import SkinModel

/// Decides whether an answer's bytes may be believed: its `Livery-Signature` against the trusted keys (the shared
/// `KeyRing`, so the SDK checks in the server's order), then that the signed body answers this install's question
/// (app, platform, scale, appearance) and has not expired.
///
/// With no trusted key every answer is taken unsigned (and a signature, if present, is not checked); with at
/// least one, an unsigned answer is refused.
struct AnswerVerifier: Sendable {
    let ring: KeyRing<TrustedKey>

    /// - Throws: `signature` when a configured key is not base64 of a P-256 SubjectPublicKeyInfo.
    init(trustedKeys: [String: String]) throws(LiveryError) {
        var ring = KeyRing<TrustedKey>()
        for (id, text) in trustedKeys.sorted(by: { $0.key < $1.key }) {
            guard let keyID = KeyID(id) else {
                throw LiveryError(.signature, "trusted key id '\(id)' is not \(KeyID.rule)")
            }
            let compact = text.filter { !$0.isWhitespace }
            guard let der = Base64.decode(compact), (try? P256.Signing.PublicKey(derRepresentation: der)) != nil else {
                throw LiveryError(.signature, "trusted key '\(id)' is not base64 of a P-256 SubjectPublicKeyInfo")
            }
            ring.add(TrustedKey(subjectPublicKeyInfo: der), id: keyID)
        }
        self.ring = ring
    }

    /// Whether answers must be signed.
    var requiresSignature: Bool { !ring.keys.isEmpty }

    /// Checks `headerValue` over `body`. Returns whether the body counts as signed (false only without trusted keys).
    ///
    /// - Throws: `unsigned` (no header while keys are configured), `signature` (malformed header, unknown
    ///   algorithm, or a signature that does not verify), `unknown_key` (a key id not trusted here).
    func verify(body: [UInt8], headerValue: String?) throws(LiveryError) -> Bool {
        guard requiresSignature else { return false }
        guard let headerValue else {
            throw LiveryError(
                .unsigned, "the answer carries no \(SignatureHeader.name) header and trusted keys are configured")
        }
        do {
            try ring.verify(body: body, headerValue: headerValue)
        } catch {
            if case .unknownKeyID = error { throw LiveryError(.unknownKey, error.description) }
            throw LiveryError(.signature, error.description)
        }
        return true
    }

    /// Checks that a signed answer names this question and has not expired at `now`.
    ///
    /// Signed bodies carry `"app"`, `"platform"`, `"scale"` and `"appearance"` as asked (and `"expiresAt"`); a
    /// signed body lacking one of them, or naming another value, answers another question.
    static func checkQuestion(
        _ document: JSONValue, configuration: LiveryConfiguration, now: Date, requireFields: Bool
    ) throws(LiveryError) {
        guard let object = document.objectValue else { throw LiveryError(.server, "the answer is not a JSON object") }
        let expected: [(String, JSONValue)] = [
            ("app", .string(configuration.appID)),
            ("platform", .string(configuration.platform.rawValue)),
            ("scale", .number(JSONNumber(configuration.scale))),
            ("appearance", .string(configuration.appearance.rawValue))
        ]
        for (name, value) in expected {
            guard let found = object[name] else {
                if requireFields { throw LiveryError(.wrongAnswer, "the signed answer does not name its \(name)") }
                continue
            }
            guard found == value else {
                throw LiveryError(
                    .wrongAnswer,
                    "the signed answer is for \(name) \(found.compactText), this app asked for \(value.compactText)")
            }
        }
        guard let text = object["expiresAt"]?.stringValue, let expiresAt = ISO8601Instant.parse(text) else {
            throw LiveryError(.expired, "the signed answer has no expiresAt")
        }
        guard now < expiresAt else {
            throw LiveryError(.expired, "the signed answer expired at \(text) (now \(ISO8601Instant.format(now)))")
        }
    }
}

/// A trusted key as the shared `KeyRing` checks signatures with, verified by swift-crypto's P-256 key.
///
/// Kept as its DER bytes (checked to be a P-256 key when configured): swift-crypto 3's key type is not `Sendable`,
/// and making it again per verification costs a fraction of the verification itself.
struct TrustedKey: SignatureVerifier {
    let subjectPublicKeyInfo: [UInt8]

    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let key = try? P256.Signing.PublicKey(derRepresentation: subjectPublicKeyInfo),
            let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature)
        else { return false }
        return key.isValidSignature(parsed, for: message)
    }
}
