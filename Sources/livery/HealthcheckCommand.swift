import ArgumentParser
import Foundation

/// `livery healthcheck [--url URL]`: one HTTP GET, exit 0 when it answers 2xx, 1 otherwise. For the image's
/// `HEALTHCHECK`, which has no curl.
struct HealthcheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "GET a health endpoint of a running server; exit 0 when it answers 2xx.",
        discussion: """
            Without --url, checks http://127.0.0.1:$LIVERY_PORT/healthz (port 8080 when LIVERY_PORT is unset; \
            the host is LIVERY_HOST when that names one address rather than a wildcard, [::1] for ::). Exit \
            status: 0 healthy (2xx), 1 unhealthy (any other status, refused, timed out), 2 unusable --url.
            """)

    @Option(help: ArgumentHelp("The URL to check (plain http only).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("Seconds allowed for connecting, and for each send or receive.", valueName: "seconds"))
    var timeout: Double = 3

    func run() throws {
        let text = url ?? Self.defaultURL(environment: ProcessInfo.processInfo.environment)
        guard let target = HealthProbe.Target(url: text) else {
            FileHandle.standardError.write(
                Data("livery healthcheck: '\(text)' is not an http://host:port/path URL\n".utf8))
            throw ExitCode(2)
        }
        guard timeout > 0, timeout <= 300 else {
            FileHandle.standardError.write(Data("livery healthcheck: --timeout must be from 0 to 300 seconds\n".utf8))
            throw ExitCode(2)
        }
        do {
            let status = try HealthProbe(target: target, timeout: timeout).status()
            let healthy = (200..<300).contains(status)
            FileHandle.standardOutput.write(Data("\(healthy ? "healthy" : "unhealthy"): \(status) from \(text)\n".utf8))
            if !healthy { throw ExitCode(1) }
        } catch let failure as HealthProbe.Failure {
            FileHandle.standardOutput.write(Data("unhealthy: \(failure) (\(text))\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The health URL of a server started with the same environment: with TLS (`LIVERY_TLS_CERT`) its plain port
    /// (`LIVERY_PLAIN_PORT`), since the probe speaks plain HTTP only.
    static func defaultURL(environment: [String: String]) -> String {
        func port(_ name: String) -> Int? { environment[name].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } }
        let usesTLS = !(environment["LIVERY_TLS_CERT"] ?? "").isEmpty
        let port = (usesTLS ? port("LIVERY_PLAIN_PORT") : nil) ?? port("LIVERY_PORT") ?? 8080
        let host: String
        switch environment["LIVERY_HOST"] ?? "" {
        case "", "0.0.0.0": host = "127.0.0.1"
        case "::", "[::]": host = "[::1]"
        case let named where named.contains(":") && !named.hasPrefix("["): host = "[\(named)]"
        case let named: host = named
        }
        return "http://\(host):\(port)/healthz"
    }
}
