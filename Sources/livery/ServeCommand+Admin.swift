import ArgumentParser
import Dispatch
import Foundation
import LiveryHTTP
import LiveryHTTPClient
import LiveryServer
import LiverySetup
import Logging
import SystemCalls

extension ServeCommand {
    /// The admin API's settings: `--tokens-file` / `LIVERY_TOKENS_FILE` and `--upload-limit` / `LIVERY_UPLOAD_LIMIT`,
    /// already resolved (flag > environment > default) and checked by `LiveryConfiguration`.
    static func adminConfiguration(_ settings: LiveryConfiguration) -> AdminAPI.Configuration {
        var configuration = AdminAPI.Configuration()
        configuration.tokensFile = settings.tokensFile
        configuration.uploadLimit = settings.uploadLimit
        return configuration
    }

    /// The guard's webhook (`--notify-url`, `--notify-secret-file`), or nil when none is set; a URL that does not
    /// parse or a secret file that cannot be read (or is empty) stops the start, naming the setting.
    static func guardNotifier(_ settings: LiveryConfiguration, logger: Logger) -> GuardNotifier? {
        guard let url = settings.notifyUrl else { return nil }
        var configuration = GuardNotifier.Configuration(url: url)
        configuration.caFile = settings.notifyCaFile
        if let path = settings.notifySecretFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                failStartup(settings.error(.notifySecretFile, path, "the file cannot be read"))
            }
            var secret = Array(data)
            if secret.last == UInt8(ascii: "\n") { secret.removeLast() }
            if secret.last == UInt8(ascii: "\r") { secret.removeLast() }
            guard !secret.isEmpty else { failStartup(settings.error(.notifySecretFile, path, "the file is empty")) }
            configuration.secret = secret
        }
        do throws(HTTPClientError) {
            return try GuardNotifier(configuration: configuration, logger: logger)
        } catch {
            failStartup(settings.error(.notifyUrl, url, error.description))
        }
    }
}

/// SIGHUP as a Dispatch source: re-reads the admin tokens file, so a leaked token can be revoked without a
/// restart, and the TLS certificate and key of `tlsServer`, so a renewed certificate is served without dropping a
/// connection (new connections get it; open ones keep theirs). A certificate or key that cannot be used is logged
/// with its file and the one in use stays. The signal is ignored first so its default action (terminating the
/// process) never runs.
final class ReloadSignal {
    private let source: any DispatchSourceSignal

    init(service: LiveryService, tlsServer: HTTPServer?, logger: Logger) {
        Syscall.ignoreSignal(SIGHUP)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "livery.sighup"))
        source.setEventHandler {
            service.reloadTokens(reason: "SIGHUP")
            guard let tlsServer else { return }
            do {
                try tlsServer.reloadTLS()
                logger.notice("SIGHUP: TLS certificate and key reloaded; new connections use them")
            } catch {
                logger.error("SIGHUP: TLS certificate and key not reloaded, the current ones stay: \(error)")
            }
        }
        source.activate()
    }
}
