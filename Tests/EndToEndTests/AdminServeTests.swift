import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery serve` with the admin API: token reloads by SIGHUP and by file change, and the disabled API.
@Suite struct AdminServeTests {
    static let arguments = ["serve", "--host", "127.0.0.1", "--port", "0"]

    /// Waits (bounded) until `condition` holds, checking every 20 ms and sleeping the thread in between: the form for
    /// synchronous code, such as a `blocking {}` closure (async code awaits `eventually(within:)` of TestSupport).
    static func eventually(seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    @Test func sighupReloadsTheTokensFile() async throws {
        try await blocking {
            let workspace = try AdminWorkspace()
            let livery = try LiveryProcess.start(Self.arguments, environment: workspace.environment)
            let viewer = AdminCall(port: livery.port, token: AdminWorkspace.viewerToken)
            try viewer.waitUntilReady()
            #expect(try viewer.send("GET", "/admin/v1/skins").status == 200)

            // Revoke the viewer and add a new editor, then SIGHUP before any request can notice the change.
            try AdminWorkspace.writeTokens(
                [("ops", "editor", AdminWorkspace.editorToken), ("night", "editor", "livery_e2e_new_token")],
                to: workspace.tokens)
            kill(livery.pid, SIGHUP)
            #expect(Self.eventually { livery.output.contains("reason=SIGHUP") }, "SIGHUP reloads: \(livery.output)")
            #expect(try viewer.send("GET", "/admin/v1/skins").status == 401)
            #expect(
                try AdminCall(port: livery.port, token: "livery_e2e_new_token").send("GET", "/admin/v1/skins").status
                    == 200)
            #expect(try livery.stop(signal: SIGTERM) == 0, "SIGHUP does not stop the server")
            #expect(
                !livery.output.contains(AdminWorkspace.viewerToken) && !livery.output.contains("livery_e2e_new_token"))
        }
    }

    @Test func aChangedTokensFileIsPickedUpWithinSeconds() async throws {
        try await blocking {
            let workspace = try AdminWorkspace()
            let livery = try LiveryProcess.start(Self.arguments, environment: workspace.environment)
            let viewer = AdminCall(port: livery.port, token: AdminWorkspace.viewerToken)
            try viewer.waitUntilReady()
            #expect(try viewer.send("GET", "/admin/v1/skins").status == 200)
            try AdminWorkspace.writeTokens([("ops", "editor", AdminWorkspace.editorToken)], to: workspace.tokens)
            // Checked at most once a second: within a few seconds the revoked token stops working.
            #expect(try Self.eventually(seconds: 5) { try viewer.send("GET", "/admin/v1/skins").status == 401 })
            #expect(Self.eventually { livery.output.contains("reason=file changed") }, "\(livery.output)")
            #expect(try AdminCall(port: livery.port).send("GET", "/admin/v1/skins").status == 200)
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    @Test func withoutATokensFileTheAdminAPIAnswers404AndTheLogSaysSoOnce() async throws {
        try await blocking {
            let livery = try LiveryProcess.start(Self.arguments)
            let call = AdminCall(port: livery.port)
            try call.waitUntilReady()
            #expect(try call.send("GET", "/admin/v1/skins").status == 404)
            #expect(
                try call.send("POST", "/admin/v1/skins", body: [1, 2, 3], contentType: "application/zip").status == 404)
            #expect(try livery.stop(signal: SIGTERM) == 0)
            #expect(livery.output.components(separatedBy: "admin API disabled").count == 2, "\(livery.output)")
        }
    }

    @Test func aMissingTokensFileStopsTheStartNamingTheFlag() async throws {
        try await blocking {
            let result = try LiveryProcess.run(Self.arguments + ["--tokens-file", "/nonexistent/tokens"])
            #expect(result.status == 2)
            #expect(result.output.contains("--tokens-file"))
        }
    }
}
