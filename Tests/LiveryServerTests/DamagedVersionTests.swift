import Foundation
import HTTPTestSupport
import SkinStore
import Testing

@testable import LiveryServer

/// Damage stays with its version on the file store too: a damaged metadata blob of the released version no longer
/// stops the start; that version is left out (not served, 500 `version_damaged` when asked for), `/readyz` stays 200
/// and lists it, the skin's admin answer shows it, and the kill switch and other writes keep working.
@Suite struct DamagedVersionTests {
    @Test func aDamagedMetadataBlobLeavesItsVersionOutAndTheServiceWorks() async throws {
        let first = try await LiveryHarness(samples: ["christmas-2026"])
        defer { first.removeFiles() }
        #expect(try await first.get(LiveryHarness.poll).text.contains(#""skinId":"christmas-2026""#))
        let version = try #require(first.store.snapshot.skins["christmas-2026"]?.version(1))
        let blob = try first.store.blobPath(digest: version.metadataDigest)
        await first.stop()
        try Data("{}".utf8).write(to: URL(fileURLWithPath: blob))

        let harness = try await LiveryHarness(samples: ["christmas-2026"], root: first.root)
        let ready = try await harness.get("/readyz")
        #expect(ready.status == 200, "\(ready.text)")
        #expect(
            ready.text.hasPrefix(
                #"{"status":"ready","damaged":[{"skin":"christmas-2026","version":1,"reason":"the metadata of christmas-2026 v1 does not match its digest "#
            ), "\(ready.text)")
        #expect(harness.service.damaged.count == 1)
        // Not served: the answer says no skin (the rules' answer for the catalog it has), never a fault.
        let poll = try await harness.get(LiveryHarness.poll)
        #expect(poll.status == 200 && poll.text.hasPrefix(#"{"skinSign":"""#), "\(poll.text)")
        let skin = try await harness.request("GET", "/admin/v1/skins/christmas-2026")
        #expect(
            skin.status == 200 && skin.text.contains(#""damaged":[{"skin":"christmas-2026","version":1,"reason":"#),
            "\(skin.text)")
        for target in [
            "/admin/v1/skins/christmas-2026/versions/1", "/admin/v1/skins/christmas-2026/versions/1/config.json"
        ] {
            let refused = try await harness.request("GET", target)
            #expect(
                refused.status == 500 && refused.text.contains(#""code":"version_damaged""#),
                "\(target): \(refused.text)")
        }
        let killed = try await harness.send(
            "PUT", "/admin/v1/killswitch", json: #"{"enabled": true, "reason": "incident"}"#)
        #expect(killed.status == 200, "\(killed.text)")
        await harness.stop()
    }

    /// A release document changed by hand into something that is not a release plan keeps its skin out of the
    /// catalog, and only that: the service starts and is ready, the skin's admin answer shows the release with its
    /// `damage`, and a new release replaces it.
    @Test func aReleaseDocumentThatIsNotAPlanKeepsOnlyItsSkinOut() async throws {
        let first = try await LiveryHarness(samples: ["christmas-2026"])
        defer { first.removeFiles() }
        let document = try #require(first.store.snapshot.skins["christmas-2026"]?.release?.document)
        await first.stop()
        let statePath = first.dataDirectory + "/store/state.json"
        let state = try String(contentsOfFile: statePath, encoding: .utf8)
        let stored = Data(document).base64EncodedString()
        #expect(state.contains(stored))
        try state.replacingOccurrences(of: stored, with: Data(#"{"rollout":"all"}"#.utf8).base64EncodedString())
            .write(toFile: statePath, atomically: true, encoding: .utf8)

        let harness = try await LiveryHarness(samples: ["christmas-2026"], root: first.root)
        #expect(try await harness.get("/readyz").status == 200)
        let poll = try await harness.get(LiveryHarness.poll)
        #expect(poll.status == 200 && poll.text.hasPrefix(#"{"skinSign":"""#), "\(poll.text)")
        let skin = try await harness.request("GET", "/admin/v1/skins/christmas-2026")
        #expect(skin.status == 200, "\(skin.text)")
        #expect(
            skin.text.contains(#""release":{"version":1,"guard":"#)
                && skin.text.contains(#""damage":"the release of version 1: "#)
                && skin.text.contains("rollout must be a whole percentage"),
            "\(skin.text)")
        let released = try await harness.send(
            "PUT", "/admin/v1/skins/christmas-2026/release", json: LiveryHarness.window)
        #expect(released.status == 200 && !released.text.contains(#""damage""#), "\(released.text)")
        #expect(try await harness.get(LiveryHarness.poll).text.contains(#""skinId":"christmas-2026""#))
        await harness.stop()
    }
}
