import LiveryCrypto
import LiveryServer
import LiverySetup
import Logging

extension ServeCommand {
    /// The key of `--signing-key` / `LIVERY_SIGNING_KEY`, or nil when neither is set (answers unsigned).
    ///
    /// A key file that cannot be used (missing, readable by other users, no key id, not an ECDSA P-256 key) stops
    /// the start with exit status 2, naming the setting, the file and the fix. Only the key id is logged.
    static func loadSigningKey(_ settings: LiveryConfiguration, logger: Logger) -> SigningKey? {
        guard let path = settings.signingKey else { return nil }
        let key: SigningKey
        do {
            key = try SigningKey.load(from: path)
        } catch {
            failStartup(settings.error(.signingKey, path, "\(error.description). \(error.fix)"))
        }
        logger.notice(
            "poll answers are signed",
            metadata: ["signing.keyid": "\(key.id.text)", "signing.alg": "\(key.algorithm.rawValue)"])
        return key
    }
}
