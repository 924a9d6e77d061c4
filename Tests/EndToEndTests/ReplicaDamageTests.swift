import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Damage stays with its version on real replicas over a real PostgreSQL: a never-released skin's metadata blob row
/// damaged in the database (or its file rows changed behind Livery's back) leaves that version out, logged and
/// reported by `/readyz`, `GET /admin/v1/skins/{id}` and `livery_store_damaged_versions`, while the kill switch and
/// every other write keep working on every replica and a replica started afterwards starts.
@Suite(.postgresServer, .hangGuard) struct ReplicaDamageTests {
    @Test(arguments: ["metadata", "file list"])
    func aDamagedVersionStaysWithItsSkinAndEveryReplicaKeepsWorking(damage: String) async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let uri = server.uri(database: database)
        let workspace = try Replicas.workspace(releasing: "seed")
        let (first, second, admin, other) = try await blocking {
            let first = try Replicas.start(store: uri, workspace: workspace)
            let second = try Replicas.start(store: uri, workspace: workspace)
            let (admin, other) = (AdminCall(port: first.port), AdminCall(port: second.port))
            try admin.waitUntilReady()
            try other.waitUntilReady()
            // A skin pushed, never released: its one version will be damaged.
            let archive = try AdminWorkspace.zip(AdminWorkspace.tinySkin(id: "broken", marker: "b1"))
            let upload = try admin.send("POST", "/admin/v1/skins", body: archive, contentType: "application/zip")
            try #require(upload.status == 201, "\(upload.text)")
            return (first, second, admin, other)
        }
        let sql =
            damage == "metadata"
            ? """
            UPDATE livery_blobs SET bytes = set_byte(bytes, 1, get_byte(bytes, 1) # 1)
            WHERE sha256 = (SELECT metadata_sha256 FROM livery_versions WHERE skin_id = 'broken' AND number = 1)
            """
            : "UPDATE livery_version_files SET size = size + 1 WHERE skin_id = 'broken' AND number = 1 AND path = 'config.json'"
        // A hand edit, with the store revision bumped as the docs ask: every replica reloads.
        try await server.psql("\(sql); UPDATE livery_store SET revision = revision + 1", database: database)

        try await blocking {
            // Every replica reports the damage and stays ready.
            for port in [first.port, second.port] {
                #expect(
                    AdminServeTests.eventually(seconds: 10) {
                        (try? TestClient(port: port).get("/readyz"))?.text.contains(
                            #""damaged":[{"skin":"broken","version":1,"reason":""#) == true
                    }, "\((try? TestClient(port: port).get("/readyz"))?.text ?? "")")
                let ready = try TestClient(port: port).get("/readyz")
                #expect(
                    ready.status == 200 && ready.text.hasPrefix(#"{"status":"ready","store":"reachable","damaged":"#),
                    "\(ready.text)")
            }
            // The kill switch first, on either replica; then every other write.
            let killed = try other.json(
                "PUT", "/admin/v1/killswitch", body: #"{"enabled": true, "reason": "incident"}"#)
            #expect(killed.status == 200, "\(killed.object)")
            #expect(Replicas.timeUntilServed("", port: first.port, within: 10) != nil)
            let revived = try admin.json("PUT", "/admin/v1/killswitch", body: #"{"enabled": false, "reason": "over"}"#)
            #expect(revived.status == 200, "\(revived.object)")
            try Replicas.pushAndRelease(other, id: "fresh", marker: "f1", priority: 5)
            #expect(Replicas.timeUntilServed("fresh", port: first.port, within: 10) != nil)
            let patched = try admin.json("PATCH", "/admin/v1/skins/fresh/release", body: #"{"priority": 6}"#)
            #expect(patched.status == 200, "\(patched.object)")

            // The skin shows its damage; the damaged version is refused, naming it, and is never released.
            let skin = try admin.json("GET", "/admin/v1/skins/broken")
            #expect(skin.status == 200)
            let damaged = try #require(skin.object["damaged"] as? [[String: Any]], "\(skin.object)")
            #expect(
                damaged.count == 1 && damaged.first?["version"] as? Int == 1
                    && damaged.first?["skin"] as? String == "broken")
            #expect((damaged.first?["reason"] as? String)?.contains("broken v1") == true, "\(damaged)")
            for (method, target, body) in [
                ("GET", "/admin/v1/skins/broken/versions/1", nil),
                ("GET", "/admin/v1/skins/broken/versions/1/config.json", nil),
                ("PUT", "/admin/v1/skins/broken/release", #"{"version": 1, \#(Replicas.window)}"#)
            ] {
                let refused = try other.json(method, target, body: body)
                #expect(
                    refused.status == 500
                        && (refused.object["error"] as? [String: Any])?["code"] as? String == "version_damaged",
                    "\(method) \(target): \(refused.status) \(refused.object)")
            }
            // A new upload of the skin makes a sound version 2 that releases and serves.
            let archive = try AdminWorkspace.zip(AdminWorkspace.tinySkin(id: "broken", marker: "b2"))
            let pushed = try admin.send("POST", "/admin/v1/skins", body: archive, contentType: "application/zip")
            #expect(pushed.status == 201, "\(pushed.text)")
            let metrics = try TestClient(port: first.port).get("/metrics").text
            #expect(
                metrics.contains("livery_store_damaged_versions 1"),
                "\(metrics.split(separator: "\n").filter { $0.contains("damaged") })")
            #expect(first.output.contains("stored version damaged"), "\(first.output)")

            // A replica started now starts, ready, reporting the damage.
            let third = try Replicas.start(store: uri, workspace: workspace)
            try third.waitUntilReady()
            #expect(try TestClient(port: third.port).get("/readyz").text.contains(#""skin":"broken","version":1"#))
            #expect(Replicas.polledSkin(port: third.port) == "fresh")
            for livery in [first, second, third] { #expect(try livery.stop(signal: SIGTERM) == 0) }
        }
    }

    @Test func aMissingRevisionRowStillStopsTheStartNamingIt() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let uri = server.uri(database: database)
        let workspace = try Replicas.workspace(releasing: "seed")
        try await blocking {
            let first = try Replicas.start(store: uri, workspace: workspace)
            try first.waitUntilReady()
            #expect(try first.stop(signal: SIGTERM) == 0)
        }
        try await server.psql("DELETE FROM livery_store", database: database)
        try await blocking {
            let replica = try Replicas.start(store: uri, workspace: workspace)
            let status = try replica.waitForExit(seconds: 30)
            #expect(status == 2, "\(replica.output)")
            #expect(
                replica.output.contains("livery_store row") && replica.output.contains("revision row is missing"),
                "\(replica.output)")
        }
    }
}
