import Crypto
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

struct KitTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A folder holding a skins folder, a tokens file, a data folder and signing keys, for one `livery serve`.
final class KitWorkspace: Sendable {
    static let editorToken = "livery_kit_editor_token_0123456789"
    let scratch: ScratchDirectory
    var root: String { scratch.path }
    var skins: String { root + "/skins" }
    var data: String { root + "/data" }
    var tokens: String { root + "/tokens" }

    init() throws {
        scratch = try ScratchDirectory(prefix: "livery-kit")
        try FileManager.default.createDirectory(atPath: skins, withIntermediateDirectories: true)
        let hash = SHA256.hash(data: Data(Self.editorToken.utf8)).map { String(format: "%02x", $0) }.joined()
        try Data("kit editor \(hash)\n".utf8).write(to: URL(fileURLWithPath: tokens))
    }

    /// Writes a skin folder under `skins/` (or `folder`) for app `kit`: a colour, an image at three scales, a
    /// value `home/values/value_marker` = `marker`, and a resource.
    @discardableResult
    func writeSkin(
        id: String, marker: String, startsAt: Date, endsAt: Date, priority: Int = 1, kind: String? = nil,
        into folder: String? = nil
    ) throws -> String {
        let path = (folder ?? skins) + "/" + id
        let release: String
        if kind == "theme" {
            release = #"{"kind":"theme","order":1}"#
        } else {
            release =
                #"{"startsAt":"\#(ISO8601DateFormatter().string(from: startsAt))","endsAt":"\#(ISO8601DateFormatter().string(from: endsAt))","priority":\#(priority),"platforms":["ios","android"],"rollout":100}"#
        }
        let config = ##"""
            {"home":{"colors":{"color_background":"#1E90FF","color.title":"ff0000 0.5","__default__":"rgba<1,2,3,0.4>","color_random":"random"},
            "images":{"image_tab":"tab","image_plain":{"type":2,"color":"00FF00"},"image_remote":"https://cdn.example.com/kit.png"},
            "values":{"value_marker":"\##(marker)","value_object":{"speed":1.5}},
            "resources":{"res_data":"data/info.json"}},
            "dark":{"home":{"colors":{"color_background":"#000000"}}}}
            """##
        let files: [String: [UInt8]] = [
            "skin.json": Array(#"{"id":"\#(id)","title":"Kit \#(marker)","app":"kit","release":\#(release)}"#.utf8),
            "config.json": Array(config.utf8),
            "tab.png": TestImages.png(width: 10, height: 10),
            "tab@2x.png": TestImages.png(width: 20, height: 20),
            "tab@3x.png": TestImages.png(width: 30, height: 30),
            "data/info.json": Array(#"{"marker":"\#(marker)"}"#.utf8)
        ]
        for (name, bytes) in files {
            let url = URL(fileURLWithPath: path + "/" + name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        return path
    }

    /// `livery keys create --id ID` into this workspace: the private key's path and the public key file's path.
    func createKey(_ id: String, file: String? = nil) async throws -> (privateKey: String, publicKey: String) {
        let name = file ?? id
        let privateKey = root + "/\(name).pem"
        let created = try await ExternalProcess.run(
            try BuiltProduct.livery(), ["keys", "create", "--id", id, "--out", privateKey])
        guard created.status == 0 else { throw KitTestError("keys create: \(created.transcript)") }
        let publicKey = root + "/\(name).pub.pem"
        try Data(created.standardOutput.utf8).write(to: URL(fileURLWithPath: publicKey))
        return (privateKey, publicKey)
    }
}

/// `livery serve` on 127.0.0.1 with a free port, over a workspace; killed when released.
final class KitServer: @unchecked Sendable {
    // Invariant: `port` is set once in `start`, then only read.
    private let process: SpawnedProcess
    private let log: String
    private(set) var port = 0
    var url: String { "http://127.0.0.1:\(port)" }

    private init(log: String, process: SpawnedProcess) {
        self.log = log
        self.process = process
    }

    static func start(_ workspace: KitWorkspace, arguments: [String] = []) async throws -> KitServer {
        try await blocking {
            let log = workspace.root + "/serve-\(UUID().uuidString).log"
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIVERY_") }
            environment["LIVERY_DATA_DIR"] = workspace.data
            environment["LIVERY_SKINS_DIR"] = workspace.skins
            environment["LIVERY_TOKENS_FILE"] = workspace.tokens
            let process = try SpawnedProcess.launch(
                try BuiltProduct.livery(), ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments,
                environment: environment, output: .file(log))
            let server = KitServer(log: log, process: process)
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first(where: { $0.contains("LIVERY_LISTENING ") }),
                    let port = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) }), port > 0
                {
                    server.port = port
                    break
                }
                guard server.process.isRunning else { throw KitTestError("livery serve exited: \(text)") }
                usleep(20_000)
            }
            guard server.port > 0 else { throw KitTestError("livery serve did not report listening") }
            while Date() < deadline {
                if let response = try? HTTPGet.fetch(port: server.port, path: "/readyz"), response.status == 200 {
                    return server
                }
                usleep(20_000)
            }
            throw KitTestError("livery serve did not become ready")
        }
    }

    /// The server's log so far.
    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Runs `livery ARGS` as the editor of this server (push, release, killswitch).
    func admin(_ arguments: [String]) async throws -> ExternalProcess.Output {
        let result = try await ExternalProcess.run(
            "/usr/bin/env",
            ["LIVERY_TOKEN=\(KitWorkspace.editorToken)", "LIVERY_SERVER=\(url)", try BuiltProduct.livery()] + arguments)
        guard result.status == 0 else {
            throw KitTestError("livery \(arguments.joined(separator: " ")): \(result.transcript)")
        }
        return result
    }

    deinit { process.terminateInBackground() }
}

/// One blocking HTTP/1.1 GET over a raw socket to 127.0.0.1, read until the server closes.
enum HTTPGet {
    struct Response {
        var status: Int
        var head: String
        var body: [UInt8]
    }

    static func fetch(port: Int, path: String) throws -> Response {
        let socket = try RawSocket.connect(port: port)
        defer { socket.close() }
        try socket.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let bytes = try socket.readToEnd()
        guard let split = RawSocket.headEnd(bytes) else { throw KitTestError("no response head") }
        let head = String(decoding: bytes[..<split], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Response(status: status, head: head, body: Array(bytes[(split + 4)...]))
    }
}
