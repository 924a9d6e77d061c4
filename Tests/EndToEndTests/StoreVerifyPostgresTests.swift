import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery store verify --store` and the replicas' periodic scrub on a real PostgreSQL store whose blob row and
/// version row are damaged in place (issue 22, faults 6).
@Suite(.postgresServer, .hangGuard) struct StoreVerifyPostgresTests {
    @Test func verifyAndTheReplicasScrubNameADamagedBlobRowAndVersionRow() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let uri = server.uri(database: database)
        let workspace = try Replicas.workspace(releasing: "tiny")
        let scrub = ["LIVERY_SCRUB_INTERVAL": "0.3", "LIVERY_LOG_LEVEL": "info"]
        let (first, second) = try await blocking {
            let first = try Replicas.start(store: uri, workspace: workspace, environment: scrub)
            let second = try Replicas.start(store: uri, workspace: workspace, environment: scrub)
            try AdminCall(port: first.port).waitUntilReady()
            try AdminCall(port: second.port).waitUntilReady()
            return (first, second)
        }
        let clean = try await blocking { try LiveryProcess.runSeparately(["store", "verify", "--store", uri]) }
        #expect(clean.status == 0, "\(clean.output)")
        #expect(clean.standardOutput.isEmpty)

        _ = try await server.psql(
            """
            UPDATE livery_blobs SET bytes = bytes || '\\x00'::bytea
            WHERE sha256 = (SELECT sha256 FROM livery_version_files WHERE skin_id = 'tiny' AND path = 'config.json');
            UPDATE livery_versions SET digest = repeat('0', 64) WHERE skin_id = 'tiny' AND number = 1;
            """, database: database)
        let found = try await blocking {
            try LiveryProcess.runSeparately(["store", "verify", "--store", uri, "--json"])
        }
        #expect(found.status == 1, "\(found.output)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(found.standardOutput.utf8)) as? [String: Any])
        let damaged = (object["damaged"] as? [[String: Any]] ?? []).map {
            "\($0["kind"] ?? "") \($0["skin"] ?? "") v\($0["version"] ?? "") \($0["location"] ?? "")"
        }
        #expect(
            damaged.sorted() == [
                "blob tiny v1 config.json", "version tiny v1 livery_versions row skin_id=tiny number=1"
            ], "\(found.standardOutput)")

        let line = "damaged blob tiny v1 config.json: "
        try await blocking {
            let deadline = Date().addingTimeInterval(30)
            while !first.output.contains(line) || !second.output.contains(line) {
                guard Date() < deadline else {
                    throw E2EError(
                        description: "no scrub found it: \(first.output.suffix(2000)) \(second.output.suffix(2000))")
                }
                usleep(50_000)
            }
        }
        let metrics = String(decoding: try TestClient(port: first.port).get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"livery_scrub_damaged{kind="version"} 1"#), "\(metrics)")
    }

    @Test func aVersionOneReplicasScrubFindsDamagedIsLeftOutByEveryReplica() async throws {
        let server = try PostgresServer.forSuite()
        let database = try await server.createDatabase()
        let uri = server.uri(database: database)
        let workspace = try StoreVerifyTests.twoReleasedSkins()
        let scrub = ["LIVERY_SCRUB_INTERVAL": "0.3", "LIVERY_LOG_LEVEL": "info"]
        let (first, second) = try await blocking {
            let first = try Replicas.start(store: uri, workspace: workspace, environment: scrub)
            let second = try Replicas.start(store: uri, workspace: workspace, environment: scrub)
            try first.waitUntilReady()
            try second.waitUntilReady()
            for replica in [first, second] { #expect(Replicas.polledSkin(port: replica.port) == "top") }
            return (first, second)
        }
        // One byte of top v1's config.json flipped in its row, behind Livery's back (no revision bump): only a scrub
        // can see it, and only one replica scrubs at a time.
        let flip = """
            UPDATE livery_blobs SET bytes = set_byte(bytes, 1, get_byte(bytes, 1) # 1)
            WHERE sha256 = (SELECT sha256 FROM livery_version_files WHERE skin_id = 'top' AND number = 1 AND path = 'config.json')
            """
        _ = try await server.psql(flip, database: database)
        try await blocking {
            for replica in [first, second] {
                #expect(
                    Replicas.timeUntilServed("base", port: replica.port, within: 30) != nil,
                    "\(replica.output.suffix(3000))")
                try StoreVerifyTests.expectTopReportedDamaged(port: replica.port)
            }
            // The mark is in the store: a replica started now, which does not scrub, leaves the version out too.
            let third = try Replicas.start(
                store: uri, workspace: workspace, environment: ["LIVERY_SCRUB_INTERVAL": "0"])
            try third.waitUntilReady()
            #expect(Replicas.polledSkin(port: third.port) == "base")
            try StoreVerifyTests.expectTopReportedDamaged(port: third.port)
            #expect(try third.stop(signal: SIGTERM) == 0)
        }
        // Restored: a scrub finds the version sound, clears the mark, and every replica serves it again.
        _ = try await server.psql(flip, database: database)
        try await blocking {
            for replica in [first, second] {
                #expect(
                    Replicas.timeUntilServed("top", port: replica.port, within: 30) != nil,
                    "\(replica.output.suffix(3000))")
                let ready = try TestClient(port: replica.port).get("/readyz").text
                #expect(!ready.contains("damaged"), "\(ready)")
                #expect(try replica.stop(signal: SIGTERM) == 0)
            }
        }
    }
}
