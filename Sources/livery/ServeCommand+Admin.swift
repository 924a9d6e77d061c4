import ArgumentParser
import Dispatch
import Foundation
import LiveryServer

extension ServeCommand {
    /// The admin API's settings: `--tokens-file` / `LIVERY_TOKENS_FILE` and `--upload-limit` / `LIVERY_UPLOAD_LIMIT`,
    /// already resolved (flag > environment > default) and checked by `LiveryConfiguration`.
    static func adminConfiguration(_ settings: LiveryConfiguration) -> AdminAPI.Configuration {
        var configuration = AdminAPI.Configuration()
        configuration.tokensFile = settings.tokensFile
        configuration.uploadLimit = settings.uploadLimit
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
