import Foundation
import Testing
import TestSupport

/// The replica deploy files hold together offline (no Docker engine or cluster runs here): HAProxy accepts the
/// proxy configuration, and each file names what the others expect.
@Suite struct DeployFilesTests {
    static let deploy = LiveryProcess.repository.appendingPathComponent("deploy").path

    static func read(_ path: String) throws -> String { try String(contentsOfFile: deploy + "/" + path, encoding: .utf8) }

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
