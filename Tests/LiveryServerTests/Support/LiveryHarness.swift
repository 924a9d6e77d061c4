import Foundation
import HTTPTestSupport
import LiveryCrypto
import LiveryHTTP
import Logging
import SkinStore
import Synchronization
import TestSupport
import Testing

@testable import LiveryServer

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    var now: Date { instant.withLock { $0 } }
    func set(_ date: Date) { instant.withLock { $0 = date } }
}

/// The one Livery service of the server tests: the real router (client API and admin API, registered by
/// `LiveryService.register(on:)` as `livery serve` does) over a scratch folder (skins, data, a tokens file with an
/// editor and a viewer token) with an injected clock, reached in memory by default or over a socket
/// (`TestEndpoint`). The tokens file is checked on every request (`tokenCheckInterval` zero), so tests that edit
/// it need not wait.
///
/// Tests of rules (validation, auth, If-Match, releases, audit, previews, answers) use `.memory`; tests of what
/// the socket does (framing, Range over `sendfile`, keep-alive, bodies refused before they are read,
/// concurrency on the event loops) use `.socket`.
final class LiveryHarness: Sendable {
    static let editorToken = "livery_test_editor_0123456789abcdef"
    static let viewerToken = "livery_test_viewer_0123456789abcdef"
    static let wrongToken = "livery_test_wrong_0123456789abcdef"
    /// A window around the harness clock: 2027-01-15T07:00:00Z ..< 2027-01-15T10:00:00Z.
    static let window = #"{"startsAt": "2027-01-15T07:00:00Z", "endsAt": "2027-01-15T10:00:00Z"}"#
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let quiet = TestServer.quietLogger
    /// The window every sample skin gets: 2027-01-15T08:00:00Z ..< +2 h.
    static let start = Fixtures.t0
    static let end = Fixtures.t0.addingTimeInterval(7200)
    /// The standard poll.
    static let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.0.0"

    let root: String
    let clock: TestClock
    let service: LiveryService
    let endpoint: TestEndpoint

    var tokensPath: String { root + "/tokens" }
    var skinsDirectory: String { root + "/skins" }
    var dataDirectory: String { root + "/data" }
    /// The server's port; only with `transport: .socket`.
    var port: Int { endpoint.port }

    /// The standard tokens file: `ops` (editor) and `auditor` (viewer).
    static var tokensFile: String {
        """
        # test tokens
        \(TokenFile.line(name: "ops", role: .editor, token: editorToken))
        \(TokenFile.line(name: "auditor", role: .viewer, token: viewerToken))  # read only

        """
    }

    /// Copies `sample` from the repository's skins/ with its release replaced by `release` (default: the
    /// harness window on iOS and Android).
    static func makeSkins(in root: String, sample: String = "christmas-2026", release: String? = nil) throws {
        let folder = root + "/skins/" + sample
        try FileManager.default.createDirectory(atPath: root + "/skins", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: repository.path + "/skins/" + sample, toPath: folder)
        let manifestPath = folder + "/skin.json"
        guard
            var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
                as? [String: Any]
        else { throw TestClientError("sample skin.json is not an object") }
        let window =
            release
            ?? #"{"startsAt": "2027-01-15T08:00:00Z", "endsAt": "2027-01-15T10:00:00Z", "platforms": ["ios", "android"]}"#
        manifest["release"] = try JSONSerialization.jsonObject(with: Data(window.utf8))
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(
            to: URL(fileURLWithPath: manifestPath))
    }

    /// - Parameters:
    ///   - samples: repository sample skins copied into the skins folder (imported on start), each released over
    ///     the sample window.
    ///   - root: reuse a folder of an earlier harness (its data and tokens) to test restarts.
    ///   - transport: in memory (the default) or over a server on 127.0.0.1.
    ///   - configure: changes to the service configuration.
    init(
        samples: [String] = [], root: String? = nil, at instant: Date = Fixtures.t0.addingTimeInterval(60),
        logger: Logger = LiveryHarness.quiet, transport: TestTransport = .memory,
        configure: (inout LiveryService.Configuration) -> Void = { _ in }
    ) async throws {
        let root =
            root
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("livery-harness-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/skins", withIntermediateDirectories: true)
        for sample in samples where !FileManager.default.fileExists(atPath: root + "/skins/" + sample) {
            try Self.makeSkins(in: root, sample: sample)
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
        let service = try LiveryService(configuration: configuration, logger: logger, clock: { clock.now })
        self.service = service
        store = try #require(service.fileStore)
        try await service.loadCatalog()
        endpoint = try TestEndpoint(transport, logger: logger) { service.register(on: $0) }
    }

    /// Stops the server (if any) and closes the store (so another harness may open the same data folder).
    func stop() async {
        await endpoint.stop()
        service.close()
    }

    func removeFiles() { try? FileManager.default.removeItem(atPath: root) }

    /// The service's own file store.
    let store: FileSkinStore

    /// Sends one request (on a new connection over a socket) and returns the answer.
    func request(
        _ method: String, _ target: String, token: String? = editorToken, headers: [(String, String)] = [],
        body: [UInt8] = [], contentType: String? = nil
    ) async throws -> TestResponse {
        var fields: [(String, String)] = []
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        if let contentType { fields.append(("Content-Type", contentType)) }
        return try await endpoint.request(method, target, headers: fields + headers, body: body)
    }

    /// A client's request without a token: `GET` (or `HEAD`) with `headers` as raw `Name: value\r\n` lines.
    func get(_ target: String, headers: String = "", head: Bool = false) async throws -> TestResponse {
        let fields = headers.split(separator: "\r\n").compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return try await request(head ? "HEAD" : "GET", target, token: nil, headers: fields)
    }

    /// Sends JSON.
    func send(
        _ method: String, _ target: String, json: String, token: String? = editorToken, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        try await request(
            method, target, token: token, headers: headers, body: Array(json.utf8), contentType: "application/json")
    }

    /// Uploads a zip.
    func upload(
        _ archive: [UInt8], token: String? = editorToken, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        try await request(
            "POST", "/admin/v1/skins", token: token, headers: headers, body: archive, contentType: "application/zip")
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

    /// The client's answer for the standard poll (or `query`), expecting 200.
    func poll(_ query: String = LiveryHarness.poll) async throws -> [String: Any] {
        let response = try await get(query)
        #expect(response.status == 200)
        return try Self.object(response)
    }

    /// The JSON object of a response body.
    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(
            JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            "not a JSON object: \(response.text)")
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
            revision: snapshot.revision, auditCount: store.audit(since: nil, limit: Int.max).count,
            skins: snapshot.skinIDs)
    }
}
