import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `livery serve`'s request lines, buffered per event loop: none lost at SIGTERM, none cut into another, and a
/// standard output nobody reads costs request lines, never service.
@Suite struct RequestLogTests {
    /// Sends `perConnection` requests on each of `connections` keep-alive connections at once, each to a path of its
    /// own (`/nowhere/<connection>/<index>`, answered 404); returns the paths.
    static func sendConcurrently(port: Int, connections: Int, perConnection: Int) throws -> Set<String> {
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: connections) { connection in
            do {
                let client = try TestClient(port: port, timeout: 60)
                for index in 0..<perConnection {
                    let response = try client.get("/nowhere/\(connection)/\(index)")
                    if response.status != 404 { failures.add(1, ordering: .relaxed) }
                }
            } catch {
                failures.add(1, ordering: .relaxed)
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        var paths: Set<String> = []
        for connection in 0..<connections {
            for index in 0..<perConnection { paths.insert("/nowhere/\(connection)/\(index)") }
        }
        return paths
    }

    @Test(arguments: ["text", "json"])
    func everyRequestLineIsWholeAndSIGTERMLosesNone(format: String) async throws {
        try await blocking {
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0"], environment: ["LIVERY_LOG_FORMAT": format])
            let sent = try Self.sendConcurrently(port: livery.port, connections: 8, perConnection: 250)
            #expect(try livery.stop(signal: SIGTERM) == 0)

            var logged: [String] = []
            for line in livery.standardOutput.split(separator: "\n") where line.contains("/nowhere/") {
                if format == "json" {
                    let object = try #require(
                        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not whole: \(line)")
                    let metadata = try #require(object["metadata"] as? [String: Any], "\(line)")
                    let path = try #require(metadata["http.path"] as? String, "\(line)")
                    #expect((object["message"] as? String)?.hasPrefix("GET \(path) 404 ") == true, "\(line)")
                    logged.append(path)
                } else {
                    // A whole text request line of a 404: path and bytes as metadata, then in the message.
                    let match = try #require(
                        line.wholeMatch(
                            of:
                                /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info livery: http\.duration_ms=[0-9.e-]+ http\.method=GET http\.path=(\S+) http\.response_bytes=(\d+) http\.route=unmatched http\.status=404 request\.id=\S+ \[LiveryHTTP\] GET (\S+) 404 (\d+)B [0-9]+\.[0-9]{3}ms/
                        ), "not whole: \(line)")
                    #expect(match.1 == match.3 && match.2 == match.4, "\(line)")
                    logged.append(String(match.1))
                }
            }
            #expect(logged.count == sent.count, "one line per request, written before exit")
            #expect(Set(logged) == sent)
        }
    }

    /// What a reader of the child's standard output has seen, and whether it goes on reading.
    final class Reader: Sendable {
        let seen = Mutex<[UInt8]>([])
        let reading = Atomic<Bool>(true)
    }

    @Test func aStandardOutputNobodyReadsDropsRequestLinesAndKeepsServing() async throws {
        try await blocking {
            let scratch = try ScratchDirectory(prefix: "livery-stalled-log")
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIVERY_") }
            environment["LIVERY_DATA_DIR"] = scratch.path("data")
            environment["LIVERY_SKINS_DIR"] = LiveryProcess.repository.appendingPathComponent("skins").path
            let process = try SpawnedProcess.launch(
                try LiveryProcess.binary.path, ["serve", "--host", "127.0.0.1", "--port", "0"],
                environment: environment, output: .pipes)
            defer {
                process.send(SIGKILL)
                _ = process.waitUntilExit(timeout: .seconds(60))
            }
            let stdout = try #require(process.standardOutput)
            // Read until the server is ready (its start logs at info), then never again.
            let reader = Reader()
            let listening = DispatchSemaphore(value: 0)
            Thread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while reader.reading.load(ordering: .acquiring) {
                    let count = buffer.withUnsafeMutableBytes { read(stdout.fileDescriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    let text = reader.seen.withLock { seen in
                        seen.append(contentsOf: buffer[0..<count])
                        return String(decoding: seen, as: UTF8.self)
                    }
                    if text.contains("LIVERY_LISTENING ") && text.hasSuffix("\n") { listening.signal() }
                }
                withExtendedLifetime(stdout) {}
            }.start()
            try #require(listening.wait(timeout: .now() + 60) == .success, "no LIVERY_LISTENING line")
            let address = LiveryProcess.announcedAddress(
                "LIVERY_LISTENING ", in: reader.seen.withLock { String(decoding: $0, as: UTF8.self) })
            let port = try #require(Int(address?.split(separator: ":").last ?? ""))
            try LiveryProcess.waitUntilReady(port: port)
            reader.reading.store(false, ordering: .releasing)
            // The smallest pipe the kernel allows, so it fills soon.
            _ = fcntl(stdout.fileDescriptor, 1031 /* F_SETPIPE_SZ */, 4096)

            // Polls keep being answered while their lines cannot be written; some lines are counted as dropped.
            let client = try TestClient(port: port, timeout: 60)
            var dropped = 0
            for _ in 0..<40 where dropped == 0 {
                for _ in 0..<1000 {
                    let poll = try client.get("/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0")
                    #expect(poll.status < 500)
                }
                let metrics = try client.get("/metrics").text
                let series = metrics.split(separator: "\n").first { $0.hasPrefix("livery_log_lines_dropped_total ") }
                dropped = Int(Double(series?.split(separator: " ").last ?? "") ?? 0)
            }
            #expect(dropped > 0)
            #expect(try client.get("/healthz").status == 200)
        }
    }
}
