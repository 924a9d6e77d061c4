import Foundation
import HTTPTestSupport
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The kill switch never waits for a package build: while one replica builds the packages of a large release, a
/// global kill switch through another replica and an app's kill switch through the building one are answered, and
/// all three replicas serve "skins off", before that build ends. (How many seconds each takes is measured by
/// `bench/pg/run.sh`, not asserted here.)
@Suite(.postgresServer, .hangGuard) struct ReplicaKillSwitchTests {
    /// Megabytes of the generated skin: real PNGs whose data does not compress, so every package variant of it is
    /// a long build.
    static let skinMegabytes = 30

    @Test func killSwitchesAreAnsweredAndServedEverywhereBeforeALargeReleaseBuildEnds() async throws {
        let server = try PostgresServer.forSuite()
        let uri = server.uri(database: try await server.createDatabase())
        let workspace = try Replicas.workspace(releasing: "seed")
        let archive = try await Self.largeSkinArchive(id: "large", in: workspace.root + "/large")

        try await blocking {
            let replicas = try (0..<3).map { _ in try Replicas.start(store: uri, workspace: workspace) }
            for replica in replicas { try AdminCall(port: replica.port).waitUntilReady() }
            let (builder, other) = (AdminCall(port: replicas[0].port), AdminCall(port: replicas[1].port))
            let uploaded = try builder.send(
                "POST", "/admin/v1/skins", body: archive, contentType: "application/zip", timeout: 600)
            try #require(uploaded.status == 201, "\(uploaded.text)")
            for replica in replicas { #expect(Replicas.polledSkin(port: replica.port) == "seed") }

            // The release's packages are built by the replica that answers it, before it commits.
            let release = Release()
            let releasing = Thread {
                let answer = try? builder.send(
                    "PUT", "/admin/v1/skins/large/release", body: Array(#"{"priority": 9, \#(Replicas.window)}"#.utf8),
                    contentType: "application/json", timeout: 600)
                release.finish(status: answer?.status ?? 0)
            }
            releasing.start()

            // No timeout to speak of: what is checked is whether they are answered before the build ends.
            let global = try other.send(
                "PUT", "/admin/v1/killswitch", body: Array(#"{"enabled": true, "reason": "2 a.m."}"#.utf8),
                contentType: "application/json", timeout: 600)
            let app = try builder.send(
                "PUT", "/admin/v1/killswitch",
                body: Array(#"{"app": "demo", "enabled": true, "reason": "2 a.m."}"#.utf8),
                contentType: "application/json", timeout: 600)
            let answeredDuringBuild = !release.isFinished
            #expect(global.status == 200 && app.status == 200, "\(global.text) \(app.text)")
            var servedOff: [Bool] = []
            for replica in replicas {
                servedOff.append(
                    AdminServeTests.eventually(seconds: 60) { Replicas.polledSkin(port: replica.port) == "" })
            }
            let servedDuringBuild = !release.isFinished
            #expect(servedOff == [true, true, true], "skins off served by \(servedOff)")
            #expect(answeredDuringBuild, "the kill switches were answered only after the release build had ended")
            #expect(servedDuringBuild, "skins off was served everywhere only after the release build had ended")

            // The release still goes through, and stays off while the switches are on.
            #expect(AdminServeTests.eventually(seconds: 300) { release.isFinished })
            #expect(release.status == 200, "release answered \(release.status)")
            #expect(Replicas.polledSkin(port: replicas[0].port) == "")
            let global2 = try other.json("PUT", "/admin/v1/killswitch", body: #"{"enabled": false}"#)
            let app2 = try other.json("PUT", "/admin/v1/killswitch", body: #"{"app": "demo", "enabled": false}"#)
            #expect(global2.status == 200 && app2.status == 200)
            // The building replica has the release's packages: it serves it as soon as it learns the switches are off.
            #expect(Replicas.timeUntilServed("large", port: replicas[0].port, within: 30) != nil)
            for replica in replicas {
                let status = try replica.stop(signal: SIGTERM)
                #expect(status == 0, "exit status \(status): \(replica.output.suffix(3000))")
            }
        }
    }

    /// A zip of a generated skin `id` for app `demo` of `skinMegabytes` (made by `bench/pack/make-skin.py` at test
    /// time, never committed).
    static func largeSkinArchive(id: String, in folder: String) async throws -> [UInt8] {
        let generator = LiveryProcess.repository.appendingPathComponent("bench/pack/make-skin.py").path
        // Seconds on a quiet machine; past the default minute in a loaded run (seen in CI dry runs).
        let made = try await ExternalProcess.run(
            "python3", [generator, folder, String(skinMegabytes)], timeout: .seconds(300))
        try #require(made.status == 0, "\(made.transcript)")
        var files: [String: [UInt8]] = [:]
        let root = URL(fileURLWithPath: folder)
        guard let walk = FileManager.default.enumerator(atPath: folder) else {
            throw E2EError(description: "cannot list \(folder)")
        }
        while let path = walk.nextObject() as? String {
            var isFolder: ObjCBool = false
            let url = root.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            files[path] = [UInt8](try Data(contentsOf: url))
        }
        files["skin.json"] = Array(#"{"id": "\#(id)", "title": "Large", "app": "demo"}"#.utf8)
        return try AdminWorkspace.zip(files)
    }

    /// A release request answered on another thread: whether it has ended, and its status.
    final class Release: @unchecked Sendable {
        // Invariant: every stored property is read and written under `lock`.
        private let lock = NSLock()
        private var finished = false
        private var answered = 0
        var isFinished: Bool { lock.withLock { finished } }
        var status: Int { lock.withLock { answered } }
        func finish(status: Int) { lock.withLock { (finished, answered) = (true, status) } }
    }
}
