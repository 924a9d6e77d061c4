import Foundation
import HTTPTestSupport
import TestSupport
import Testing

/// Memory of the real server around a large upload: the peak stays under a stated multiple of the size of the
/// upload's `config.json`, and the memory is given back afterwards (docs/ADMIN-API.md, "Uploads"; issue 22, faults 7: a 14 MB
/// `config.json`; bench/upload/run.sh measures the same).
@Suite struct UploadMemoryTests {
    /// The bound docs/ADMIN-API.md states: resident memory grows by less than this many times the config's size over the
    /// idle server, fixed overhead (allocator arenas, thread stacks, code paged in) included…
    static let peakMultiple = 10
    /// …and keeps at most this many times once the upload is answered.
    static let keptMultiple = 2

    @Test func aFourteenMegabyteConfigPeaksUnderTenTimesItsSizeAndIsGivenBack() async throws {
        let workspace = try AdminWorkspace()
        let skin = workspace.root + "/work/large"
        let size = 14_000_000
        let generator = LiveryProcess.repository.appendingPathComponent("bench/upload/make-config.py").path
        let made = try await ExternalProcess.run("python3", [generator, skin, String(size)])
        try #require(made.status == 0, "\(made.transcript)")
        let config = try #require(
            try FileManager.default.attributesOfItem(atPath: skin + "/config.json")[.size] as? Int)

        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"],
                environment: workspace.environment)
            let call = AdminCall(port: livery.port)
            try call.waitUntilReady()
            let idle = try Self.kibibytes("VmRSS", of: livery.pid)
            var files = try Self.files(in: skin)
            files["skin.json"] = Array(#"{"id": "large", "title": "Large", "app": "demo"}"#.utf8)
            let archive = try AdminWorkspace.zip(files)
            let answer = try call.send(
                "POST", "/admin/v1/skins", body: archive, contentType: "application/zip", timeout: 900)
            #expect(answer.status == 201, "\(answer.text)")
            let peak = (try Self.kibibytes("VmHWM", of: livery.pid) - idle) * 1024
            let kept = (try Self.kibibytes("VmRSS", of: livery.pid) - idle) * 1024
            #expect(
                peak < Self.peakMultiple * config,
                "peak grew \(peak) bytes (\(Double(peak) / Double(config))x) for a \(config)-byte config")
            #expect(kept <= Self.keptMultiple * config, "\(kept) bytes stayed resident for a \(config)-byte config")
        }
    }

    /// A `Vm…` line of /proc/PID/status, in KiB.
    static func kibibytes(_ field: String, of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
    }

    /// Every file under `folder`, by relative path.
    static func files(in folder: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        }
        return files
    }
}
