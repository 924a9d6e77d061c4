import Foundation

/// Certificates made by the `openssl` command line in a scratch folder, for TLS tests (never by the code under
/// test): a private CA, server certificates for 127.0.0.1 / localhost signed by it (one per name given), an expired
/// one, and one from a second CA that the first does not trust.
public struct TestCertificates: Sendable {
    public let folder: ScratchDirectory
    /// The private CA's certificate (what clients trust).
    public var caFile: String { folder.path("ca.crt") }

    /// A certificate and its key, as PEM files.
    public struct Pair: Sendable {
        public let certificate: String
        public let key: String

        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case openssl(String)
        public var description: String {
            switch self {
            case .openssl(let transcript): "openssl failed: \(transcript)"
            }
        }
    }

    /// Makes the CA and, for each of `names`, a valid server certificate with that common name (valid for
    /// 127.0.0.1 and localhost), plus `expired` (valid yesterday only) and `untrusted` (signed by another CA).
    public static func make(names: [String] = ["server"]) async throws -> TestCertificates {
        let folder = try ScratchDirectory(prefix: "livery-tls")
        let certificates = TestCertificates(folder: folder)
        let extensions = try folder.write(
            "server.ext",
            Array(
                "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
                    .utf8))
        for ca in ["ca", "other-ca"] {
            try await openssl([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", folder.path("\(ca).key"), "-out", folder.path("\(ca).crt"), "-days", "3",
                "-subj", "/CN=Livery test \(ca)"
            ])
        }
        for name in names {
            try await certificates.issue(name: name, by: "ca", extensions: extensions, validity: ["-days", "2"])
        }
        try await certificates.issue(
            name: "untrusted", by: "other-ca", extensions: extensions, validity: ["-days", "2"])
        // Valid from two days ago until yesterday (`x509 -not_before/-not_after` need OpenSSL 3.4; `ca` does not).
        try await certificates.issueExpired(extensions: extensions)
        return certificates
    }

    /// The certificate and key named `name` (a name given to `make`, `expired` or `untrusted`).
    public func pair(_ name: String) -> Pair {
        Pair(certificate: folder.path("\(name).crt"), key: folder.path("\(name).key"))
    }

    private func issue(name: String, by ca: String, extensions: String, validity: [String]) async throws {
        try await Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            folder.path("\(name).key"), "-out", folder.path("\(name).csr"), "-subj", "/CN=\(name)"
        ])
        try await Self.openssl(
            [
                "x509", "-req", "-in", folder.path("\(name).csr"), "-CA", folder.path("\(ca).crt"), "-CAkey",
                folder.path("\(ca).key"), "-CAcreateserial", "-out",
                folder.path("\(name).crt"), "-extfile", extensions
            ] + validity)
    }

    private func issueExpired(extensions: String) async throws {
        let database = try folder.write("index.txt", [])
        let configuration = try folder.write(
            "ca.cnf",
            Array(
                """
                [ca]
                default_ca = test
                [test]
                database = \(database)
                new_certs_dir = \(folder.path)
                serial = \(folder.path("serial"))
                default_md = sha256
                policy = any
                unique_subject = no
                [any]
                commonName = supplied

                """.utf8))
        _ = try folder.write("serial", Array("1000\n".utf8))
        try await Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            folder.path("expired.key"), "-out", folder.path("expired.csr"), "-subj", "/CN=expired"
        ])
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        let start = formatter.string(from: Date().addingTimeInterval(-2 * 86_400))
        let end = formatter.string(from: Date().addingTimeInterval(-86_400))
        try await Self.openssl([
            "ca", "-batch", "-config", configuration, "-cert", folder.path("ca.crt"), "-keyfile", folder.path("ca.key"),
            "-in", folder.path("expired.csr"), "-out", folder.path("expired.crt"), "-startdate", start, "-enddate", end,
            "-extfile", extensions, "-notext"
        ])
    }

    private static func openssl(_ arguments: [String]) async throws {
        let result = try await ExternalProcess.run("openssl", arguments)
        guard result.status == 0 else { throw Failure.openssl(result.transcript) }
    }
}
