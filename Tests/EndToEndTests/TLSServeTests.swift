import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery serve` with `--tls-cert` / `--tls-key` (and their variables), `--plain-port`, SIGHUP reloading the
/// certificate mid-traffic, and start-up errors that name the setting. Clients: curl and Python's `ssl`.
@Suite(.serialized) struct TLSServeTests {
    static func curl(_ arguments: [String]) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run("curl", ["-sS", "--max-time", "20"] + arguments)
    }

    @Test func servesHTTPSOnThePortAndTheSameRoutesInPlainHTTPOnThePlainPort() async throws {
        let certificates = try await TestCertificates.make()
        let pair = certificates.pair("server")
        let livery = try await blocking {
            try LiveryProcess.start(
                [
                    "serve", "--host", "127.0.0.1", "--port", "0", "--tls-cert", pair.certificate, "--plain-port", "0",
                    "--log-level", "warning"
                ],
                environment: ["LIVERY_TLS_KEY": pair.key])
        }
        let plainAddress = try #require(
            LiveryProcess.announcedAddress("LIVERY_PLAIN_LISTENING ", in: livery.standardOutput), "\(livery.output)")
        let plainPort = Int(plainAddress.split(separator: ":").last ?? "") ?? 0
        let secure = try await Self.curl(["--cacert", certificates.caFile, "https://localhost:\(livery.port)/healthz"])
        #expect(secure.status == 0 && secure.standardOutput.contains("ok"), "\(secure.transcript)")
        let plain = try await Self.curl(["http://127.0.0.1:\(plainPort)/healthz"])
        #expect(plain.status == 0 && plain.standardOutput.contains("ok"), "\(plain.transcript)")
        // The same routes: a poll answers on both (once the catalog is loaded: until then both answer 503).
        try await blocking { try LiveryProcess.waitUntilReady(port: plainPort) }
        let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0"
        let securePoll = try await Self.curl(
            [
                "--cacert", certificates.caFile, "-o", "/dev/null", "-w", "%{http_code}",
                "https://127.0.0.1:\(livery.port)\(poll)"
            ])
        let plainPoll = try await Self.curl([
            "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(plainPort)\(poll)"
        ])
        #expect(
            securePoll.standardOutput == plainPoll.standardOutput, "\(securePoll.transcript) \(plainPoll.transcript)")
        // The image's health check, configured as the server is, probes the plain port.
        let health = try await blocking {
            try LiveryProcess.run(
                ["healthcheck"],
                environment: [
                    "LIVERY_PORT": "\(livery.port)", "LIVERY_TLS_CERT": pair.certificate,
                    "LIVERY_PLAIN_PORT": "\(plainPort)"
                ])
        }
        #expect(health.status == 0 && health.output.contains(":\(plainPort)/healthz"), "\(health.output)")
        // Plain HTTP on the TLS port gets no answer.
        let mixedUp = try await Self.curl(["http://127.0.0.1:\(livery.port)/healthz"])
        #expect(mixedUp.status != 0)
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }

    @Test func sighupReloadsTheCertificateMidTrafficWithoutDroppingConnections() async throws {
        let certificates = try await TestCertificates.make(names: ["first", "renewed"])
        let renewed = certificates.pair("renewed")
        let live = TestCertificates.Pair(
            certificate: certificates.folder.path("live.crt"), key: certificates.folder.path("live.key"))
        _ = try certificates.folder.write("live.crt", try certificates.folder.read("first.crt"))
        _ = try certificates.folder.write("live.key", try certificates.folder.read("first.key"))
        let livery = try await blocking {
            try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "notice"],
                environment: ["LIVERY_TLS_CERT": live.certificate, "LIVERY_TLS_KEY": live.key])
        }
        let run = try await ExternalProcess.run(
            "python3",
            [
                "-c", TLSProbe.script, "reload", "\(livery.port)", certificates.caFile, "\(livery.pid)",
                live.certificate,
                live.key, renewed.certificate, renewed.key
            ])
        let last = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(run.transcript)")
        #expect(answer["before"] as? String == "first")
        #expect(answer["after"] as? String == "renewed", "\(answer)")
        // The connection opened before the reload was not dropped and keeps its certificate.
        #expect(answer["keptStatus"] as? Int == 200)
        #expect(answer["keptCertificate"] as? String == "first")
        #expect((answer["failures"] as? [Any])?.isEmpty == true, "\(answer)")
        #expect((answer["rounds"] as? Int ?? 0) > 0)

        // A broken key on the next SIGHUP is logged with its file; the renewed certificate stays in use.
        _ = try certificates.folder.write("live.key", Array("not a key".utf8))
        kill(livery.pid, SIGHUP)
        let deadline = Date().addingTimeInterval(20)
        while !livery.output.contains("not reloaded"), Date() < deadline { usleep(20_000) }
        #expect(livery.output.contains("not reloaded") && livery.output.contains(live.key), "\(livery.output)")
        let after = try await ExternalProcess.run(
            "python3", ["-c", TLSProbe.script, "get", "\(livery.port)", certificates.caFile, "/healthz"])
        #expect(after.standardOutput.contains(#""cn": "renewed""#), "\(after.transcript)")
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }

    @Test func theOpsCLISpeaksHTTPSTrustingAPrivateCAFromCaFile() async throws {
        let certificates = try await TestCertificates.make()
        let pair = certificates.pair("server")
        let workspace = try AdminWorkspace()
        var environment = workspace.environment
        environment["LIVERY_TLS_CERT"] = pair.certificate
        environment["LIVERY_TLS_KEY"] = pair.key
        let serveEnvironment = environment
        let livery = try await blocking {
            try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0"], environment: serveEnvironment)
        }
        let token = ["LIVERY_TOKEN": AdminWorkspace.editorToken]
        let byName = "https://localhost:\(livery.port)"
        let byAddress = "https://127.0.0.1:\(livery.port)"
        try await blocking {
            // The flag, or the variable; a host name (checked with SNI) or an address (checked against the IP SAN).
            let flag = try LiveryProcess.run(
                ["killswitch", "status", "--server", byName, "--ca-file", certificates.caFile], environment: token)
            #expect(flag.status == 0, "\(flag.output)")
            let variable = try LiveryProcess.run(
                ["killswitch", "status"],
                environment: token.merging(["LIVERY_SERVER": byAddress, "LIVERY_CA_FILE": certificates.caFile]) { $1 })
            #expect(variable.status == 0, "\(variable.output)")
            // The system's CAs do not know the private CA: refused, with the fix named.
            let system = try LiveryProcess.run(["killswitch", "status", "--server", byName], environment: token)
            #expect(system.status == 3, "\(system.output)")
            #expect(system.output.contains("not trusted") && system.output.contains("--ca-file"), "\(system.output)")
            // A CA file that does not sign the server's certificate is refused too.
            let other = try LiveryProcess.run(
                ["killswitch", "status", "--server", byName, "--ca-file", certificates.folder.path("other-ca.crt")],
                environment: token)
            #expect(other.status == 3 && other.output.contains("not trusted"), "\(other.output)")
            let missing = try LiveryProcess.run(
                ["killswitch", "status", "--server", byName, "--ca-file", certificates.folder.path("none.pem")],
                environment: token)
            #expect(missing.status == 2 && missing.output.contains("none.pem"), "\(missing.output)")
            #expect(missing.output.contains("does not exist or cannot be read"), "\(missing.output)")
        }
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }

    /// A CA file that is missing, or a folder, is named with what is wrong before any connection is tried (the
    /// server here is never reached: nothing listens on port 1), exit 2; never "OpenSSL error 2147483650".
    @Test func aMissingOrUnreadableCAFileIsNamedBeforeConnecting() async throws {
        let scratch = try ScratchDirectory()
        let token = ["LIVERY_TOKEN": AdminWorkspace.editorToken]
        for file in [scratch.path("none.pem"), scratch.path("")] {
            let flag = try await blocking {
                try LiveryProcess.run(
                    ["killswitch", "status", "--server", "https://127.0.0.1:1", "--ca-file", file], environment: token)
            }
            #expect(flag.status == 2, "\(flag.output)")
            #expect(
                flag.output.contains("--ca-file \(file): the file does not exist or cannot be read"), "\(flag.output)")
            #expect(!flag.output.contains("OpenSSL error"), "\(flag.output)")
            let variable = try await blocking {
                try LiveryProcess.run(
                    ["killswitch", "status", "--server", "https://127.0.0.1:1"],
                    environment: token.merging(["LIVERY_CA_FILE": file]) { $1 })
            }
            #expect(variable.status == 2 && variable.output.contains(file), "\(variable.output)")
        }
    }

    @Test func tlsSettingsThatCannotWorkStopTheStartNamingTheSetting() async throws {
        let certificates = try await TestCertificates.make()
        let pair = certificates.pair("server")
        let other = certificates.pair("untrusted")
        let cases: [([String], String)] = [
            (["--tls-cert", pair.certificate], "--tls-key"),
            (["--tls-key", pair.key], "--tls-cert"),
            (["--plain-port", "0"], "--plain-port"),
            (["--tls-cert", pair.certificate, "--tls-key", other.key], other.key),
            (["--tls-cert", certificates.folder.path("missing.crt"), "--tls-key", pair.key], "--tls-cert")
        ]
        for (flags, named) in cases {
            let result = try await blocking {
                try LiveryProcess.run(["serve", "--host", "127.0.0.1", "--port", "0"] + flags)
            }
            #expect(result.status == 2, "\(flags): \(result.output)")
            #expect(result.output.contains(named), "\(flags): \(result.output)")
        }
    }
}
