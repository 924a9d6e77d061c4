import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery store verify` and `serve --scrub-interval` on the real binary, beside a live server whose stored blob,
/// version record and built package are damaged on disk (issue 22, faults 6).
@Suite struct StoreVerifyTests {
    /// What the damage below broke, to find in the reports.
    struct Damaged {
        let skin: String
        let version: Int
        let path: String
        let package: String
        let packageSkin: String
        let digestSkin: String
    }

    /// Flips one byte of a released skin's file blob and of one built package, and changes one version digest in
    /// `state.json`, under `data` (the server keeps running: none of it is re-read).
    static func damage(data: String) throws -> Damaged {
        let record = try damageRecord(data: data)
        return try damageFiles(data: data, record: record)
    }

    /// The live skins of `state.json` under `data`, and the whole record.
    static func liveSkins(data: String) throws -> (state: [String: Any], skins: [[String: Any]], live: [Int]) {
        let statePath = data + "/store/state.json"
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as? [String: Any])
        let skins = try #require(state["skins"] as? [[String: Any]])
        let live = skins.indices.filter { !(skins[$0]["deleted"] as? Bool ?? true) }
        try #require(live.count >= 2, "the sample skins give at least two live skins")
        return (state, skins, live)
    }

    /// Changes the first version digest of the second live skin in `state.json`; returns that skin's id.
    static func damageRecord(data: String) throws -> String {
        var (state, skins, live) = try liveSkins(data: data)
        var second = skins[live[1]]
        var versions = try #require(second["versions"] as? [[String: Any]])
        versions[0]["digest"] = String(repeating: "0", count: 64)
        second["versions"] = versions
        skins[live[1]] = second
        state["skins"] = skins
        try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys])
            .write(to: URL(fileURLWithPath: data + "/store/state.json"))
        return try #require(second["id"] as? String)
    }

    /// Flips one byte of the first live skin's file blob and of one built package; `record` is the skin whose
    /// record `damageRecord` changed.
    static func damageFiles(data: String, record digestSkin: String) throws -> Damaged {
        let (_, skins, live) = try liveSkins(data: data)
        // The blob: a file of the first live skin's first version that no other version shares.
        let first = skins[live[0]]
        let firstVersion = try #require((first["versions"] as? [[String: Any]])?.first)
        let allDigests = skins.flatMap {
            ($0["versions"] as? [[String: Any]] ?? []).flatMap {
                ($0["files"] as? [[String: Any]] ?? []).compactMap { $0["sha256"] as? String }
            }
        }
        let file = try #require(
            (firstVersion["files"] as? [[String: Any]])?.first { file in
                let digest = file["sha256"] as? String ?? ""
                return allDigests.filter { $0 == digest }.count == 1
            })
        let digest = try #require(file["sha256"] as? String)
        try flipByte(in: data + "/store/blobs/" + digest.prefix(2) + "/" + digest.dropFirst(2))

        // The package: the first built package with a build record.
        let packages = data + "/packages"
        let record = try #require(
            try FileManager.default.contentsOfDirectory(atPath: packages).sorted().first { $0.hasSuffix(".zip.sha256") }
        )
        let package = String(record.dropLast(".sha256".count))
        try flipByte(in: packages + "/" + package)
        let fields = try String(contentsOfFile: packages + "/" + record, encoding: .utf8)
            .trimmingCharacters(in: .newlines).split(separator: " ")
        try #require(fields.count == 5, "the build record names the version it was built from: \(fields)")
        return Damaged(
            skin: try #require(first["id"] as? String), version: try #require(firstVersion["number"] as? Int),
            path: try #require(file["path"] as? String), package: package, packageSkin: "\(fields[3]) \(fields[4])",
            digestSkin: digestSkin)
    }

    static func flipByte(in path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(!bytes.isEmpty)
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func verifyBesideALiveServerNamesEachDamagedBlobVersionAndPackageAndExitsOne() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-store-verify")
        let data = scratch.path("data")
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"],
                environment: ["LIVERY_DATA_DIR": data])
            try livery.waitUntilReady()

            let clean = try LiveryProcess.runSeparately(["store", "verify", "--data-dir", data])
            #expect(clean.status == 0, "\(clean.output)")
            #expect(clean.standardOutput.isEmpty)
            #expect(clean.standardError.contains("packages: clean"), "\(clean.standardError)")

            let damaged = try Self.damage(data: data)
            let found = try LiveryProcess.runSeparately(["store", "verify", "--data-dir", data])
            #expect(found.status == 1, "\(found.output)")
            let lines = found.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { $0.hasPrefix("damaged ") }, "\(lines)")
            #expect(
                lines.contains { $0.hasPrefix("damaged blob \(damaged.skin) v\(damaged.version) \(damaged.path): ") },
                "\(lines)")
            #expect(
                lines.contains { $0.hasPrefix("damaged version \(damaged.digestSkin) v1 state.json: ") }, "\(lines)")
            #expect(
                lines.contains { $0.hasPrefix("damaged package \(damaged.packageSkin) \(damaged.package): ") },
                "\(lines)")
            #expect(lines.count == 3, "\(lines)")

            let json = try LiveryProcess.runSeparately(["store", "verify", "--data-dir", data, "--json"])
            #expect(json.status == 1)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect(object["clean"] as? Bool == false)
            let kinds = (object["damaged"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }.sorted()
            #expect(kinds == ["blob", "package", "version"])
            #expect(livery.isRunning, "verify ran beside the server without stopping it")
        }
    }

    @Test func verifyExitsTwoForAFolderWithoutAStoreOrAnUnreachableStore() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-store-verify")
        try await blocking {
            let missing = try LiveryProcess.runSeparately(["store", "verify", "--data-dir", scratch.path("nothing")])
            #expect(missing.status == 2, "\(missing.output)")
            #expect(missing.standardError.contains(scratch.path("nothing")), "\(missing.standardError)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("nothing")), "verify creates nothing")

            let unreachable = try LiveryProcess.runSeparately([
                "store", "verify", "--store",
                "postgresql:///livery?host=\(scratch.path("no-socket-here"))&connect_timeout=2"
            ])
            #expect(unreachable.status == 2, "\(unreachable.output)")
        }
    }

    @Test func serveScrubsEveryIntervalLoggingAndCountingWhatItFinds() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-store-scrub")
        let data = scratch.path("data")
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "info", "--scrub-interval", "0.2"],
                environment: ["LIVERY_DATA_DIR": data])
            try livery.waitUntilReady()
            try Self.waitFor(livery, "scrub found no damage")
            // The record first, until a scrub has seen it: the version the damaged blob leaves out is then marked in
            // the store, and that change writes state.json back whole as the server holds it.
            let digestSkin = try Self.damageRecord(data: data)
            try Self.waitFor(livery, "damaged version \(digestSkin) v1 state.json: ")
            let damaged = try Self.damageFiles(data: data, record: digestSkin)
            try Self.waitFor(livery, "damaged blob \(damaged.skin) v\(damaged.version) \(damaged.path): ")
            try Self.waitFor(livery, "damaged package \(damaged.packageSkin) \(damaged.package): ")
            // A scrub that was already running when the files were damaged may have seen only part of it; the next
            // one (every 0.2 s) sees all of it.
            let expected = [#"livery_scrub_damaged{kind="blob"} 1"#, #"livery_scrub_damaged{kind="package"} 1"#]
            var metrics = ""
            for _ in 0..<50 {
                metrics = String(decoding: try TestClient(port: livery.port).get("/metrics").body, as: UTF8.self)
                if expected.allSatisfy(metrics.contains) { break }
                usleep(200_000)
            }
            #expect(metrics.contains(#"livery_scrub_damaged{kind="blob"} 1"#), "\(metrics)")
            #expect(
                try PrometheusText(metrics).count("livery_scrub_damage_found_total", ["kind": "version"]) >= 1,
                "\(metrics)")
            #expect(metrics.contains(#"livery_scrub_damaged{kind="package"} 1"#), "\(metrics)")
            #expect(try TestClient(port: livery.port).get("/readyz").status == 200, "damage is reported, not fatal")
        }
    }

    /// A workspace whose skins folder holds two tiny skins released for app `demo`: `top` (priority 9, what a poll
    /// gets) over `base` (priority 1, what the rules fall back to without `top`).
    static func twoReleasedSkins() throws -> AdminWorkspace {
        let workspace = try AdminWorkspace()
        for (id, priority) in [("top", 9), ("base", 1)] {
            try AdminWorkspace.write(
                AdminWorkspace.tinySkin(
                    id: id, marker: id, release: #"{"priority": \#(priority), \#(Replicas.window)}"#),
                into: workspace.skins + "/" + id)
        }
        return workspace
    }

    /// The SHA-256 of `top` v1's `config.json`, as the admin API lists it.
    static func topConfigDigest(_ admin: AdminCall) throws -> String {
        let version = try admin.json("GET", "/admin/v1/skins/top/versions/1")
        let files = try #require(version.object["files"] as? [[String: Any]], "\(version.object)")
        return try #require(files.first { $0["path"] as? String == "config.json" }?["sha256"] as? String)
    }

    /// Expects `port` to report `top` v1 damaged by the scrub, as damage found at load is reported: `/readyz` (still
    /// 200), the gauge, the skin's admin answer, and 500 `version_damaged` for its reads and its release.
    static func expectTopReportedDamaged(port: Int) throws {
        let ready = try TestClient(port: port).get("/readyz")
        #expect(ready.status == 200, "\(ready.text)")
        #expect(
            ready.text.contains(
                #""damaged":[{"skin":"top","version":1,"reason":"the scrub found config.json damaged: "#),
            "\(ready.text)")
        let metrics = try PrometheusText(try TestClient(port: port).get("/metrics").text)
        #expect(try metrics.value("livery_store_damaged_versions") == 1)
        let admin = AdminCall(port: port)
        let skin = try admin.json("GET", "/admin/v1/skins/top")
        #expect((skin.object["damaged"] as? [[String: Any]])?.first?["version"] as? Int == 1, "\(skin.object)")
        for (method, target, body) in [
            ("GET", "/admin/v1/skins/top/versions/1", nil),
            ("GET", "/admin/v1/skins/top/versions/1/config.json", nil),
            ("PUT", "/admin/v1/skins/top/release", #"{"version": 1, \#(Replicas.window)}"#)
        ] {
            let refused = try admin.json(method, target, body: body)
            #expect(
                refused.status == 500
                    && (refused.object["error"] as? [String: Any])?["code"] as? String == "version_damaged",
                "\(method) \(target): \(refused.status) \(refused.object)")
        }
    }

    @Test func aVersionTheScrubFindsDamagedIsLeftOutAsDamageFoundAtLoadUntilItIsRestored() async throws {
        let workspace = try Self.twoReleasedSkins()
        let scrubbing = [
            "serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "info", "--scrub-interval", "0.2"
        ]
        try await blocking {
            let livery = try LiveryProcess.start(scrubbing, environment: workspace.environment)
            try livery.waitUntilReady()
            #expect(Replicas.polledSkin(port: livery.port) == "top")
            let digest = try Self.topConfigDigest(AdminCall(port: livery.port))
            let blob = workspace.data + "/store/blobs/" + digest.prefix(2) + "/" + digest.dropFirst(2)
            try Self.flipByte(in: blob)

            // After a scrub, polls get what the rules give without it.
            #expect(
                Replicas.timeUntilServed("base", port: livery.port, within: 30) != nil, "\(livery.output.suffix(3000))")
            try Self.expectTopReportedDamaged(port: livery.port)
            try Self.waitFor(livery, "stored version damaged: left out")
            #expect(try livery.stop(signal: SIGTERM) == 0)

            // The mark is kept in the store: a restart without scrubbing reports it as the scrub said.
            let restarted = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--scrub-interval", "0"],
                environment: workspace.environment)
            try restarted.waitUntilReady()
            #expect(Replicas.polledSkin(port: restarted.port) == "base")
            try Self.expectTopReportedDamaged(port: restarted.port)
            #expect(try restarted.stop(signal: SIGTERM) == 0)

            // Restored (the byte flipped back): the next scrub clears the mark and the version is served again.
            try Self.flipByte(in: blob)
            let restored = try LiveryProcess.start(scrubbing, environment: workspace.environment)
            try restored.waitUntilReady()
            #expect(
                Replicas.timeUntilServed("top", port: restored.port, within: 30) != nil,
                "\(restored.output.suffix(3000))")
            let ready = try TestClient(port: restored.port).get("/readyz")
            #expect(ready.status == 200 && !ready.text.contains("damaged"), "\(ready.text)")
            #expect(
                try PrometheusText(try TestClient(port: restored.port).get("/metrics").text)
                    .value("livery_store_damaged_versions") == 0)
            #expect(try restored.stop(signal: SIGTERM) == 0)
        }
    }

    /// Waits (bounded, 20 s) until the server's output holds `text`.
    static func waitFor(_ livery: LiveryProcess, _ text: String) throws {
        let deadline = Date().addingTimeInterval(20)
        while !livery.output.contains(text) {
            guard Date() < deadline else {
                throw E2EError(description: "no '\(text)' in: \(livery.output.suffix(3000))")
            }
            usleep(20_000)
        }
    }
}
