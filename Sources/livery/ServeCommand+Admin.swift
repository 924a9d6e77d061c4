import ArgumentParser
import Dispatch
import Foundation
import LiveryServer

extension ServeCommand {
    /// The admin API's settings from `--tokens-file` / `LIVERY_TOKENS_FILE` and `--upload-limit` /
    /// `LIVERY_UPLOAD_LIMIT` (flag > environment > default).
    func adminConfiguration(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> AdminAPI.Configuration {
        var configuration = AdminAPI.Configuration()
        let tokens = tokensFile ?? environment["LIVERY_TOKENS_FILE"]
        if let tokens, tokens.isEmpty { throw ValidationError("The tokens file path must not be empty.") }
        configuration.tokensFile = tokens
        if let uploadLimit {
            configuration.uploadLimit = uploadLimit
        } else if let text = environment["LIVERY_UPLOAD_LIMIT"] {
            guard let parsed = Int(text) else {
                throw ValidationError("LIVERY_UPLOAD_LIMIT must be a number of bytes, got '\(text)'.")
            }
            configuration.uploadLimit = parsed
        }
        guard configuration.uploadLimit > 0 else {
            throw ValidationError("The upload limit must be a positive number of bytes, got \(configuration.uploadLimit).")
        }
        return configuration
    }
}

/// SIGHUP as a Dispatch source: re-reads the admin tokens file, so a leaked token can be revoked without a
/// restart. The signal is ignored first so its default action (terminating the process) never runs.
final class TokenReloadSignal {
    private let source: any DispatchSourceSignal

    init(service: LiveryService) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "livery.sighup"))
        source.setEventHandler { service.reloadTokens(reason: "SIGHUP") }
        source.activate()
    }
}
