import Foundation
import TestSupport
import Testing

/// The replica deploy files hold together offline (no Docker engine or cluster runs here): HAProxy accepts the
/// proxy configuration, and each file names what the others expect.
@Suite struct DeployFilesTests {
    static let deploy = LiveryProcess.repository.appendingPathComponent("deploy").path

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: deploy + "/" + path, encoding: .utf8)
    }

    @Test func haproxyAcceptsTheProxyConfigurationAndChecksReadiness() async throws {
        let checked = try await ExternalProcess.run("/usr/sbin/haproxy", ["-c", "-f", Self.deploy + "/haproxy.cfg"])
        #expect(checked.status == 0, "\(checked.transcript)")
        let configuration = try Self.read("haproxy.cfg")
        #expect(configuration.contains("option httpchk GET /readyz"))
        let compose = try Self.read("docker-compose.replicas.yml")
        for server in ["livery-a", "livery-b"] {
            #expect(configuration.contains("server \(server) \(server):8080"), "haproxy.cfg names \(server)")
            #expect(compose.contains("  \(server): *livery"), "the Compose file defines \(server)")
        }
        #expect(compose.contains("./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"))
    }

    /// Debian 12's `docker-compose` (1.29, Debian's package of that name) reads both Compose files, and each names
    /// its services; nothing in them is Compose v2 only (a top-level `name:`) or obsolete in v2 (`version:`).
    @Test(arguments: [
        ("docker-compose.yml", "livery", ["livery"]),
        ("docker-compose.replicas.yml", "livery-replicas", ["livery-a", "livery-b", "postgres", "proxy"])
    ])
    func debiansDockerComposeAcceptsTheComposeFile(file: String, project: String, services: [String]) async throws {
        let composer = "/usr/bin/docker-compose"
        try #require(FileManager.default.isExecutableFile(atPath: composer), "install Debian's docker-compose")
        let path = Self.deploy + "/" + file
        let quiet = try await ExternalProcess.run(composer, ["-f", path, "config", "-q"])
        #expect(quiet.status == 0, "\(quiet.transcript)")
        let listed = try await ExternalProcess.run(composer, ["-p", project, "-f", path, "config", "--services"])
        #expect(listed.status == 0, "\(listed.transcript)")
        #expect(Set(listed.standardOutput.split(separator: "\n").map(String.init)) == Set(services))
        let topLevel = try Self.read(file).split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.hasPrefix("#") }
        #expect(!topLevel.contains { $0.hasPrefix("name:") || $0.hasPrefix("version:") }, "\(topLevel)")
    }

    @Test func theKubernetesOverlayRunsThreeReplicasReadyOnlyOnceLoaded() throws {
        let patch = try Self.read("kubernetes-postgres/deployment-patch.yaml")
        #expect(patch.contains("replicas: 3"))
        #expect(patch.contains("path: /readyz") && patch.contains("path: /healthz"))
        #expect(patch.contains("name: LIVERY_STORE\n") && patch.contains("name: livery-store"))
        let secret = try Self.read("kubernetes-postgres/store-secret.yaml")
        #expect(secret.contains("name: livery-store") && secret.contains("uri:"))
        let kustomization = try Self.read("kubernetes-postgres/kustomization.yaml")
        for resource in ["../kubernetes", "store-secret.yaml", "pdb.yaml", "deployment-patch.yaml"] {
            #expect(kustomization.contains(resource))
        }
    }
}
