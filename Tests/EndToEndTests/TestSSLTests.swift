import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// testssl.sh (Debian's `testssl.sh` package, an outside scanner), run offline against `livery serve`'s TLS port on
/// 127.0.0.1: protocols, cipher categories and the known vulnerabilities. Skipped when it is not installed.
@Suite struct TestSSLTests {
    static let executable = ["/usr/bin/testssl", "/usr/bin/testssl.sh"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: executable != nil, "testssl.sh is not installed (apt-get install testssl.sh)"))
    func testsslFindsNoWeakProtocolCipherOrVulnerability() async throws {
        let testssl = try #require(Self.executable)
        let certificates = try await TestCertificates.make()
        let pair = certificates.pair("server")
        let livery = try await blocking {
            try LiveryProcess.start(
                [
                    "serve", "--host", "127.0.0.1", "--port", "0", "--tls-cert", pair.certificate, "--tls-key",
                    pair.key,
                    "--log-level", "warning"
                ])
        }
        let report = certificates.folder.path("testssl.json")
        // No DNS, no outside connection: protocols, the standard cipher categories and the vulnerability checks
        // (the certificate is a test CA's, so its trust and revocation findings are left out).
        let run = try await ExternalProcess.run(
            testssl,
            [
                "--quiet", "--color", "0", "--warnings", "off", "--nodns", "none", "--protocols", "--std",
                "--vulnerable",
                "--jsonfile", report, "127.0.0.1:\(livery.port)"
            ],
            timeout: .seconds(300))
        #expect(run.status == 0, "\(run.transcript)")
        let findings = try #require(
            try JSONSerialization.jsonObject(with: Data(certificates.folder.read("testssl.json"))) as? [[String: Any]])
        func finding(_ id: String) -> String? { findings.first { $0["id"] as? String == id }?["finding"] as? String }
        for old in ["SSLv2", "SSLv3", "TLS1", "TLS1_1"] { #expect(finding(old) == "not offered", "\(old)") }
        for current in ["TLS1_2", "TLS1_3"] { #expect(finding(current)?.hasPrefix("offered") == true, "\(current)") }
        for weak in [
            "cipherlist_NULL", "cipherlist_aNULL", "cipherlist_EXPORT", "cipherlist_LOW", "cipherlist_3DES_IDEA",
            "cipherlist_AVERAGE"
        ] {
            #expect(finding(weak) == "not offered", "\(weak): \(finding(weak) ?? "missing")")
        }
        for id in [
            "heartbleed", "CCS", "ticketbleed", "secure_client_renego", "CRIME_TLS", "POODLE_SSL", "SWEET32", "FREAK",
            "LOGJAM", "BEAST", "LUCKY13", "RC4"
        ] {
            #expect(finding(id) != nil, "testssl.sh reported nothing for \(id)")
        }
        // Every finding that is not about the test certificate is OK or INFO: nothing vulnerable, nothing NOT ok.
        let flagged = findings.filter { finding in
            let id = finding["id"] as? String ?? ""
            let severity = finding["severity"] as? String ?? ""
            return !id.hasPrefix("cert") && !["OK", "INFO"].contains(severity)
        }
        #expect(flagged.isEmpty, "\(flagged)")
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }
}
