import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import LiveryHTTP

/// HTTPS on the server's own sockets, checked with clients Livery did not write: curl, `openssl s_client` and
/// Python's `ssl`. Certificates come from the `openssl` command line (`TestCertificates`). 127.0.0.1 only.
@Suite(.serialized) struct TLSServerTests {
    /// A TLS server with the standard routes plus `/file` (a 6 MiB file body).
    struct Fixture {
        let certificates: TestCertificates
        let server: TestServer
        let fileDigest: String
        let fileLength: Int
        var port: Int { server.port }
        var ca: String { certificates.caFile }

        static func start(
            certificate: String = "server", headerTimeout: Duration = .seconds(10)
        ) async throws -> Fixture {
            let certificates = try await TestCertificates.make()
            var generator = SplitMix64(seed: 16)
            let content = generator.bytes(6 << 20)
            let file = try certificates.folder.write("body.bin", content)
            let pair = certificates.pair(certificate)
            let server = try TestServer.start(
                configure: {
                    $0.tls = HTTPServer.TLSConfiguration(certificatePath: pair.certificate, privateKeyPath: pair.key)
                    $0.headerTimeout = headerTimeout
                },
                routes: { router in
                    TestServer.standardRoutes(router)
                    router.on(
                        .get, "/file",
                        .sync { _ in
                            HTTPResponse(body: .file(path: file, offset: 0, length: UInt64(content.count)))
                        })
                })
            let digest = try await ExternalProcess.run("sha256sum", [file]).standardOutput.prefix(64)
            return Fixture(
                certificates: certificates, server: server, fileDigest: String(digest), fileLength: content.count)
        }

        func probe(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> [String: Any] {
            let run = try await ExternalProcess.run("python3", ["-c", TLSProbe.script] + arguments, timeout: timeout)
            let last = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
            guard run.status == 0,
                let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
            else {
                throw ProbeFailure(description: run.transcript)
            }
            return object
        }

        /// The server still answers a normal HTTPS request.
        func answersNormally() async throws -> Bool {
            let answer = try await probe(["get", "\(port)", ca, "/hello"])
            return answer["status"] as? Int == 200
        }
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let description: String
    }

    @Test func curlGetsAnAnswerOverHTTPSWithALPNHTTP11AndKeepAlive() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        let url = "https://127.0.0.1:\(fixture.port)/hello"
        let run = try await ExternalProcess.run(
            "curl", ["-sS", "--cacert", fixture.ca, "-w", " %{http_version} %{num_connects}\n", url, url])
        #expect(run.status == 0, "\(run.transcript)")
        // Both requests on one connection (the second reports no new connect), over HTTP/1.1.
        #expect(run.standardOutput == "hello 1.1 1\nhello 1.1 0\n", "\(run.transcript)")
    }

