import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real `livery serve` under a small open-file limit (`RLIMIT_NOFILE`, set for the child by the shell that
/// starts it), with connections held open on 127.0.0.1 until it runs out of descriptors.
@Suite struct DescriptorLimitTests {
    /// `Max open files` of a running process: (soft, hard).
    static func openFileLimit(pid: Int32) throws -> (soft: String, hard: String) {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else {
            throw E2EError(description: "no open-file limit in /proc/\(pid)/limits")
        }
        let fields = line.dropFirst("Max open files".count).split(separator: " ")
        return (String(fields.first ?? ""), String(fields.dropFirst().first ?? ""))
    }

    /// Waits (bounded) until `condition` holds.
    static func waitFor(seconds: Double, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(10_000)
        }
        return false
    }

    static func occurrences(of text: String, in output: String) -> Int {
        output.components(separatedBy: text).count - 1
    }

    @Test(.hangGuard)
    func raisesTheSoftLimitToTheHardOneAndWarnsWhenMaxConnectionsCannotFit() async throws {
        try await blocking {
            let arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--max-connections", "4000"]
            let livery = try LiveryProcess.start(arguments, descriptorLimit: (soft: 256, hard: 2048))
            let limit = try Self.openFileLimit(pid: livery.pid)
            #expect(limit.soft == "2048" && limit.hard == "2048", "soft limit raised to the hard one: \(limit)")
            let warned = try Self.waitFor(seconds: 10) {
                livery.output.contains("--max-connections 4000 cannot fit under the open-file limit 2048")
            }
            #expect(warned, "\(livery.output)")
            #expect(try livery.stop(signal: SIGTERM) == 0)

            let fitting = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--max-connections", "1000"],
                descriptorLimit: (soft: 256, hard: 2048))
            #expect(try fitting.stop(signal: SIGTERM) == 0)
            #expect(!fitting.output.contains("cannot fit under the open-file limit"))
        }
    }

    @Test(.hangGuard)
    func runningOutOfDescriptorsAnswersDownloadsWith503AndLogsOncePerEpisode() async throws {
        try await blocking {
            let workspace = try IntegrityTests.workspace()
            let arguments = IntegrityTests.arguments + ["--event-loops", "1", "--max-connections", "1000"]
            let livery = try LiveryProcess.start(
                arguments, environment: workspace.environment, descriptorLimit: (soft: 64, hard: 64))
            let admin = AdminCall(port: livery.port)
            try admin.waitUntilReady()
            let (_, answer) = try admin.json("GET", IntegrityTests.poll)
            let packageURL = try #require(answer["packageUrl"] as? String)

            // One keep-alive connection the server has admitted, then connections until no descriptor is left. It
            // polls rather than downloads: a package downloaded once stays open (the server's open-file cache), and
            // serving it needs no new descriptor.
            let keeper = try TestClient(port: livery.port, timeout: 10)
            #expect(try keeper.get(IntegrityTests.poll).status == 200)
            var idle: [TestClient] = []
            for _ in 0..<120 { idle.append(try TestClient(port: livery.port)) }
            let exhausted = try Self.waitFor(seconds: 10) { livery.output.contains("out of file descriptors") }
            #expect(exhausted, "the server never ran out: \(livery.output)")

            let refused = try keeper.get(packageURL)
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") != nil)
            #expect(refused.header("Cache-Control") == "no-store")
            // The episode goes on (accepting is retried every 100 ms, about six failures here) without another
            // line. A descriptor the server's own background work frees for a moment may end the episode and start
            // another; each such start is logged once, after the end of the one before.
            let started = Self.occurrences(of: "out of file descriptors", in: livery.output)
            let ended = Self.occurrences(of: "file descriptors available again after", in: livery.output)
            usleep(600_000)
            #expect(try keeper.get(packageURL).status == 503)
            let output = livery.output
            let newStarts = Self.occurrences(of: "out of file descriptors", in: output) - started
            let newEnds = Self.occurrences(of: "file descriptors available again after", in: output) - ended
            #expect(started >= 1 && newStarts <= newEnds, "\(output)")

            // Descriptors come back: downloads work again and the end of the episode is logged with its count.
            for client in idle { client.close() }
            idle = []
            let recovered = try Self.waitFor(seconds: 10) { try keeper.get(packageURL).status == 200 }
            #expect(recovered)
            // Accepting the backlog may start another short episode; each one is logged once and closed once.
            let balanced = try Self.waitFor(seconds: 10) {
                let output = livery.output
                return Self.occurrences(of: "out of file descriptors", in: output)
                    == Self.occurrences(of: "file descriptors available again after", in: output)
            }
            #expect(balanced, "\(livery.output)")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }

    /// An admin write that cannot open a file for want of descriptors is 503 `server_busy` with `Retry-After` and
    /// `no-store`, as a download is, not a bare 500; nothing is changed, and the same write succeeds once
    /// descriptors are free.
    @Test(.hangGuard)
    func anAdminWriteOutOfDescriptorsIsServerBusyWithRetryAfter() async throws {
        try await blocking {
            let workspace = try IntegrityTests.workspace()
            let arguments = IntegrityTests.arguments + ["--event-loops", "1", "--max-connections", "1000"]
            let livery = try LiveryProcess.start(
                arguments, environment: workspace.environment, descriptorLimit: (soft: 64, hard: 64))
            let admin = AdminCall(port: livery.port)
            try admin.waitUntilReady()
            let keeper = try TestClient(port: livery.port, timeout: 10)
            let bearer = [
                ("Authorization", "Bearer \(AdminWorkspace.editorToken)"), ("Content-Type", "application/json")
            ]
            #expect(try keeper.request("GET", "/admin/v1/killswitch", headers: bearer).status == 200)
            var idle: [TestClient] = []
            for _ in 0..<120 { idle.append(try TestClient(port: livery.port)) }
            let exhausted = try Self.waitFor(seconds: 10) { livery.output.contains("out of file descriptors") }
            #expect(exhausted, "the server never ran out: \(livery.output)")

            let body = Array(#"{"enabled": true, "reason": "drill"}"#.utf8)
            let refused = try keeper.request("PUT", "/admin/v1/killswitch", headers: bearer, body: body)
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.text.contains(#""code":"server_busy""#), "\(refused.text)")
            #expect(refused.header("Retry-After") != nil)
            #expect(refused.header("Cache-Control") == "no-store")

            for client in idle { client.close() }
            idle = []
            // On new connections: accepting the closed clients' backlog may start another short episode.
            let accepted = try Self.waitFor(seconds: 20) {
                (try? admin.send("PUT", "/admin/v1/killswitch", body: body, contentType: "application/json").status)
                    == 200
            }
            #expect(accepted, "\(livery.output)")
            #expect(try livery.stop(signal: SIGTERM) == 0)
        }
    }
}
