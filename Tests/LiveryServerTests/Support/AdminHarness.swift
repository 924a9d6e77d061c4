import Foundation
import HTTPTestSupport
import LiveryCrypto
import LiveryHTTP
import Logging
import SkinStore
import Testing
import TestSupport

@testable import LiveryServer

/// A Livery service with the admin API enabled (an editor and a viewer token), served on 127.0.0.1 with an
/// injected clock. The tokens file is checked on every request (`tokenCheckInterval` zero), so tests that edit
/// it need not wait.
final class AdminHarness: Sendable {
    static let editorToken = "livery_test_editor_0123456789abcdef"
    static let viewerToken = "livery_test_viewer_0123456789abcdef"
    static let wrongToken = "livery_test_wrong_0123456789abcdef"
    /// A window around the harness clock: 2027-01-15T07:00:00Z ..< 2027-01-15T10:00:00Z.
    static let window = #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#

    let root: String
    let clock: TestClock
    let service: LiveryService
    let server: HTTPServer
    let port: Int

    var tokensPath: String { root + "/tokens" }
    var dataDirectory: String { root + "/data" }

    /// The standard tokens file: `ops` (editor) and `auditor` (viewer).
    static var tokensFile: String {
        """
        # test tokens
        \(TokenFile.line(name: "ops", role: .editor, token: editorToken))
        \(TokenFile.line(name: "auditor", role: .viewer, token: viewerToken))  # read only

        """
    }

    /// - Parameters:
    ///   - samples: repository sample skins copied into the skins folder (imported on start), each released over
    ///     the harness window.
    ///   - root: reuse a folder of an earlier harness (its data and tokens) to test restarts.
    ///   - configure: changes to the service configuration.
    init(
        samples: [String] = [], root: String? = nil, at instant: Date = Fixtures.t0.addingTimeInterval(60),
        logger: Logger = ClientAPIHarness.quiet, configure: (inout LiveryService.Configuration) -> Void = { _ in }
    ) async throws {
        let root = root ?? FileManager.default.temporaryDirectory.appendingPathComponent("livery-admin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/skins", withIntermediateDirectories: true)
        for sample in samples where !FileManager.default.fileExists(atPath: root + "/skins/" + sample) {
            try ClientAPIHarness.makeSkins(in: root, sample: sample)
        }
        if !FileManager.default.fileExists(atPath: root + "/tokens") {
            try Data(Self.tokensFile.utf8).write(to: URL(fileURLWithPath: root + "/tokens"))
        }
        self.root = root
        let clock = TestClock(instant)
        self.clock = clock
        var configuration = LiveryService.Configuration()
        configuration.skinsDirectory = root + "/skins"
        configuration.dataDirectory = root + "/data"
        configuration.admin.tokensFile = root + "/tokens"
        configuration.admin.tokenCheckInterval = .zero
        configure(&configuration)
        service = try LiveryService(configuration: configuration, logger: logger, clock: { clock.now })
        store = try #require(service.fileStore)
        try await service.loadCatalog()
        let router = Router()
        service.register(on: router)
        var serverConfiguration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        serverConfiguration.eventLoopCount = 2
        server = HTTPServer(configuration: serverConfiguration, router: router, logger: logger)
        port = try server.start().port
    }

    /// Stops the server and closes the store (so another harness may open the same data folder).
    func stop() async {
        await server.shutdown(drainTimeout: .zero)
        service.close()
    }

    func removeFiles() { try? FileManager.default.removeItem(atPath: root) }

    /// The service's own file store.
    let store: FileSkinStore

    /// Sends one request on a new connection and reads the answer.
    func request(
        _ method: String, _ target: String, token: String? = editorToken, headers: [(String, String)] = [],
        body: [UInt8] = [], contentType: String? = nil
    ) async throws -> TestResponse {
        let port = port
        var head = "\(method) \(target) HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + body
        return try await blocking {
            let client = try TestClient(port: port, timeout: 30)
            client.sendIgnoringErrors(bytes)
            return try client.readResponse(forHead: method == "HEAD")
        }
    }

    /// Sends JSON.
    func send(
        _ method: String, _ target: String, json: String, token: String? = editorToken, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        try await request(method, target, token: token, headers: headers, body: Array(json.utf8), contentType: "application/json")
    }

    /// Uploads a zip.
    func upload(_ archive: [UInt8], token: String? = editorToken, headers: [(String, String)] = []) async throws -> TestResponse {
        try await request("POST", "/admin/v1/skins", token: token, headers: headers, body: archive, contentType: "application/zip")
    }

    /// Uploads the tiny skin and returns its 201 body.
    @discardableResult
    func uploadTiny(id: String = "tiny", marker: String = "1", app: String = "demo") async throws -> [String: Any] {
        let response = try await upload(try SkinArchives.zip(SkinArchives.tiny(id: id, app: app, marker: marker)))
        #expect(response.status == 201, "\(response.text)")
        return try Self.object(response)
    }

    /// Releases `id` over the harness window with extra fields, expecting 200.
    @discardableResult
    func release(_ id: String, _ fields: String = "") async throws -> TestResponse {
        let extra = fields.isEmpty ? "" : ", " + fields
        let body = #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"\#(extra)}"#
        let response = try await send("PUT", "/admin/v1/skins/\(id)/release", json: body)
        #expect(response.status == 200, "\(response.text)")
        return response
    }

    /// The client's answer for the standard poll (or `query`).
    func poll(_ query: String = ClientAPIHarness.poll) async throws -> [String: Any] {
        let response = try await request("GET", query, token: nil)
        #expect(response.status == 200)
        return try Self.object(response)
    }

    /// The JSON object of a response body.
    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "not a JSON object: \(response.text)")
    }

    /// The `error` object of an error response.
    static func error(_ response: TestResponse) throws -> [String: Any] {
        try #require(try object(response)["error"] as? [String: Any], "no error object: \(response.text)")
    }

    /// `"<code> <details.field>"` of an error response, such as `"unauthorized Authorization"`.
    static func code(_ response: TestResponse) throws -> String {
        let error = try error(response)
        let field = (error["details"] as? [String: Any])?["field"] as? String ?? "-"
        return "\(error["code"] as? String ?? "") \(field)"
    }

    /// What must not change when a request is refused: the store's revision and its audit log.
    struct StoreMark: Equatable {
        let revision: Int
        let auditCount: Int
        let skins: [String]
    }

    func mark() -> StoreMark {
        let snapshot = store.snapshot
        return StoreMark(
            revision: snapshot.revision, auditCount: store.audit(since: nil, limit: Int.max).count, skins: snapshot.skinIDs)
    }
}
