import Foundation
import HTTPTestSupport
import LiveryCrypto
import TestSupport
import Testing

/// The app's whole flow against the real binary: poll, download, unzip with readers we did not write, re-skin.
@Suite struct AppFlowTests {
    /// A skins folder holding a copy of `sample` whose window is open now (real clock) for a day; removed when the
    /// value goes away.
    static func liveSkins(_ sample: String) throws -> ScratchDirectory {
        let skins = try ScratchDirectory(prefix: "livery-flow")
        let folder = try skins.copy(
            folder: LiveryProcess.repository.appendingPathComponent("skins/\(sample)").path, to: sample)
        let manifestURL = URL(fileURLWithPath: folder + "/skin.json")
        guard var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any]
        else {
            throw E2EError(description: "skin.json is not an object")
        }
        let formatter = ISO8601DateFormatter()
        manifest["release"] = [
            "startsAt": formatter.string(from: Date().addingTimeInterval(-3600)),
            "endsAt": formatter.string(from: Date().addingTimeInterval(86400)), "platforms": ["ios", "android"]
        ]
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        return skins
    }

    /// Runs a Python check on the downloaded zip: CRCs (testzip), config.json parses, every referenced file is in.
    static let pythonCheck = #"""
        import json, os, re, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        assert z.testzip() is None, "CRC mismatch"
        names = set(z.namelist())
        config = json.loads(z.read("config.json"))
        assert "dark" not in config
        def stem(name):
            base, _ = os.path.splitext(name)
            return re.sub(r"@[123]x$", "", base)
        stems = {stem(n) for n in names}
        refs = []
        for module in config.values():
            for section in ("images", "resources"):
                for value in module.get(section, {}).values():
                    if isinstance(value, dict):
                        value = value.get("name") or value.get("file") or value.get("path")
                    if isinstance(value, str) and not value.startswith("https://") and not re.fullmatch(r"(#|0x)?[0-9A-Fa-f]{3,8}( [0-9.]+)?|rgba<.*>|hex<.*>", value):
                        refs.append(value[len("file://"):] if value.startswith("file://") else value)
        missing = [r for r in refs if r not in names and stem(r) not in stems]
        assert not missing, f"missing: {missing}"
        print(f"ok {len(names)} entries, {len(refs)} references")
        """#

    @Test(arguments: ["spring-festival-2027", "christmas-2026", "double-11-2026"])
    func pollDownloadUnzipAndReskin(sample: String) async throws {
        let scratch = try Self.liveSkins(sample)
        let skins = scratch.path
        let zipPath = skins + "/download.zip"
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--skins-dir", skins, "--log-level", "warning"])
            defer { _ = try? livery.stop(signal: SIGTERM) }
            try livery.waitUntilReady()

            let client = try TestClient(port: livery.port)
            let poll = try client.get("/api/v1/skin?app=demo&platform=android&appVersion=7.3.0&scale=2&deviceId=e2e")
            #expect(poll.status == 200)
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(poll.body)) as? [String: Any])
            #expect(answer["skinId"] as? String == sample)
            let url = try #require(answer["packageUrl"] as? String)
            let download = try client.get(url)
            #expect(download.status == 200)
            #expect(SHA256.hexHash(download.body) == answer["sha256"] as? String)

            try Data(download.body).write(to: URL(fileURLWithPath: zipPath))

            // The app already holds this sign: same answer, and a conditional request costs nothing.
            let again = try client.get(
                "/api/v1/skin?app=demo&platform=android&appVersion=7.3.0&scale=2&deviceId=e2e&sign=\(answer["skinSign"] as? String ?? "")"
            )
            #expect(again.body == poll.body)
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
        // The downloaded package, unzipped by readers we did not write.
        let python = try await ExternalProcess.run("python3", ["-c", Self.pythonCheck, zipPath])
        #expect(python.status == 0, "\(python.transcript)")
        let unzip = try await ExternalProcess.run("unzip", ["-t", zipPath])
        #expect(unzip.status == 0 && unzip.standardOutput.contains("No errors detected"), "\(unzip.transcript)")
    }

    @Test func invalidSkinsAreLoggedAndNotServed() async throws {
        let scratch = try Self.liveSkins("double-11-2026")
        let skins = scratch.path
        try FileManager.default.createDirectory(atPath: skins + "/broken", withIntermediateDirectories: true)
        try Data(
            #"{"id": "broken", "title": "Broken", "app": "demo", "release": {"startsAt": "2020-01-01T00:00:00Z", "endsAt": "2099-01-01T00:00:00Z", "priority": 99}}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: skins + "/broken/skin.json"))
        try Data(##"{"home": {"colors": {"bg": "#GGGGGG"}}}"##.utf8).write(
            to: URL(fileURLWithPath: skins + "/broken/config.json"))
        try await blocking {
            let livery = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0", "--skins-dir", skins])
            defer { _ = try? livery.stop(signal: SIGTERM) }
            try livery.waitUntilReady()
            let poll = try TestClient(port: livery.port).get("/api/v1/skin?app=demo&platform=ios&appVersion=7.3.0")
            #expect(String(decoding: poll.body, as: UTF8.self).contains("double-11-2026"), "the valid skin is served")
            // Logged before /readyz answered 200, but read from the pipe by another thread: waited for.
            #expect(AdminServeTests.eventually(seconds: 60) { livery.output.contains("skin not imported: invalid") })
            #expect(livery.output.contains("#GGGGGG"), "the log carries the validation report")
        }
    }
}
