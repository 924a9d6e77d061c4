import Crypto
import Foundation
import TestSupport
import Testing

/// Packages a phone must refuse even when the answer vouches for their hash: the proxy serves hostile bytes and a
/// catalog (unsigned server, no keys) naming their SHA-256 and size, so only the zip and config checks stand.
@Suite(.serialized) struct HostilePackageTests {
    static func config(_ marker: String) -> [UInt8] {
        Array(#"{"home":{"values":{"value_marker":"\#(marker)"}}}"#.utf8)
    }

    static func hostile() throws -> [(name: String, code: String, bytes: [UInt8])] {
        var link = RawZip.Entry.stored("link", Array("/etc/passwd".utf8))
        link.externalAttributes = 0o120777 << 16
        var liar = RawZip.Entry.stored("big.bin", [1, 2, 3])
        liar.declaredUncompressedSize = 3 << 30
        let zeros = [UInt8](repeating: 0, count: 40 << 20)
        let bomb = RawZip.Entry.deflated("bomb.bin", content: zeros, compressed: try RawZip.deflate(zeros))
        return [
            (
                "escaping", "zip",
                RawZip(entries: [.stored("config.json", config("X")), .stored("../escape.txt", [1])]).build()
            ),
            (
                "absolute", "zip",
                RawZip(entries: [.stored("config.json", config("X")), .stored("/tmp/livery-kit-abs.txt", [1])]).build()
            ),
            ("symlink", "zip", RawZip(entries: [.stored("config.json", config("X")), link]).build()),
            ("ratio", "zip", RawZip(entries: [.stored("config.json", config("X")), bomb]).build()),
            ("declared size", "zip", RawZip(entries: [.stored("config.json", config("X")), liar]).build()),
            (
                "duplicate", "zip",
                RawZip(entries: [.stored("config.json", config("X")), .stored("config.json", config("Y"))]).build()
            ),
            ("not a zip", "zip", Array("this is not a zip archive, only text".utf8)),
            ("no config", "config", RawZip(entries: [.stored("other.txt", [1])]).build()),
            ("invalid config", "config", RawZip(entries: [.stored("config.json", Array(#"{"home":5}"#.utf8))]).build()),
            (
                "missing image", "config",
                RawZip(entries: [.stored("config.json", Array(#"{"home":{"images":{"i":"file://nothere.png"}}}"#.utf8))]
                ).build()
            )
        ]
    }

    @Test func everyHostilePackageIsRefusedWithTheCurrentSkinKept() async throws {
        let stage = try await Stage.make(signed: false)
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run(["--get", "home/values/value_marker"])
        #expect(first.status == 0 && first.value("home/values/value_marker") == "A1", "\(first)")
        try await stage.releaseNewVersion(marker: "A2")
        for (name, code, bytes) in try Self.hostile() {
            let digest = SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
            proxy.setRule { request, response in
                if request.path.hasPrefix("/api/v1/packages/") {
                    return .send(TamperingProxy.Response(status: 200, headers: [("ETag", "\"hostile\"")], body: bytes))
                }
                guard request.path.hasPrefix("/api/v1/catalog"), response.status == 200 else { return .send(response) }
                // Every package the catalog lists vouches for the hostile bytes.
                let text = String(decoding: response.body, as: UTF8.self)
                let vouched = text.replacingOccurrences(
                    of: #""sha256":"[0-9a-f]{64}","size":[0-9]+"#,
                    with: #""sha256":"\#(digest)","size":\#(bytes.count)"#,
                    options: .regularExpression)
                var changed = response
                changed.body = Array(vouched.utf8)
                changed.setHeader("ETag", nil)
                return .send(changed)
            }
            let run = try await phone.run(["--get", "home/values/value_marker"])
            #expect(run.status == 1, "\(name): \(run)")
            #expect(run.errorCode == code, "\(name): \(run)")
            #expect(run.skinSign == first.skinSign, "\(name)")
            #expect(run.value("home/values/value_marker") == "A1", "\(name)")
            #expect(listing(phone.storage + "/packages") == [first.skinSign], "\(name)")
            #expect(listing(phone.storage + "/staging").isEmpty, "\(name)")
            #expect(listing(phone.storage + "/downloads").isEmpty, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: phone.storage + "/escape.txt"), "\(name)")
            #expect(!FileManager.default.fileExists(atPath: "/tmp/livery-kit-abs.txt"), "\(name)")
        }
    }
}
