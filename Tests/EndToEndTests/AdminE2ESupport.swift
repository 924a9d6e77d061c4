import Foundation
import HTTPTestSupport
import LiveryCrypto
import TestSupport
import ZipArchive
import ZipReading

#if canImport(Glibc)
    import Glibc
#endif

/// A folder with a skins folder, a tokens file and a data folder, for running `livery serve` with the admin API.
/// The folder is removed when the last copy of the workspace goes away.
struct AdminWorkspace {
    static let editorToken = "livery_e2e_editor_token_0123456789"
    static let viewerToken = "livery_e2e_viewer_token_0123456789"

    private let folder: ScratchDirectory
    var root: String { folder.path }
    var skins: String { root + "/skins" }
    var data: String { root + "/data" }
    var tokens: String { root + "/tokens" }

    /// The environment that points `livery serve` here.
    var environment: [String: String] {
        ["LIVERY_DATA_DIR": data, "LIVERY_SKINS_DIR": skins, "LIVERY_TOKENS_FILE": tokens]
    }

    init() throws {
        folder = try ScratchDirectory(prefix: "livery-admin-e2e")
        try folder.write([:], under: "skins")
        try Self.writeTokens(
            [("ops", "editor", Self.editorToken), ("auditor", "viewer", Self.viewerToken)], to: root + "/tokens")
    }

    /// Writes a tokens file (atomically, by rename) holding the SHA-256 of each token.
    static func writeTokens(_ tokens: [(name: String, role: String, token: String)], to path: String) throws {
        let text =
            tokens.map { "\($0.name) \($0.role) \(SHA256.hexHash(Array($0.token.utf8)))" }.joined(separator: "\n")
            + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// A minimal valid skin; `marker` changes its config (so versions differ), `release` is put in `skin.json`.
    static func tinySkin(id: String, marker: String, app: String = "demo", release: String? = nil) -> [String: [UInt8]]
    {
        let releasePart = release.map { #","release":\#($0)"# } ?? ""
        return [
            "skin.json": Array(#"{"id":"\#(id)","title":"Tiny \#(marker)","app":"\#(app)"\#(releasePart)}"#.utf8),
            "config.json": Array(
                ##"{"home":{"colors":{"color_background":"#FFFFFF"},"values":{"value_marker":"\##(marker)"}}}"##.utf8)
        ]
    }

    static func write(_ files: [String: [UInt8]], into folder: String) throws {
        for (path, bytes) in files {
            let url = URL(fileURLWithPath: folder + "/" + path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
    }

    static func zip(_ files: [String: [UInt8]]) throws -> [UInt8] {
        var output = ZipMemoryOutput()
        try ZipArchiveWriter.write(
            try files.map { ZipEntry(name: try ZipEntryName($0.key), source: .bytes($0.value)) }, to: &output)
        return output.bytes
    }
}

/// Blocking admin requests to a `livery serve` child on 127.0.0.1 (one connection per request).
struct AdminCall {
    let port: Int
    var token: String? = AdminWorkspace.editorToken

    func send(
        _ method: String, _ target: String, body: [UInt8] = [], contentType: String? = nil, timeout: Double = 10
    ) throws -> TestResponse {
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let contentType { headers.append(("Content-Type", contentType)) }
        return try TestClient(port: port, timeout: timeout).request(
            method, target, host: "e2e", headers: headers, body: body)
    }

    func json(_ method: String, _ target: String, body: String? = nil) throws -> (status: Int, object: [String: Any]) {
        let response = try send(
            method, target, body: Array((body ?? "").utf8), contentType: body == nil ? nil : "application/json")
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, object)
    }

    /// Waits (bounded: up to `seconds`) until `/readyz` answers 200.
    func waitUntilReady(seconds: Double = LiveryProcess.readinessBound) throws {
        try LiveryProcess.waitUntilReady(port: port, seconds: seconds)
    }
}
