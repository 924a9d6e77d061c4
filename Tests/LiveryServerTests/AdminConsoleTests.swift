import Foundation
import HTTPTestSupport
import LiveryConsole
import Testing

@testable import LiveryServer

/// The ops console at `/admin/` and the `whoami` endpoint it signs in with.
@Suite struct AdminConsoleTests {
    @Test func whoamiAnswersTheTokensNameAndRole() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let editor = try await harness.request("GET", "/admin/v1/whoami")
        #expect(editor.status == 200)
        #expect(editor.header("Cache-Control") == "no-store")
        #expect(try LiveryHarness.object(editor) as NSDictionary == ["name": "ops", "role": "editor"])
        // A role header sent by the client is replaced by the token's own.
        let viewer = try await harness.request(
            "GET", "/admin/v1/whoami", token: LiveryHarness.viewerToken,
            headers: [("X-Livery-Role", "editor"), ("X-Livery-Actor", "ops")])
        #expect(try LiveryHarness.object(viewer) as NSDictionary == ["name": "auditor", "role": "viewer"])
        let wrong = try await harness.request("GET", "/admin/v1/whoami", token: LiveryHarness.wrongToken)
        #expect(wrong.status == 401)
        #expect(try LiveryHarness.code(wrong) == "unauthorized Authorization")
        await harness.stop()
    }

    @Test func consoleIsServedAtAdminWithAStrictContentSecurityPolicy() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let page = try await harness.request("GET", "/admin/", token: nil)
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        // Everything the page loads is one of the embedded files, and each comes with the same headers.
        let html = page.text
        let referenced = ["colors.js", "console.js", "console.css"]
        for name in referenced {
            #expect(html.contains("\"\(name)\""), "index.html does not load \(name)")
        }
        var responses = [page]
        for name in referenced { responses.append(try await harness.request("GET", "/admin/" + name, token: nil)) }
        for response in responses {
            #expect(response.status == 200)
            let policy = try #require(response.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("script-src 'self'"))
            #expect(policy.contains("style-src 'self'"))
            #expect(policy.contains("img-src 'self' blob: data:"))
            #expect(policy.contains("connect-src 'self'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe"))
            #expect(response.header("X-Content-Type-Options") == "nosniff")
        }
        let script = try await harness.request("GET", "/admin/console.js", token: nil)
        #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(script.body == Array(try #require(ConsoleAssets.all.first { $0.name == "console.js" }).text.utf8))
        let bare = try await harness.request("GET", "/admin", token: nil)
        #expect(bare.status == 308)
        #expect(bare.header("Location") == "/admin/")
        #expect(try await harness.request("GET", "/admin/nothing.js", token: nil).status == 404)
        await harness.stop()
    }

    @Test func consoleIsOffWhenTheAdminAPIIsOff() async throws {
        let harness = try await LiveryHarness { $0.admin.tokensFile = nil }
        defer { harness.removeFiles() }
        for path in ["/admin/", "/admin", "/admin/console.js", "/admin/v1/whoami"] {
            #expect(try await harness.request("GET", path, token: nil).status == 404, "\(path)")
        }
        await harness.stop()
    }

    /// The page and its files carry no inline script or style (the policy would block them), and the script never
    /// turns server data into markup.
    @Test func consoleFilesHoldNoInlineCode() throws {
        let html = try #require(ConsoleAssets.all.first { $0.name == "index.html" }).text
        #expect(!html.contains("<style"))
        #expect(!html.contains("style="))
        #expect(
            html.components(separatedBy: "<script").count - 1 == html.components(separatedBy: "<script src=").count - 1)
        #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
        let script = try #require(ConsoleAssets.all.first { $0.name == "console.js" }).text
        for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
            #expect(!script.contains(forbidden), "console.js uses \(forbidden)")
        }
    }

    /// Every file of `www/` is served, byte for byte: a file added there but not to `ConsoleAssets.all` fails here.
    @Test func everyConsoleFileIsEmbeddedByteForByte() throws {
        let www = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/LiveryConsole/www")
        let names = try FileManager.default.contentsOfDirectory(atPath: www.path).sorted()
        #expect(ConsoleAssets.all.map(\.name) == names, "list every file of www/ in ConsoleAssets.all")
        for asset in ConsoleAssets.all {
            let source = try Data(contentsOf: www.appendingPathComponent(asset.name))
            #expect(asset.bytes == Array(source), "\(asset.name) differs from www/")
        }
    }
}
