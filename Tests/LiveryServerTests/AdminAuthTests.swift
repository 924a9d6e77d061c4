import Foundation
import HTTPTestSupport
import LiveryCrypto
import LiveryHTTP
import LiveryProtocol
import TestSupport
import Testing

@testable import LiveryServer

/// The tokens file, bearer parsing, and the auth matrix of every admin route.
@Suite struct TokenFileTests {
    static let digest = SHA256.hexHash(Array("secret".utf8))
    static let other = SHA256.hexHash(Array("other".utf8))

    @Test func parsesNamesRolesAndDigestsWithCommentsAndBlankLines() {
        let file = TokenFile.parse(
            """
            # who may change skins
            ops editor \(Self.digest)   # night shift

            ci\tviewer\t\(Self.digest.uppercased().replacingOccurrences(of: "A", with: "B"))
            """)
        #expect(file.problems.isEmpty)
        #expect(file.entries.map(\.name) == ["ops", "ci"])
        #expect(file.entries.map(\.role) == [.editor, .viewer])
        #expect(file.entries.first?.digest == SHA256.hash(Array("secret".utf8)))
    }

    @Test func reportsEachBadLineByNumberAndKeepsTheOthers() {
        let file = TokenFile.parse(
            """
            ops editor \(Self.digest)
            bad name editor \(Self.digest)
            x admin \(Self.digest)
            y viewer 1234
            o:ps editor \(String(repeating: "a", count: 64))
            twice viewer \(Self.digest)
            good viewer \(String(repeating: "b", count: 64))
            """)
        #expect(file.entries.map(\.name) == ["ops", "good"])
        #expect(file.problems.map(\.line) == [2, 3, 4, 5, 6])
        #expect(file.problems[0].reason.contains("NAME ROLE SHA256HEX"))
        #expect(file.problems[1].reason.contains("viewer or editor"))
        #expect(file.problems[2].reason.contains("64 hex"))
        #expect(file.problems[4].reason.contains("already listed"))
    }

    @Test func readsAFileWrittenOnWindowsWithCRLFLineEndingsAndALeadingComment() {
        let file = TokenFile.parse(
            "# name role sha256\r\nops editor \(Self.digest)\r\n\r\nci\tviewer\t\(Self.other.uppercased())  # ci\r\n")
        #expect(file.problems.isEmpty)
        #expect(file.entries.map(\.name) == ["ops", "ci"])
        #expect(file.entries.map(\.role) == [.editor, .viewer])
        #expect(file.entries.map { Hex.encode($0.digest) } == [Self.digest, Self.other])
    }

    @Test(arguments: [
        ("ops admin \(digest)\n", true), ("# every token revoked\r\n", true), ("ops editor 12ab\r\n", true),
        ("", false), (" \r\n\n", false), ("ops editor \(digest)\r\n", false)
    ])
    func aFileWithContentButNoUsableTokenIsLoggedAsAnError(text: String, isError: Bool) throws {
        let scratch = try ScratchDirectory(prefix: "livery-tokens")
        let path = scratch.path + "/tokens"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let capture = LogCapture()
        let store = try TokenStore(path: path, logger: capture.logger)
        store.reload(reason: "SIGHUP")
        let errors = capture.lines.filter { $0.hasPrefix("error tokens file is not empty but holds no usable token") }
        #expect(errors.count == (isError ? 2 : 0), "\(capture.lines)")
        #expect(errors.allSatisfy { $0.contains("tokens.file=\(path)") })
    }

    @Test func newTokensAreRandomAndTheirLineHoldsOnlyTheDigest() throws {
        let first = try TokenFile.newToken()
        let second = try TokenFile.newToken()
        #expect(first != second)
        #expect(first.hasPrefix("livery_") && first.count == 7 + 64)
        let line = TokenFile.line(name: "ops", role: .editor, token: first)
        #expect(!line.contains(first))
        let parsed = TokenFile.parse(line)
        #expect(parsed.entries.first?.digest == SHA256.hash(Array(first.utf8)))
    }