    @Test func pythonSslNegotiatesTLS13AndTLS12WithALPN() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        let modern = try await fixture.probe(["get", "\(fixture.port)", fixture.ca, "/hello"])
        #expect(modern["status"] as? Int == 200)
        #expect(modern["version"] as? String == "TLSv1.3")
        #expect(modern["alpn"] as? String == "http/1.1")
        let older = try await fixture.probe(["get", "\(fixture.port)", fixture.ca, "/hello", "1.2"])
        #expect(older["version"] as? String == "TLSv1.2")
        #expect(older["alpn"] as? String == "http/1.1")
    }

    @Test func sessionsAreResumedWithTLS12AndTLS13() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        for version in ["1.2", "1.3"] {
            let answer = try await fixture.probe(["resume", "\(fixture.port)", fixture.ca, version])
            #expect(answer["status"] as? Int == 200)
            #expect(answer["reused"] as? Bool == true, "TLS \(version): \(answer)")
        }
    }

    @Test func opensslSClientWithoutSNIGetsTheCertificateAndAnAnswer() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        let script =
            "printf 'GET /hello HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n' | openssl s_client -connect "
            + "127.0.0.1:\(fixture.port) -noservername -CAfile \(fixture.ca) -alpn http/1.1 -verify_return_error "
            + "-ign_eof 2>&1"
        let run = try await ExternalProcess.run("sh", ["-c", script])
        #expect(run.standardOutput.contains("Verify return code: 0 (ok)"), "\(run.transcript)")
        #expect(run.standardOutput.contains("ALPN protocol: http/1.1"), "\(run.transcript)")
        #expect(run.standardOutput.contains("HTTP/1.1 200 OK"), "\(run.transcript)")
        // TLS 1.1 and older are refused by the server.
        let old = try await ExternalProcess.run(
            "sh",
            [
                "-c",
                "openssl s_client -connect 127.0.0.1:\(fixture.port) -tls1_1 -cipher DEFAULT@SECLEVEL=0 </dev/null 2>&1"
            ])
        #expect(old.status != 0)
        #expect(old.standardOutput.contains("alert protocol version"), "\(old.transcript)")
        #expect(try await fixture.answersNormally())
    }

    @Test(arguments: ["expired", "untrusted"])
    func clientsRefuseAnExpiredOrUntrustedCertificateAndTheServerCarriesOn(_ name: String) async throws {
        let fixture = try await Fixture.start(certificate: name)
        defer { Task { await fixture.server.stop() } }
        let url = "https://127.0.0.1:\(fixture.port)/hello"
        let curl = try await ExternalProcess.run("curl", ["-sS", "--cacert", fixture.ca, url])
        #expect(curl.status == 60, "\(curl.transcript)")
        let reason = name == "expired" ? "expired" : "local issuer"
        #expect(curl.standardError.contains(reason), "\(curl.transcript)")
        let python = try await ExternalProcess.run(
            "python3", ["-c", TLSProbe.script, "get", "\(fixture.port)", fixture.ca, "/hello"])
        #expect(python.status != 0)
        #expect(python.standardError.contains("CERTIFICATE_VERIFY_FAILED"), "\(python.transcript)")
        // The refused handshakes cost the server nothing: an unverifying client is still served.
        let insecure = try await ExternalProcess.run("curl", ["-sS", "-k", url])
        #expect(insecure.standardOutput == "hello", "\(insecure.transcript)")
    }

    @Test func aFileBodyToASlowReaderArrivesWholeOverTLS() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        let answer = try await fixture.probe(["slow", "\(fixture.port)", fixture.ca, "/file"])
        #expect(answer["status"] as? Int == 200)
        #expect(answer["length"] as? Int == fixture.fileLength)
        #expect(answer["sha256"] as? String == fixture.fileDigest)
        let curl = try await ExternalProcess.run(
            "sh", ["-c", "curl -sS --cacert \(fixture.ca) https://127.0.0.1:\(fixture.port)/file | sha256sum"])
        #expect(curl.standardOutput.hasPrefix(fixture.fileDigest), "\(curl.transcript)")
    }

    @Test func aClientHelloDribbledByteByByteCompletesTheHandshake() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        let answer = try await fixture.probe(["dribble", "\(fixture.port)", fixture.ca])
        #expect((answer["answer"] as? String)?.hasPrefix("HTTP/1.1 200 OK") == true, "\(answer)")
        #expect(answer["bodyEnds"] as? Bool == true)
    }

    @Test func plainHTTPToTheTLSPortIsClosedWithoutAnAnswer() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        let answer = try await fixture.probe(["plain", "\(fixture.port)"])
        #expect(answer["closed"] as? Bool == true)
        #expect((answer["received"] as? String)?.contains("HTTP/1.1") == false, "\(answer)")
        #expect(try await fixture.answersNormally())
    }

    @Test func seededHostileHandshakeBytesAreClosedAndNeverStopTheServer() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.server.stop() } }
        for seed in [1, 2] {
            let answer = try await fixture.probe(["fuzz", "\(fixture.port)", "\(seed)", "120"], timeout: .seconds(120))
            #expect(answer["count"] as? Int == 120)
            #expect(answer["leftOpen"] as? Int == 0, "seed \(seed): \(answer)")
            #expect(try await fixture.answersNormally())
        }
    }

    @Test func aHandshakeThatStallsIsClosedAtTheHeaderTimeout() async throws {
        let fixture = try await Fixture.start(headerTimeout: .seconds(1))
        defer { Task { await fixture.server.stop() } }
        let answer = try await fixture.probe(["stall", "\(fixture.port)", "5"])
        let waits = try #require(answer["closedAfter"] as? [Any])
        #expect(waits.count == 5)
        for wait in waits {
            // Closed after the 1 s header timeout (the loop's sweep is coarse), not before, and never left open.
            let seconds = try #require(wait as? Double, "left open: \(answer)")
            #expect(seconds >= 0.9 && seconds < 8, "\(answer)")
        }
        #expect(try await fixture.answersNormally())
    }

    @Test func aCertificateThatCannotBeUsedStopsTheStartAndNamesTheFile() async throws {
        let certificates = try await TestCertificates.make()
        let good = certificates.pair("server")
        let other = certificates.pair("untrusted")
        let garbage = try certificates.folder.write("garbage.pem", Array("not a certificate".utf8))
        let cases: [(HTTPServer.TLSConfiguration, String)] = [
            (.init(certificatePath: garbage, privateKeyPath: good.key), garbage),
            (.init(certificatePath: good.certificate, privateKeyPath: garbage), garbage),
            (.init(certificatePath: good.certificate, privateKeyPath: other.key), other.key),
            (
                .init(certificatePath: certificates.folder.path("missing.crt"), privateKeyPath: good.key),
                certificates.folder.path("missing.crt")
            )
        ]
        for (tls, file) in cases {
            #expect {
                _ = try TestServer.start(configure: { $0.tls = tls })
            } throws: { error in
                guard case .tls(let problem) = error as? HTTPServerError else { return false }
                return problem.path == file
            }
        }
    }
}
