import Foundation
import LiveryJSON
import SkinModel
import SkinStore
import TestSupport
import Testing

/// A release paused by its guard, through the real binary: served at rollout 0, shown by GET and the preview, and
/// resumed from the command line. The pause is written into the file store between two runs of the server, as the
/// guard's trip writes it (`livery:guard`, `release.guard`), because the reports that trip a guard arrive with
/// issue 26's ingestion, not here.
@Suite struct GuardedReleaseTests {
    @Test func aPausedReleaseServesNoDeviceUntilLiveryReleaseResume() async throws {
        let workspace = try AdminWorkspace()
        let (root, data, environment) = (workspace.root, workspace.data, workspace.environment)
        let editor = ["LIVERY_TOKEN": AdminWorkspace.editorToken]

        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: environment)
            try AdminCall(port: livery.port).waitUntilReady()
            let env = editor.merging(["LIVERY_SERVER": "http://127.0.0.1:\(livery.port)"]) { $1 }
            let folder = root + "/work/tiny"
            try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "tiny", marker: "1"), into: folder)
            #expect(try LiveryProcess.run(["push", folder], environment: env).status == 0)
            let from = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-3600))
            let until = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400))
            let released = try LiveryProcess.run(
                ["release", "tiny", "--from", from, "--until", until, "--rollout", "100"], environment: env)
            #expect(released.status == 0, "\(released.output)")
            #expect(try AdminCLITests.polledSkin(livery.port) == "tiny")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }

        // The guard's trip, as `Changes.tripGuardIfNeeded` commits it.
        let store = try FileSkinStore(directory: data + "/store")
        let release = try #require(store.snapshot.skins["tiny"]?.release)
        var document = try #require(release.plan?.jsonValue.objectValue)
        document["paused"] = try JSONValue.parse(
            Array(
                #"{"at":"2027-01-01T00:00:00Z","action":"pause","rollout":100,"figures":{"reportingDevices":60,"failedDevices":20,"failureRate":0.3333,"failedByStage":{"crash":20}}}"#
                    .utf8))
        let paused = try #require(
            ReleasePlan.parse(.object(document), file: nil, pointer: .root, now: release.releasedAt).value)
        let edit = StoreEdit.setRelease(skinID: "tiny", version: release.version, plan: paused, action: "release.guard")
        let outcome = try await store.change(actor: "livery:guard", upload: nil) { (_: StoreSnapshot) throws(Never) in
            StoreDecision(edit: edit, value: ())
        }
        guard case .success(let committed) = outcome else { return }
        #expect(committed.changed)
        store.close()

        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: environment)
            try AdminCall(port: livery.port).waitUntilReady()
            let env = editor.merging(["LIVERY_SERVER": "http://127.0.0.1:\(livery.port)"]) { $1 }
            #expect(try AdminCLITests.polledSkin(livery.port) == "", "paused: rollout 0")

            let shown = try AdminCall(port: livery.port).send("GET", "/admin/v1/skins/tiny")
            let skin = try #require(try JSONValue.parse(shown.body).objectValue)
            let shownRelease = try #require(skin["release"]?.objectValue)
            #expect(shownRelease["paused"]?.objectValue?["rollout"] == .number(JSONNumber(100)))
            #expect(shownRelease["guard"]?.objectValue?["minDevices"] == .number(JSONNumber(50)), "the effective guard")
            let preview = try AdminCall(port: livery.port).send(
                "GET", "/admin/v1/preview?app=demo&platform=ios&appVersion=7.0.0&deviceId=device-1")
            #expect(String(decoding: preview.body, as: UTF8.self).contains("release paused by its guard"))

            // Only the guard sets paused: a person's patch that sets it is refused, naming the field.
            let forged = try AdminCall(port: livery.port).send(
                "PATCH", "/admin/v1/skins/tiny/release", body: Array(#"{"paused":{"at":"2027-01-01T00:00:00Z"}}"#.utf8),
                contentType: "application/json")
            #expect(forged.status == 422 && String(decoding: forged.body, as: UTF8.self).contains("\"paused\""))

            let resumed = try LiveryProcess.run(["release", "tiny", "--resume"], environment: env)
            #expect(resumed.status == 0, "\(resumed.output)")
            #expect(
                resumed.output.contains("rollout:   100%") && !resumed.output.contains("paused"), "\(resumed.output)")
            #expect(try AdminCLITests.polledSkin(livery.port) == "tiny", "served again at the rollout from before")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
        _ = workspace
    }
}