    @Test(arguments: [
        ("Bearer abc.DEF-_~+/123==", "abc.DEF-_~+/123=="), ("bearer  tok ", "tok"), ("BEARER x", "x")
    ])
    func acceptsBearerTokens(header: String, token: String) {
        #expect(TokenStore.bearerToken(header) == token)
    }

    @Test(arguments: [
        "Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer a b", "Bearer a=b", "Bearertoken", "Bearer tök"
    ])
    func refusesOtherAuthorizationValues(header: String) {
        #expect(TokenStore.bearerToken(header) == nil)
    }
}

/// One admin route for the auth matrix: how to call it, and what an editor gets (proof the handler ran).
struct AdminRoute: Sendable, CustomTestStringConvertible {
    let method: String
    let target: String
    let body: String
    let contentType: String?
    /// The status an editor gets on a harness holding skin `tiny` v1 (unreleased).
    let editorStatus: Int

    var isRead: Bool { method == "GET" }
    var testDescription: String { "\(method) \(target)" }

    static let tinyV2 = "zip:tiny-v2"

    static let all: [AdminRoute] = [
        AdminRoute(method: "GET", target: "/admin/v1/skins", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(method: "GET", target: "/admin/v1/skins/tiny", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(
            method: "GET", target: "/admin/v1/skins/tiny/versions", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(
            method: "GET", target: "/admin/v1/skins/tiny/versions/1", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(
            method: "GET", target: "/admin/v1/skins/tiny/versions/1/config.json", body: "", contentType: nil,
            editorStatus: 200),
        AdminRoute(
            method: "GET", target: "/admin/v1/skins/tiny/versions/1/files/skin.json", body: "", contentType: nil,
            editorStatus: 200),
        AdminRoute(method: "GET", target: "/admin/v1/killswitch", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(
            method: "GET", target: "/admin/v1/preview?app=demo&platform=ios&appVersion=7.0", body: "", contentType: nil,
            editorStatus: 200),
        AdminRoute(method: "GET", target: "/admin/v1/audit", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(
            method: "POST", target: "/admin/v1/skins", body: tinyV2, contentType: "application/zip", editorStatus: 201),
        AdminRoute(
            method: "PUT", target: "/admin/v1/skins/tiny/release",
            body: #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#,
            contentType: "application/json", editorStatus: 200),
        AdminRoute(
            method: "PATCH", target: "/admin/v1/skins/tiny/release", body: #"{"rollout": 5}"#,
            contentType: "application/json", editorStatus: 409),
        AdminRoute(
            method: "DELETE", target: "/admin/v1/skins/tiny/release", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(
            method: "POST", target: "/admin/v1/skins/tiny/rollback", body: "", contentType: nil, editorStatus: 409),
        AdminRoute(method: "DELETE", target: "/admin/v1/skins/tiny", body: "", contentType: nil, editorStatus: 200),
        AdminRoute(
            method: "PUT", target: "/admin/v1/killswitch", body: #"{"enabled": false, "reason": "matrix"}"#,
            contentType: "application/json", editorStatus: 200)
    ]
}

@Suite struct AdminAuthTests {
    /// Each route × {no token, wrong token, malformed header, viewer, editor}.
    @Test(arguments: AdminRoute.all)
    func everyRouteChecksTheTokenAndItsRole(route: AdminRoute) async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        let body =
            route.body == AdminRoute.tinyV2
            ? try SkinArchives.zip(SkinArchives.tiny(marker: "2")) : Array(route.body.utf8)
        func call(_ token: String?, headers: [(String, String)] = []) async throws -> TestResponse {
            try await harness.request(
                route.method, route.target, token: token, headers: headers, body: body, contentType: route.contentType)
        }
        let before = harness.mark()

        let missing = try await call(nil)
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate") == #"Bearer realm="livery""#)
        #expect(try LiveryHarness.code(missing) == "unauthorized Authorization")

        let wrong = try await call(LiveryHarness.wrongToken)
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate") == #"Bearer realm="livery", error="invalid_token""#)

        let malformed = try await harness.request(
            route.method, route.target, token: nil, headers: [("Authorization", "Basic b3BzOnNlY3JldA==")], body: body,
            contentType: route.contentType)
        #expect(malformed.status == 401)

        let viewer = try await call(LiveryHarness.viewerToken)
        if route.isRead {
            #expect(viewer.status == route.editorStatus, "\(viewer.text)")
        } else {
            #expect(viewer.status == 403)
            #expect(try LiveryHarness.code(viewer) == "forbidden Authorization")
        }
        #expect(harness.mark() == before, "refused requests change nothing")

        let editor = try await call(LiveryHarness.editorToken)
        #expect(editor.status == route.editorStatus, "\(editor.text)")
        await harness.stop()
    }

    @Test func revokingATokenInTheFileTakesEffectOnTheNextRequest() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        #expect(try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.viewerToken).status == 200)
        // Rewrite without the viewer line (a new inode via rename, as editors and config management do).
        let without = TokenFile.line(name: "ops", role: .editor, token: LiveryHarness.editorToken) + "\n"
        try Data(without.utf8).write(to: URL(fileURLWithPath: harness.tokensPath), options: .atomic)
        #expect(try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.viewerToken).status == 401)
        #expect(try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.editorToken).status == 200)

        // Appending in place (same inode) is seen too.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: harness.tokensPath))
        try handle.seekToEnd()
        try handle.write(
            contentsOf: Data((TokenFile.line(name: "late", role: .viewer, token: "livery_late_token") + "\n").utf8))
        try handle.close()
        #expect(try await harness.request("GET", "/admin/v1/skins", token: "livery_late_token").status == 200)

        // A deleted tokens file revokes everything.
        try FileManager.default.removeItem(atPath: harness.tokensPath)
        #expect(try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.editorToken).status == 401)
        await harness.stop()
    }

    @Test func withAPollIntervalOnlyAnExplicitReloadSeesTheChangeAtOnce() async throws {
        let harness = try await LiveryHarness { $0.admin.tokenCheckInterval = .seconds(3600) }
        defer { harness.removeFiles() }
        let none = "# everyone revoked\n"
        try Data(none.utf8).write(to: URL(fileURLWithPath: harness.tokensPath), options: .atomic)
        #expect(try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.viewerToken).status == 200)
        harness.service.reloadTokens(reason: "test")
        #expect(try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.viewerToken).status == 401)
        await harness.stop()
    }

    @Test(arguments: [LiveryHarness.editorToken, LiveryHarness.viewerToken, LiveryHarness.wrongToken])
    func twoAuthorizationHeadersAre400AndChangeNothing(second: String) async throws {
        // The parser refuses the second header, so this is tested over the socket.
        let harness = try await LiveryHarness(transport: .socket)
        defer { harness.removeFiles() }
        let before = harness.mark()
        let response = try await harness.send(
            "PUT", "/admin/v1/killswitch", json: #"{"enabled": true}"#, headers: [("Authorization", "Bearer \(second)")]
        )
        #expect(response.status == 400, "\(response.text)")
        #expect(response.text.contains("duplicate_authorization"))
        #expect(harness.mark() == before)
        await harness.stop()
    }

    @Test func changesAreRecordedUnderTheTokenNameWhateverHeadersTheClientSends() async throws {
        let harness = try await LiveryHarness()
        defer { harness.removeFiles() }
        let response = try await harness.upload(
            try SkinArchives.zip(SkinArchives.tiny()), headers: [("X-Livery-Actor", "mallory")])
        #expect(response.status == 201)
        #expect(harness.store.audit().last?.actor == "ops")
        await harness.stop()
    }

    @Test func tokensNeverReachTheLog() async throws {
        let capture = LogCapture()
        // Over a socket: the server's own request line is part of the log that must not leak.
        let harness = try await LiveryHarness(logger: capture.logger, transport: .socket)
        defer { harness.removeFiles() }
        try await harness.uploadTiny()
        _ = try await harness.request("GET", "/admin/v1/skins", token: LiveryHarness.wrongToken)
        _ = try await harness.request("PUT", "/admin/v1/killswitch", token: LiveryHarness.viewerToken)
        _ = try await harness.send("PUT", "/admin/v1/killswitch", json: #"{"enabled": true}"#)
        await harness.stop()
        let lines = capture.lines
        #expect(lines.contains { $0.contains("admin request refused") })
        for secret in [LiveryHarness.editorToken, LiveryHarness.viewerToken, LiveryHarness.wrongToken, "Bearer "] {
            #expect(!lines.contains { $0.contains(secret) }, "\(secret) logged")
        }
        let digests = [LiveryHarness.editorToken, LiveryHarness.viewerToken].map { SHA256.hexHash(Array($0.utf8)) }
        #expect(!lines.contains { line in digests.contains { line.contains($0) } }, "digests logged")
    }

    @Test(arguments: [nil, LiveryHarness.wrongToken, LiveryHarness.viewerToken])
    func theUserInfoOfAnAbsoluteFormTargetIsNeverLogged(token: String?) async throws {
        let capture = LogCapture()
        // Over a socket: the server's own request line is part of the log that must not leak.
        let harness = try await LiveryHarness(logger: capture.logger, transport: .socket)
        defer { harness.removeFiles() }
        let response = try await harness.send(
            "PUT", "http://ops:hunter2@test/admin/v1/killswitch?x=1", json: #"{"enabled": true}"#, token: token)
        #expect(response.status == 401 || response.status == 403)
        await harness.stop()
        let refused = capture.lines.filter { $0.contains("admin request refused") }
        #expect(refused.count == 1)
        #expect(refused.allSatisfy { $0.contains("http.path=/admin/v1/killswitch ") }, "\(refused)")
        #expect(!capture.lines.contains { $0.contains("hunter2") || $0.contains("ops:") }, "\(capture.lines)")
    }

    @Test func withoutATokensFileTheAdminAPIIsAbsentAndTheLogSaysSo() async throws {
        let capture = LogCapture()
        let scratch = try ScratchDirectory(prefix: "livery-admin")
        let root = scratch.path
        var configuration = LiveryService.Configuration()
        configuration.skinsDirectory = root + "/skins"
        configuration.dataDirectory = root + "/data"
        let service = try LiveryService(configuration: configuration, logger: capture.logger)
        try await service.loadCatalog()
        #expect(service.admin == nil)
        let router = Router()
        service.register(on: router)
        let frozen = router.freeze()
        for (method, path) in [
            (HTTPMethod.get, "/admin/v1/skins"), (.post, "/admin/v1/skins"), (.put, "/admin/v1/killswitch")
        ] {
            #expect(frozen.route(method: method, rawPath: Substring(path)).pattern == nil, "\(path) must not be routed")
        }
        #expect(capture.lines.filter { $0.contains("admin API disabled") }.count == 1)
        service.close()
    }

    @Test func aConfiguredButMissingTokensFileStopsTheStart() throws {
        let scratch = try ScratchDirectory(prefix: "livery-admin")
        let root = scratch.path
        var configuration = LiveryService.Configuration()
        configuration.dataDirectory = root + "/data"
        configuration.admin.tokensFile = root + "/missing-tokens"
        #expect(throws: LiveryServiceError.self) {
            _ = try LiveryService(configuration: configuration, logger: LiveryHarness.quiet)
        }
        // The failed start released the store: a second attempt with the file present opens it.
        try Data().write(to: URL(fileURLWithPath: root + "/missing-tokens"))
        let service = try LiveryService(configuration: configuration, logger: LiveryHarness.quiet)
        #expect(service.admin?.tokens.count == 0)
        service.close()
    }
}

/// The token and role checks run on the request head, so a refused upload is answered before its body is read.
@Suite struct AdminAuthBeforeBodyTests {
    /// 60 MB: under the 64 MiB upload limit, so only the auth check can refuse it before the body.
    static let announcedLength = 60_000_000

    /// Sends only the head of a 60 MB upload and reads the answer; the body is never sent.
    static func announceUpload(
        _ harness: LiveryHarness, token: String?, expectContinue: Bool = false
    ) async throws -> (response: TestResponse, closed: Bool) {
        var head = "POST /admin/v1/skins HTTP/1.1\r\nHost: test\r\nContent-Type: application/zip\r\n"
        head += "Content-Length: \(announcedLength)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if expectContinue { head += "Expect: 100-continue\r\n" }
        head += "\r\n"
        let port = harness.port
        return try await blocking { [head] in
            let client = try TestClient(port: port, timeout: 10)
            try client.send(head)
            // Had the server waited for the body, this read would time out instead.
            let response = try client.readResponse()
            return (response, try client.closesWithoutData())
        }
    }

    @Test(arguments: [false, true])
    func uploadWithoutATokenIsRefusedBeforeItsBodyIsSent(expectContinue: Bool) async throws {
        let capture = LogCapture()
        let harness = try await LiveryHarness(logger: capture.logger, transport: .socket)
        defer { harness.removeFiles() }
        let before = harness.mark()
        let (response, closed) = try await Self.announceUpload(harness, token: nil, expectContinue: expectContinue)
        #expect(response.status == 401, "no 100 Continue before the refusal")
        #expect(response.header("WWW-Authenticate") == #"Bearer realm="livery""#)
        #expect(try LiveryHarness.code(response) == "unauthorized Authorization")
        #expect(response.closesConnection)
        #expect(closed, "the connection closes instead of reading the announced body")
        await harness.stop()
        #expect(harness.mark() == before)
        #expect(capture.lines.filter { $0.contains("admin request refused") }.count == 1, "logged once")
    }

    @Test func uploadWithAnUnknownTokenIsRefusedBeforeItsBodyIsSent() async throws {
        let harness = try await LiveryHarness(transport: .socket)
        defer { harness.removeFiles() }
        let (response, closed) = try await Self.announceUpload(harness, token: LiveryHarness.wrongToken)
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate") == #"Bearer realm="livery", error="invalid_token""#)
        #expect(closed)
        await harness.stop()
    }

    @Test(arguments: [false, true])
    func uploadWithAViewerTokenIsForbiddenBeforeItsBodyIsSent(expectContinue: Bool) async throws {
        let capture = LogCapture()
        let harness = try await LiveryHarness(logger: capture.logger, transport: .socket)
        defer { harness.removeFiles() }
        let before = harness.mark()
        let (response, closed) = try await Self.announceUpload(
            harness, token: LiveryHarness.viewerToken, expectContinue: expectContinue)
        #expect(response.status == 403)
        #expect(try LiveryHarness.code(response) == "forbidden Authorization")
        #expect(response.closesConnection)
        #expect(closed)
        await harness.stop()
        #expect(harness.mark() == before)
        let refusals = capture.lines.filter { $0.contains("admin request refused") }
        #expect(refusals.count == 1)
        #expect(refusals.allSatisfy { $0.contains("token.name=auditor") && !$0.contains(LiveryHarness.viewerToken) })
    }

    @Test func anEditorUploadWaitingForContinueIsReadAndStored() async throws {
        let harness = try await LiveryHarness(transport: .socket)
        defer { harness.removeFiles() }
        let archive = try SkinArchives.zip(SkinArchives.tiny())
        let port = harness.port
        let head =
            "POST /admin/v1/skins HTTP/1.1\r\nHost: test\r\nContent-Type: application/zip\r\nExpect: 100-continue\r\n"
            + "Authorization: Bearer \(LiveryHarness.editorToken)\r\nContent-Length: \(archive.count)\r\n\r\n"
        let (interim, response) = try await blocking {
            let client = try TestClient(port: port, timeout: 30)
            try client.send(head)
            let interim = try client.readResponse()
            try client.send(archive)
            return (interim, try client.readResponse())
        }
        #expect(interim.status == 100)
        #expect(response.status == 201, "\(response.text)")
        #expect(harness.store.snapshot.skins["tiny"]?.version(1) != nil)
        #expect(harness.store.audit().last?.actor == "ops")
        await harness.stop()
    }
}
