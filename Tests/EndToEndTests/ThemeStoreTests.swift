import Foundation
import HTTPTestSupport
import LiveryCrypto
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The theme store against the real binary: themes released from the command line, listed for a client in order,
/// a theme's package and preview downloaded, `appearance=any` opened by Python's zipfile, the kill switch.
@Suite struct ThemeStoreTests {
    static let list = "/api/v1/themes?app=demo&platform=ios&appVersion=7.0.0"

    /// Checks a both-appearances package: CRCs, the light config.json and the dark config-dark.json.
    static let pythonCheck = #"""
        import json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        assert z.testzip() is None, "CRC mismatch"
        names = set(z.namelist())
        light = json.loads(z.read("config.json"))
        dark = json.loads(z.read("config-dark.json"))
        assert "home" in light and "home" in dark, (light, dark)
        print("ok", sorted(names))
        """#

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
    }

    @Test func twoThemesAndAHolidaySkinFromReleaseToDownload() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-themes-e2e")
        let zipPath = scratch.path + "/any.zip"
        let polledZipPath = scratch.path + "/polled-any.zip"
        let day = TestImages.png(width: 750, height: 1334)
        try await blocking {
            let (workspace, livery, env) = try AdminCLITests.servingEditor()
            defer { _ = try? livery.stop(signal: SIGTERM) }
            for id in ["aurora", "bamboo", "xmas"] {
                var files = AdminWorkspace.tinySkin(id: id, marker: id)
                if id == "bamboo" {
                    files["skin.json"] = Array(
                        #"{"id":"bamboo","title":"Bamboo","app":"demo","description":"Green","preview":"previews/day.png"}"#
                            .utf8)
                    files["previews/day.png"] = day
                }
                let folder = workspace.root + "/work/" + id
                try AdminWorkspace.write(files, into: folder)
                let push = try LiveryProcess.run(["push", folder], environment: env)
                #expect(push.status == 0, "\(push.output)")
            }
            for (id, order) in [("aurora", "2"), ("bamboo", "1")] {
                let release = try LiveryProcess.run(
                    ["release", id, "--kind", "theme", "--order", order], environment: env)
                #expect(release.status == 0, "\(release.output)")
            }
            let holiday = try LiveryProcess.run(
                ["release", "xmas", "--from", "2000-01-01T00:00:00Z", "--until", "2100-01-01T00:00:00Z"],
                environment: env)
            #expect(holiday.status == 0, "\(holiday.output)")

            // The client's list: in order, themes only; the poll: the holiday skin only.
            let client = try TestClient(port: livery.port)
            let listed = try #require(try Self.object(client.get(Self.list))["themes"] as? [[String: Any]])
            #expect(listed.map { $0["id"] as? String } == ["bamboo", "aurora"])
            #expect(try Self.object(client.get(AdminCLITests.poll))["skinId"] as? String == "xmas")

            // A theme's package and preview.
            let bamboo = try #require(listed.first)
            #expect(bamboo["title"] as? String == "Bamboo" && bamboo["description"] as? String == "Green")
            let package = try client.get(try #require(bamboo["packageUrl"] as? String))
            #expect(package.status == 200 && SHA256.hexHash(package.body) == bamboo["sha256"] as? String)
            let preview = try client.get(try #require(bamboo["previewUrl"] as? String))
            #expect(preview.status == 200 && preview.body == day && preview.header("Content-Type") == "image/png")
            #expect(preview.header("Cache-Control") == "public, max-age=31536000, immutable")

            // Both appearances in one download, for the theme the user picked.
            let both = try #require(
                try Self.object(client.get(Self.list + "&appearance=any&scale=2"))["themes"] as? [[String: Any]])
            #expect(both.first?["sign"] as? String != bamboo["sign"] as? String)
            let anyPackage = try client.get(try #require(both.first?["packageUrl"] as? String))
            #expect(anyPackage.status == 200)
            try Data(anyPackage.body).write(to: URL(fileURLWithPath: zipPath))
            // And for the holiday skin the poll answers.
            let polled = try Self.object(client.get(AdminCLITests.poll + "&appearance=any&scale=1"))
            let light = try Self.object(client.get(AdminCLITests.poll + "&scale=1"))
            #expect(
                polled["skinId"] as? String == "xmas" && polled["skinSign"] as? String != light["skinSign"] as? String)
            let polledPackage = try client.get(try #require(polled["packageUrl"] as? String))
            #expect(polledPackage.status == 200 && SHA256.hexHash(polledPackage.body) == polled["sha256"] as? String)
            try Data(polledPackage.body).write(to: URL(fileURLWithPath: polledZipPath))

            // What ops see for that client.
            let themes = try LiveryProcess.run(
                ["themes", "--app", "demo", "--platform", "ios", "--app-version", "7.0.0"], environment: env)
            #expect(themes.status == 0, "\(themes.output)")
            #expect(
                themes.output.contains("2 theme(s) listed") && themes.output.contains("1. bamboo \"Bamboo\""),
                "\(themes.output)")
            #expect(themes.output.contains("aurora v1: listed"), "\(themes.output)")
            // `preview` shows the themes beside the skins, each with its outcome, as it does for skins.
            let previewed = try LiveryProcess.run(
                ["preview", "--app", "demo", "--platform", "ios", "--app-version", "7.0.0"], environment: env)
            #expect(previewed.status == 0, "\(previewed.output)")
            #expect(previewed.output.contains("xmas v1: selected"), "\(previewed.output)")
            #expect(
                previewed.output.contains("themes:\n  bamboo v1: listed\n  aurora v1: listed"), "\(previewed.output)")
            let android = try LiveryProcess.run(
                ["themes", "--app", "demo", "--platform", "android", "--app-version", "1.0"], environment: env)
            #expect(android.status == 0 && android.output.contains("2 theme(s) listed"), "\(android.output)")

            // The kill switch empties the list.
            let on = try LiveryProcess.run(["killswitch", "on", "--reason", "drill"], environment: env)
            #expect(on.status == 0, "\(on.output)")
            let killed = try #require(try Self.object(client.get(Self.list))["themes"] as? [Any])
            #expect(killed.isEmpty)
            let off = try LiveryProcess.run(
                ["themes", "--app", "demo", "--platform", "ios", "--app-version", "7.0.0"], environment: env)
            #expect(
                off.output.contains("0 theme(s) listed")
                    && off.output.contains("aurora v1: excluded (kill switch is on)"), "\(off.output)")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
        for path in [zipPath, polledZipPath] {
            let python = try await ExternalProcess.run("python3", ["-c", Self.pythonCheck, path])
            #expect(python.status == 0, "\(python.transcript)")
            let unzip = try await ExternalProcess.run("unzip", ["-t", path])
            #expect(unzip.status == 0, "\(unzip.transcript)")
        }
    }
}
