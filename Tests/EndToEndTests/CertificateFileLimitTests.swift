import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a `--tls-cert` file may hold (issue 22, faults 3): the server certificate and its issuer chain, at most 10
/// certificates and 64 KiB of DER. Anything else stops the start (exit 2, naming the file and why) and is
/// refused by SIGHUP, which keeps the pair in use. Certificates are made by the `openssl` command line.
@Suite struct CertificateFileLimitTests {
    static func concatenate(_ files: [String], into path: String) throws {
        var bytes = Data()
        for file in files { bytes.append(try Data(contentsOf: URL(fileURLWithPath: file))) }
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    /// A self-signed certificate (and key) whose subjectAltName lists enough names to pass 64 KiB of DER.
    static func oversized(in certificates: TestCertificates) async throws -> TestCertificates.Pair {
        let names = (0..<2600).map { "DNS:host-\(String(format: "%05d", $0)).oversized.example" }.joined(separator: ",")
        let configuration = try certificates.folder.write(
            "oversized.cnf",
            Array(
                "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = oversized\n[v3]\nsubjectAltName = \(names)\n"
                    .utf8))
        let pair = TestCertificates.Pair(
            certificate: certificates.folder.path("oversized.crt"), key: certificates.folder.path("oversized.key"))
        let made = try await ExternalProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                pair.key,
                "-out", pair.certificate, "-days", "2", "-config", configuration, "-extensions", "v3"
            ])
        try #require(made.status == 0, "\(made.transcript)")
        return pair
    }

    @Test func aCertificateFileWithMoreThanTheChainStopsTheStartNamingItAndWhy() async throws {
        let certificates = try await TestCertificates.make()
        let server = certificates.pair("server")
        let folder = certificates.folder
        let bundle = folder.path("bundle.crt")
        try Self.concatenate(
            [server.certificate] + Array(repeating: folder.path("other-ca.crt"), count: 11), into: bundle)
        let stray = folder.path("stray.crt")
        try Self.concatenate([server.certificate, folder.path("other-ca.crt")], into: stray)
        let oversized = try await Self.oversized(in: certificates)

        for (file, key, reason) in [
            (bundle, server.key, "more than 10 certificates"),
            (stray, server.key, "not in the issuer chain"),
            (oversized.certificate, oversized.key, "more than 65536")
        ] {
            let run = try await blocking {
                try LiveryProcess.runSeparately(
                    ["serve", "--host", "127.0.0.1", "--port", "0", "--tls-cert", file, "--tls-key", key])
            }
            #expect(run.status == 2, "\(file): \(run.output)")
            #expect(run.standardError.contains(file) && run.standardError.contains(reason), "\(run.standardError)")
            #expect(run.standardError.contains("--tls-cert"), "\(run.standardError)")
        }

        // The server certificate with its issuer appended is a chain, and is served.
        let chain = folder.path("chain.crt")
        try Self.concatenate([server.certificate, certificates.caFile], into: chain)
        let livery = try await blocking {
            try LiveryProcess.start([
                "serve", "--host", "127.0.0.1", "--port", "0", "--tls-cert", chain, "--tls-key", server.key
            ])
        }
        let answer = try await TLSServeTests.curl([
            "--cacert", certificates.caFile, "https://localhost:\(livery.port)/healthz"
        ])
        #expect(answer.status == 0 && answer.standardOutput.contains("ok"), "\(answer.transcript)")
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }

    @Test func sighupKeepsTheCurrentPairWhenTheNewFileHoldsABundleAndLogsWhy() async throws {
        let certificates = try await TestCertificates.make()
        let server = certificates.pair("server")
        let live = certificates.folder.path("live.crt")
        try Self.concatenate([server.certificate], into: live)
        let livery = try await blocking {
            try LiveryProcess.start(
                [
                    "serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "notice", "--tls-cert", live,
                    "--tls-key", server.key
                ])
        }
        try Self.concatenate([server.certificate] + Array(repeating: certificates.caFile, count: 11), into: live)
        kill(livery.pid, SIGHUP)
        let deadline = Date().addingTimeInterval(20)
        while !livery.output.contains("not reloaded"), Date() < deadline { usleep(20_000) }
        #expect(
            livery.output.contains("not reloaded") && livery.output.contains("more than 10 certificates"),
            "\(livery.output)")
        let answer = try await TLSServeTests.curl([
            "--cacert", certificates.caFile, "https://localhost:\(livery.port)/healthz"
        ])
        #expect(
            answer.status == 0 && answer.standardOutput.contains("ok"), "clients still connect: \(answer.transcript)")
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }
}
