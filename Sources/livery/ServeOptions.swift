import ArgumentParser
import LiveryServer
import LiverySetup

/// The flags of `livery serve`, one per `LiveryConfiguration.Setting`, taken as text.
///
/// Values are parsed by `LiveryConfiguration.resolve`, not by ArgumentParser, so a bad value from a flag and from
/// an environment variable fail the same way: one line naming the setting, exit status 2.
struct ServeOptions: ParsableArguments {
    @Option(name: .customLong(Setting.host.flagName), help: Self.help(.host))
    var host: String?

    @Option(name: .customLong(Setting.port.flagName), help: Self.help(.port))
    var port: String?

    @Option(name: .customLong(Setting.skinsDir.flagName), help: Self.help(.skinsDir))
    var skinsDir: String?

    @Option(name: .customLong(Setting.dataDir.flagName), help: Self.help(.dataDir))
    var dataDir: String?

    @Option(name: .customLong(Setting.store.flagName), help: Self.help(.store))
    var store: String?

    @Option(name: .customLong(Setting.storePasswordFile.flagName), help: Self.help(.storePasswordFile))
    var storePasswordFile: String?

    @Option(name: .customLong(Setting.startTimeout.flagName), help: Self.help(.startTimeout))
    var startTimeout: String?

    @Option(name: .customLong(Setting.tokensFile.flagName), help: Self.help(.tokensFile))
    var tokensFile: String?

    @Option(name: .customLong(Setting.uploadLimit.flagName), help: Self.help(.uploadLimit))
    var uploadLimit: String?

    @Option(name: .customLong(Setting.cacheMaxAge.flagName), help: Self.help(.cacheMaxAge))
    var cacheMaxAge: String?

    @Option(name: .customLong(Setting.catalogHorizon.flagName), help: Self.help(.catalogHorizon))
    var catalogHorizon: String?

    @Option(name: .customLong(Setting.logLevel.flagName), help: Self.help(.logLevel))
    var logLevel: String?

    @Option(name: .customLong(Setting.logFormat.flagName), help: Self.help(.logFormat))
    var logFormat: String?

    @Option(name: .customLong(Setting.metricsPort.flagName), help: Self.help(.metricsPort))
    var metricsPort: String?

    @Option(name: .customLong(Setting.tlsCert.flagName), help: Self.help(.tlsCert))
    var tlsCert: String?

    @Option(name: .customLong(Setting.tlsKey.flagName), help: Self.help(.tlsKey))
    var tlsKey: String?

    @Option(name: .customLong(Setting.plainPort.flagName), help: Self.help(.plainPort))
    var plainPort: String?

    @Option(name: .customLong(Setting.signingKey.flagName), help: Self.help(.signingKey))
    var signingKey: String?

    @Option(name: .customLong(Setting.drainTimeout.flagName), help: Self.help(.drainTimeout))
    var drainTimeout: String?

    @Option(name: .customLong(Setting.shutdownDelay.flagName), help: Self.help(.shutdownDelay))
    var shutdownDelay: String?

    @Option(name: .customLong(Setting.maxConnections.flagName), help: Self.help(.maxConnections))
    var maxConnections: String?

    @Option(name: .customLong(Setting.maxHeaderBytes.flagName), help: Self.help(.maxHeaderBytes))
    var maxHeaderBytes: String?

    @Option(name: .customLong(Setting.headerTimeout.flagName), help: Self.help(.headerTimeout))
    var headerTimeout: String?

    @Option(name: .customLong(Setting.idleTimeout.flagName), help: Self.help(.idleTimeout))
    var idleTimeout: String?

    @Option(name: .customLong(Setting.eventLoops.flagName), help: Self.help(.eventLoops))
    var eventLoops: String?

    @Option(name: .customLong(Setting.eventLoopAffinity.flagName), help: Self.help(.eventLoopAffinity))
    var eventLoopAffinity: String?

    @Option(name: .customLong(Setting.maxParallelBuilds.flagName), help: Self.help(.maxParallelBuilds))
    var maxParallelBuilds: String?

    @Option(name: .customLong(Setting.scrubInterval.flagName), help: Self.help(.scrubInterval))
    var scrubInterval: String?

    @Option(name: .customLong(Setting.reportDeviceRate.flagName), help: Self.help(.reportDeviceRate))
    var reportDeviceRate: String?

    @Option(name: .customLong(Setting.reportAddressRate.flagName), help: Self.help(.reportAddressRate))
    var reportAddressRate: String?
    @Option(name: .customLong(Setting.reportRetentionDays.flagName), help: Self.help(.reportRetentionDays))
    var reportRetentionDays: String?
    @Option(name: .customLong(Setting.notifyUrl.flagName), help: Self.help(.notifyUrl))
    var notifyUrl: String?

    @Option(name: .customLong(Setting.notifySecretFile.flagName), help: Self.help(.notifySecretFile))
    var notifySecretFile: String?
    @Option(name: .customLong(Setting.notifyCaFile.flagName), help: Self.help(.notifyCaFile))
    var notifyCaFile: String?

    @Option(name: .customLong(Setting.benchBody.flagName), help: Self.help(.benchBody))
    var benchBody: String?

    /// The flags that were given, by setting.
    var values: [Setting: String] {
        let all: [(Setting, String?)] = [
            (.host, host),
            (.port, port),
            (.skinsDir, skinsDir),
            (.dataDir, dataDir),
            (.store, store),
            (.storePasswordFile, storePasswordFile),
            (.startTimeout, startTimeout),
            (.tokensFile, tokensFile),
            (.uploadLimit, uploadLimit),
            (.cacheMaxAge, cacheMaxAge),
            (.catalogHorizon, catalogHorizon),
            (.logLevel, logLevel),
            (.logFormat, logFormat),
            (.metricsPort, metricsPort),
            (.tlsCert, tlsCert),
            (.tlsKey, tlsKey),
            (.plainPort, plainPort),
            (.signingKey, signingKey),
            (.drainTimeout, drainTimeout),
            (.shutdownDelay, shutdownDelay),
            (.maxConnections, maxConnections),
            (.maxHeaderBytes, maxHeaderBytes),
            (.headerTimeout, headerTimeout),
            (.idleTimeout, idleTimeout),
            (.eventLoops, eventLoops),
            (.eventLoopAffinity, eventLoopAffinity),
            (.maxParallelBuilds, maxParallelBuilds),
            (.scrubInterval, scrubInterval),
            (.reportDeviceRate, reportDeviceRate),
            (.reportAddressRate, reportAddressRate),
            (.reportRetentionDays, reportRetentionDays),
            (.notifyUrl, notifyUrl),
            (.notifySecretFile, notifySecretFile),
            (.notifyCaFile, notifyCaFile),
            (.benchBody, benchBody)
        ]
        var given: [Setting: String] = [:]
        for case (let setting, let value?) in all { given[setting] = value }
        return given
    }

    typealias Setting = LiveryConfiguration.Setting

    private static func help(_ setting: Setting) -> ArgumentHelp {
        ArgumentHelp(setting.helpText, valueName: setting.valueName)
    }
}
