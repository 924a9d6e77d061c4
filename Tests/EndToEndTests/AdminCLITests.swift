import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The ops commands (`token create`, `push`, `release`, `rollback`, `killswitch`, `preview`) against a real server.
@Suite struct AdminCLITests {
    static let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.0.0"

    /// The skinId a fresh poll gets ("" when none).
    static func polledSkin(_ port: Int) throws -> String {
        let response = try AdminCall(port: port, token: nil).send("GET", poll)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return object?["skinId"] as? String ?? ""
    }

    /// A ready server on a fresh workspace, and the environment that makes the ops commands its editor.
    static func servingEditor() throws -> (workspace: AdminWorkspace, livery: LiveryProcess, env: [String: String]) {
        let workspace = try AdminWorkspace()
        let livery = try LiveryProcess.start(
            ["serve", "--host", "127.0.0.1", "--port", "0"], environment: workspace.environment)
        try AdminCall(port: livery.port).waitUntilReady()
        return (
            workspace, livery,
            ["LIVERY_TOKEN": AdminWorkspace.editorToken, "LIVERY_SERVER": "http://127.0.0.1:\(livery.port)"]
        )
    }

    /// A release written once for every year from the command line (issue 27): `--every` with negative offsets,
    /// `--skip` and `--occurrence` for single years, and `livery occurrences` listing them one line per year.
    @Test func aRecurringReleaseIsSetAndListedFromTheCommandLine() async throws {
        try await blocking {
            let (workspace, livery, env) = try Self.servingEditor()
            let folder = workspace.root + "/work/tiny"
            try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "tiny", marker: "1"), into: folder)
            #expect(try LiveryProcess.run(["push", folder], environment: env).status == 0)
            // Open nearly all year: from 182 days before 1 January to the end of 182 days after it (2092 is a leap year).
            let release = try LiveryProcess.run(
                [
                    "release", "tiny", "--every", "gregorian:1-1", "--from-offset", "-182d", "--to-offset", "182d",
                    "--time-zone", "UTC",
                    "--skip", "2090"
                ], environment: env)
            #expect(release.status == 0, "\(release.output)")
            #expect(release.output.contains("recurs:    gregorian:1-1 from -182d to 182d (UTC)"), "\(release.output)")
            let moved = try LiveryProcess.run(
                ["release", "tiny", "--occurrence", "2091=2091-01-01T00:00:00Z/2091-01-02T00:00:00Z"], environment: env)
            #expect(moved.status == 0, "\(moved.output)")
            let listed = try LiveryProcess.run(
                ["occurrences", "tiny", "--at", "2089-12-01T00:00:00Z", "--count", "3"], environment: env)
            #expect(listed.status == 0, "\(listed.output)")
            #expect(
                listed.output.contains(
                    """
                    2090 2089-07-03T00:00:00Z 2090-07-02T23:59:59Z skip
                    2091 2091-01-01T00:00:00Z 2091-01-02T00:00:00Z override
                    2092 2091-07-03T00:00:00Z 2092-07-01T23:59:59Z
                    """), "\(listed.output)")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func theRunbookWorksFromTheCommandLine() async throws {
        try await blocking {
            let workspace = try AdminWorkspace()
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: workspace.environment)
            try AdminCall(port: livery.port).waitUntilReady()
            let server = "http://127.0.0.1:\(livery.port)"

            // A new token: printed once, its line added to the tokens file, picked up on SIGHUP.
            let created = try LiveryProcess.run(["token", "create", "night-ops", "--role", "editor"])
            #expect(created.status == 0)
            let lines = created.output.split(separator: "\n").map(String.init)
            let token = try #require(lines.first { $0.hasPrefix("livery_") })
            let line = try #require(lines.first { $0.hasPrefix("night-ops editor ") })
            #expect(!line.contains(token))
            let existing = try String(contentsOfFile: workspace.tokens, encoding: .utf8)
            try Data((existing + line + "\n").utf8).write(to: URL(fileURLWithPath: workspace.tokens), options: .atomic)
            kill(livery.pid, SIGHUP)
            #expect(AdminServeTests.eventually { livery.output.contains("reason=SIGHUP") })
            let env = ["LIVERY_TOKEN": token, "LIVERY_SERVER": server]

            // Upload two versions.
            let folder = workspace.root + "/work/tiny"
            try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "tiny", marker: "1"), into: folder)
            try Data([0]).write(to: URL(fileURLWithPath: folder + "/.DS_Store"))
            let push = try LiveryProcess.run(["push", folder], environment: env)
            #expect(push.status == 0, "\(push.output)")
            #expect(push.output.contains("tiny: stored as version 1"))
            #expect(push.output.contains("@3x-light"))
            #expect(push.output.contains("left out hidden .DS_Store"))

            // Release with a rollout, then raise the rollout alone.
            let release = try LiveryProcess.run(
                [
                    "release", "tiny", "--version", "1", "--from", "2000-01-01T00:00:00Z", "--until",
                    "2100-01-01T00:00:00Z",
                    "--rollout", "30", "--priority", "5", "--platforms", "ios,android"
                ], environment: env)
            #expect(release.status == 0, "\(release.output)")
            #expect(release.output.contains("tiny: version 1 released") && release.output.contains("rollout:   30%"))
            let raise = try LiveryProcess.run(["release", "tiny", "--rollout", "100"], environment: env)
            #expect(raise.status == 0, "\(raise.output)")
            #expect(raise.output.contains("rollout:   100%") && raise.output.contains("priority:  5"))
            #expect(try Self.polledSkin(livery.port) == "tiny")

            let preview = try LiveryProcess.run(
                ["preview", "--app", "demo", "--platform", "ios", "--app-version", "7.0.0"], environment: env)
            #expect(preview.status == 0, "\(preview.output)")
            #expect(preview.output.contains("tiny v1: selected"))
            let previewAndroid = try LiveryProcess.run(
                ["preview", "--app", "demo", "--platform", "harmony", "--app-version", "7.0.0"], environment: env)
            #expect(previewAndroid.output.contains("tiny v1: excluded (platform not targeted)"))

            // The kill switch, on and off.
            let on = try LiveryProcess.run(["killswitch", "on", "--reason", "drill"], environment: env)
            #expect(on.status == 0 && on.output.contains("global: ON"), "\(on.output)")
            #expect(try Self.polledSkin(livery.port) == "")
            let status = try LiveryProcess.run(["killswitch", "status"], environment: env)
            #expect(status.output.contains("drill") && status.output.contains("night-ops"))
            #expect(try LiveryProcess.run(["killswitch", "off"], environment: env).status == 0)
            #expect(try Self.polledSkin(livery.port) == "tiny")

            // A second version, released, then rolled back.
            try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "tiny", marker: "2"), into: folder)
            #expect(try LiveryProcess.run(["push", folder], environment: env).output.contains("stored as version 2"))
            // A retried push stores nothing and says so.
            let retried = try LiveryProcess.run(["push", folder], environment: env)
            #expect(
                retried.status == 0 && retried.output.contains("unchanged: version 2 already holds these files"),
                "\(retried.output)")
            #expect(
                try LiveryProcess.run(["release", "tiny", "--version", "2"], environment: env).output.contains(
                    "version 2 released"))
            let rollback = try LiveryProcess.run(["rollback", "tiny"], environment: env)
            #expect(rollback.status == 0 && rollback.output.contains("version 1 released"), "\(rollback.output)")

            // The audit names the new token.
            let audit = try AdminCall(port: livery.port).json("GET", "/admin/v1/audit?limit=100").object
            let actors = Set((audit["entries"] as? [[String: Any]])?.compactMap { $0["actor"] as? String } ?? [])
            #expect(actors == ["night-ops"])
            #expect(try livery.stop(signal: SIGTERM) == 0)
            #expect(!livery.output.contains(token), "the token is never logged")
        }
    }

    @Test func failuresNameTheProblemAndExitWithTheDocumentedStatus() async throws {
        try await blocking {
            let workspace = try AdminWorkspace()
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: workspace.environment)
            try AdminCall(port: livery.port).waitUntilReady()
            let server = "http://127.0.0.1:\(livery.port)"
            let editor = ["LIVERY_TOKEN": AdminWorkspace.editorToken, "LIVERY_SERVER": server]

            // An invalid skin: the whole report, exit 1.
            let broken = workspace.root + "/work/broken"
            var files = AdminWorkspace.tinySkin(id: "broken", marker: "x")
            files["config.json"] = Array(##"{"home": {"colors": {"color_background": "#GG0000"}}}"##.utf8)
            try AdminWorkspace.write(files, into: broken)
            let invalid = try LiveryProcess.run(["push", broken], environment: editor)
            #expect(invalid.status == 1)
            #expect(
                invalid.output.contains("INVALID")
                    && invalid.output.contains("[color.invalid] config.json#/home/colors/color_background"))
            #expect(invalid.output.contains("fix:"))

            // A symbolic link in the folder: refused locally, exit 2.
            let linked = workspace.root + "/work/linked"
            try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "linked", marker: "x"), into: linked)
            try FileManager.default.createSymbolicLink(atPath: linked + "/link.png", withDestinationPath: "/etc/passwd")
            let link = try LiveryProcess.run(["push", linked], environment: editor)
            #expect(link.status == 2 && link.output.contains("link.png: is a symbolic link"))

            // Token problems.
            let viewer = try LiveryProcess.run(
                ["push", broken], environment: ["LIVERY_TOKEN": AdminWorkspace.viewerToken, "LIVERY_SERVER": server])
            #expect(viewer.status == 1 && viewer.output.contains("HTTP 403") && viewer.output.contains("editor token"))
            let wrong = try LiveryProcess.run(
                ["killswitch", "status"], environment: ["LIVERY_TOKEN": "livery_nope", "LIVERY_SERVER": server])
            #expect(wrong.status == 1 && wrong.output.contains("HTTP 401") && wrong.output.contains("LIVERY_TOKEN"))
            let unset = try LiveryProcess.run(["killswitch", "status", "--server", server])
            #expect(unset.status == 2 && unset.output.contains("LIVERY_TOKEN is not set"))

            // Server-side refusals name the field.
            let unknown = try LiveryProcess.run(["release", "nope", "--rollout", "5"], environment: editor)
            #expect(
                unknown.status == 1 && unknown.output.contains("skin_not_found") && unknown.output.contains("field: id")
            )
            let badRollout = try LiveryProcess.run(["release", "nope", "--rollout", "500"], environment: editor)
            #expect(
                badRollout.status == 2 && badRollout.output.contains("--rollout must be 0-100"), "bad arguments exit 2")
            let missingArgument = try LiveryProcess.run(["release"], environment: editor)
            #expect(missingArgument.status == 2, "\(missingArgument.output)")
            let unknownOption = try LiveryProcess.run(["killswitch", "on", "--everywhere"], environment: editor)
            #expect(unknownOption.status == 2, "\(unknownOption.output)")
            let ftp = try LiveryProcess.run(
                ["killswitch", "status", "--server", "ftp://livery.example"], environment: editor)
            #expect(ftp.status == 2 && ftp.output.contains("expected http[s]://"), "\(ftp.output)")
            #expect(try livery.stop(signal: SIGTERM) == 0)

            // Nobody listening: exit 3.
            let gone = try LiveryProcess.run(["killswitch", "status"], environment: editor)
            #expect(gone.status == 3 && gone.output.contains("cannot connect"), "\(gone.output)")
        }
    }

    /// `livery release --kind theme --order N`: a theme needs no window, is shown with its kind and order, and is
    /// never what the poll answers.
    @Test func themesAreReleasedWithKindAndOrder() async throws {
        try await blocking {
            let (workspace, livery, env) = try Self.servingEditor()
            let folder = workspace.root + "/work/tiny"
            try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "tiny", marker: "1"), into: folder)
            #expect(try LiveryProcess.run(["push", folder], environment: env).status == 0)
            let theme = try LiveryProcess.run(["release", "tiny", "--kind", "theme", "--order", "2"], environment: env)
            #expect(theme.status == 0, "\(theme.output)")
            #expect(theme.output.contains("kind:      theme\n  order:     2\n  window:    none"), "\(theme.output)")
            #expect(try Self.polledSkin(livery.port) == "", "the poll never answers with a theme")
            let reordered = try LiveryProcess.run(["release", "tiny", "--order", "1"], environment: env)
            #expect(reordered.status == 0 && reordered.output.contains("order:     1"), "\(reordered.output)")
            let badKind = try LiveryProcess.run(["release", "tiny", "--kind", "seasonal"], environment: env)
            #expect(
                badKind.status == 2 && badKind.output.contains("--kind must be holiday or theme"), "\(badKind.output)")
            let holidayWithoutWindow = try LiveryProcess.run(["release", "tiny", "--kind", "holiday"], environment: env)
            #expect(
                holidayWithoutWindow.status == 1 && holidayWithoutWindow.output.contains("field: startsAt"),
                "\(holidayWithoutWindow.output)")
            let holiday = try LiveryProcess.run(
                [
                    "release", "tiny", "--kind", "holiday", "--order", "none", "--from", "2000-01-01T00:00:00Z",
                    "--until", "2100-01-01T00:00:00Z"
                ],
                environment: env)
            #expect(holiday.status == 0 && holiday.output.contains("kind:      holiday"), "\(holiday.output)")
            #expect(try Self.polledSkin(livery.port) == "tiny")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func opsCommandsRefuseWhatWouldSilentlyDoTheWrongThing() async throws {
        try await blocking {
            let (workspace, livery, env) = try Self.servingEditor()
            let folder = workspace.root + "/work/tiny"
            for marker in ["1", "2"] {
                try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "tiny", marker: marker), into: folder)
                #expect(try LiveryProcess.run(["push", folder], environment: env).status == 0)
            }
            let notReleased = try LiveryProcess.run(["release", "tiny", "--rollout", "30"], environment: env)
            #expect(
                notReleased.status == 1 && notReleased.output.contains("give --from and --until"),
                "\(notReleased.output)")
            let release = try LiveryProcess.run(
                [
                    "release", "tiny", "--version", "2", "--from", "2000-01-01T00:00:00Z", "--until",
                    "2100-01-01T00:00:00Z",
                    "--rollout", "30", "--priority", "5", "--platforms", "ios"
                ], environment: env)
            #expect(release.status == 0, "\(release.output)")
            #expect(try LiveryProcess.run(["rollback", "tiny"], environment: env).output.contains("version 1 released"))

            // After a rollback, a new window changes the window alone.
            let window = try LiveryProcess.run(
                ["release", "tiny", "--from", "2000-01-01T00:00:00Z", "--until", "2099-01-01T00:00:00Z"],
                environment: env)
            #expect(window.status == 0, "\(window.output)")
            #expect(window.output.contains("version 1 released") && window.output.contains("rollout:   30%"))
            #expect(window.output.contains("priority:  5") && window.output.contains("platforms: ios\n"))
            #expect(window.output.contains("until 2099-01-01T00:00:00Z"))

            // A whole replacement is explicit and says what it resets; the released version stays.
            let replace = try LiveryProcess.run(
                [
                    "release", "tiny", "--replace", "--from", "2000-01-01T00:00:00Z", "--until", "2099-01-01T00:00:00Z",
                    "--priority", "5"
                ], environment: env)
            #expect(replace.status == 0, "\(replace.output)")
            #expect(replace.output.contains("--replace resets") && replace.output.contains("--rollout → 100"))
            #expect(!replace.output.contains("--priority →"))
            #expect(replace.output.contains("version 1 released") && replace.output.contains("rollout:   100%"))
            let replaceWithoutWindow = try LiveryProcess.run(
                ["release", "tiny", "--replace", "--rollout", "5"], environment: env)
            #expect(replaceWithoutWindow.status == 2 && replaceWithoutWindow.output.contains("--from and --until"))

            // A window wholly in the past.
            let past = try LiveryProcess.run(
                ["release", "tiny", "--from", "2000-01-01T00:00:00Z", "--until", "2001-01-01T00:00:00Z"],
                environment: env)
            #expect(past.status == 1 && past.output.contains("field: endsAt"), "\(past.output)")

            // A typo in an app name, for the kill switch and the preview; --force for an app with no skins yet.
            let typo = try LiveryProcess.run(["killswitch", "on", "--app", "dmeo"], environment: env)
            #expect(
                typo.status == 1 && typo.output.contains("unknown_app") && typo.output.contains(#""demo""#),
                "\(typo.output)")
            #expect(try Self.polledSkin(livery.port) == "tiny")
            let forced = try LiveryProcess.run(["killswitch", "on", "--app", "next-app", "--force"], environment: env)
            #expect(forced.status == 0, "\(forced.output)")
            let preview = try LiveryProcess.run(
                ["preview", "--app", "dmeo", "--platform", "ios", "--app-version", "7.0.0"], environment: env)
            #expect(preview.status == 1 && preview.output.contains("unknown_app"), "\(preview.output)")
            let forcedPreview = try LiveryProcess.run(
                ["preview", "--app", "dmeo", "--platform", "ios", "--app-version", "7.0.0", "--force"], environment: env
            )
            #expect(forcedPreview.status == 0, "\(forcedPreview.output)")

            // The same skin id pushed for another app.
            try AdminWorkspace.write(AdminWorkspace.tinySkin(id: "tiny", marker: "3", app: "other"), into: folder)
            let mismatch = try LiveryProcess.run(["push", folder], environment: env)
            #expect(mismatch.status == 1 && mismatch.output.contains("app_mismatch"), "\(mismatch.output)")
            let moved = try LiveryProcess.run(["push", folder, "--force"], environment: env)
            #expect(moved.status == 0 && moved.output.contains("stored as version 3"), "\(moved.output)")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }
}
