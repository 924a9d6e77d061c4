import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The catalog behind a real cache (Debian's nginx `proxy_cache`, configured as deploy/README.md says): thousands
/// of launches from distinct devices reach the origin a handful of times, every cached copy's signature verifies
/// with the `openssl` command line, and a change on the origin reaches phones once the cached copy's max-age runs
/// out (stale copies come only from the cache).
@Suite(.serialized, .enabled(if: CachingProxy.isInstalled, "nginx is not installed (apt-get install nginx)"))
struct CatalogCacheTests {
    static let maxAge = 2
    static let launches = 3000

    @Test func thousandsOfLaunchesReachTheOriginAHandfulOfTimesAndEveryCachedCopyVerifies() async throws {
        let workspace = try AdminWorkspace()
        let now = Date()
        let window =
            #"{"startsAt":"\#(ISO8601DateFormatter().string(from: now.addingTimeInterval(-3600)))","#
            + #""endsAt":"\#(ISO8601DateFormatter().string(from: now.addingTimeInterval(2 * 86_400)))","platforms":["ios"]}"#
        try AdminWorkspace.write(
            AdminWorkspace.tinySkin(id: "cdn-skin", marker: "1", release: window), into: workspace.skins + "/cdn-skin")
        let scratch = try ScratchDirectory(prefix: "livery-catalog-cache")
        try await SigningCLITests.makeKey("cdn", in: scratch)
        let livery = try await SignedServeTests.serve(
            ["--signing-key", scratch.path("cdn.pem"), "--cache-max-age", "\(Self.maxAge)"],
            environment: workspace.environment)
        let proxy = try await blocking { try CachingProxy(origin: livery.port) }

        // Launches: every device asks for the same catalog with its own id and version, four connections in turn.
        let started = Date()
        let copies = try await blocking { () throws -> [String: (body: [UInt8], signature: String)] in
            var copies: [String: (body: [UInt8], signature: String)] = [:]
            let clients = try (0..<4).map { _ in try TestClient(port: proxy.port) }
            for launch in 0..<Self.launches {
                let response = try clients[launch % 4].get(
                    "/api/v1/catalog?app=demo&platform=ios&deviceId=device-\(launch)&appVersion=7.\(launch % 9).0")
                guard response.status == 200, let etag = response.header("ETag"),
                    let signature = response.header("Livery-Signature")
                else { throw E2EError(description: "launch \(launch): \(response.status) \(response.text)") }
                copies[etag] = (response.body, signature)
            }
            return copies
        }
        let elapsed = Date().timeIntervalSince(started)
        let (origin, total) = try proxy.originRequests()
        #expect(total == Self.launches)
        // Each copy is fresh for max-age (2 s): at most one origin request per second elapsed, plus the first.
        #expect(origin >= 1 && origin <= Int(elapsed) + 2, "\(origin) origin requests in \(elapsed) s")
        #expect(origin * 100 <= Self.launches, "\(origin) origin requests for \(Self.launches) launches")

        // Every distinct copy the cache handed out verifies, byte for byte, with openssl.
        for (index, copy) in copies.values.enumerated() {
            try scratch.write("copy-\(index)", copy.body)
            let saved = SignedServeTests.SavedPoll(
                head: "", body: copy.body, signatureLine: "Livery-Signature: " + copy.signature)
            #expect(saved.keyID == "cdn")
            let signature = try #require(saved.signature)
            #expect(
                try await SignedServeTests.opensslVerifies(
                    scratch.path("copy-\(index)"), signature: signature, publicKey: scratch.path("cdn.pub"), in: scratch
                ))
            #expect(String(decoding: copy.body, as: UTF8.self).contains(#""skinId":"cdn-skin""#))
        }

        // A release change (the kill switch) on the origin: until the cached copy's max-age runs out the cache may
        // answer from its copy, never from the origin; then it fetches the change.
        let admin = AdminCall(port: livery.port)
        let switched = try admin.json("PUT", "/admin/v1/killswitch", body: #"{"app": "demo", "enabled": true}"#)
        #expect(switched.status == 200, "\(switched.object)")
        let changed = Date()
        let seen = try await blocking { () throws -> (response: TestResponse, staleHits: [String]) in
            var staleStatuses: [String] = []
            let client = try TestClient(port: proxy.port)
            let deadline = Date().addingTimeInterval(Double(Self.maxAge) + 30)
            while Date() < deadline {
                let response = try client.get("/api/v1/catalog?app=demo&platform=ios&deviceId=after")
                if response.text.contains(#""killed":true"#) { return (response, staleStatuses) }
                staleStatuses.append(response.header("X-Cache-Status") ?? "none")
                usleep(100_000)
            }
            throw E2EError(description: "the kill switch never reached the cache")
        }
        #expect(seen.staleHits.allSatisfy { $0 == "HIT" }, "stale copies come only from the cache: \(seen.staleHits)")
        #expect(["EXPIRED", "MISS", "REVALIDATED"].contains(seen.response.header("X-Cache-Status") ?? ""))
        #expect(seen.response.text.contains(#""skins":[]"#))
        let delay = Date().timeIntervalSince(changed)
        print(
            "catalog cache: \(Self.launches) launches, \(origin) origin requests in \(elapsed) s; kill switch seen after \(delay) s (max-age \(Self.maxAge) s)"
        )
        try scratch.write("killed", seen.response.body)
        let killedSignature = try #require(
            SignedServeTests.SavedPoll(
                head: "", body: [],
                signatureLine: "Livery-Signature: " + (seen.response.header("Livery-Signature") ?? "")
            ).signature)
        #expect(
            try await SignedServeTests.opensslVerifies(
                scratch.path("killed"), signature: killedSignature, publicKey: scratch.path("cdn.pub"), in: scratch))
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }
}
