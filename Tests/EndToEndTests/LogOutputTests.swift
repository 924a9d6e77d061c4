import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What `livery serve` writes to its log: JSON that parses line by line, request ids, and never a credential.
@Suite(.serialized) struct LogOutputTests {
    static let secret = "secret-token"

    /// Requests that carry the secret in every place a client might put it; returns the request ids answered.
    static func sendCredentials(port: Int) throws -> [String] {
        let client = try TestClient(port: port)
        let bearer = "Authorization: Bearer \(secret)\r\n"
        var ids: [String] = []
        for (method, target) in [
            ("GET", "/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&token=\(secret)"),
            ("GET", "/healthz?token=\(secret)"),
            ("GET", "/admin/v1/skins?access_token=\(secret)"),
            ("PUT", "/admin/v1/killswitch?token=\(secret)"),
            ("GET", "/api/v1/packages/\(String(repeating: "0", count: 32)).zip?token=\(secret)")
        ] {
            let body = method == "PUT" ? #"{"enabled":true}"# : ""
            try client.send(
                "\(method) \(target) HTTP/1.1\r\nHost: test\r\n\(bearer)Cookie: session=\(secret)\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try client.readResponse()
            ids.append(try #require(response.header("X-Request-Id")))
        }
        // A request the parser rejects, with the credential in a header.
        let rejected = try TestClient(port: port)
        try rejected.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\(bearer)Bad Header: \(secret)\r\n\r\n")
        #expect(try rejected.readResponse().status == 400)
        return ids
    }

    @Test func jsonLogsParseLineByLineAndCarryRequestIDs() async throws {
        try await blocking {
            let livery = try LiveryProcess.start(["serve", "--host", "127.0.0.1", "--port", "0", "--log-format", "json"]
            )
            try livery.waitUntilReady()
            let ids = try Self.sendCredentials(port: livery.port)
            #expect(try livery.stop(signal: SIGTERM) == 0)

            let lines = livery.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "", "output ends with a newline")
            var requestIDs: Set<String> = []
            var sawListening = false
            var routes: [String: String] = [:]
            for line in lines.dropLast() {
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    "not a JSON object: \(line)")
                let timestamp = try #require(object["timestamp"] as? String)
                #expect(timestamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(timestamp)")
                let level = try #require(object["level"] as? String)
                #expect(["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(level))
                #expect(object["label"] as? String == "livery")
                let message = try #require(object["message"] as? String)
                let metadata = object["metadata"] as? [String: Any] ?? [:]
                #expect(object["source"] is String, "every line has a source: \(line)")
                if message.hasPrefix("LIVERY_LISTENING ") { sawListening = true }
                // The request lines: "METHOD /path STATUS BYTES DURATION", each with its request id, and the same
                // facts as fields (numbers as JSON numbers).
                if let parts = message.wholeMatch(of: /([A-Z-]+) (\S+) (\d{3}) (\d+)B ([0-9.]+)ms/) {
                    let id = try #require(metadata["request.id"] as? String, "request line without id: \(line)")
                    requestIDs.insert(id)
                    #expect(metadata["http.status"] as? Int == Int(parts.3), "\(line)")
                    #expect(metadata["http.response_bytes"] as? Int == Int(parts.4), "\(line)")
                    let duration = try #require(metadata["http.duration_ms"] as? NSNumber, "\(line)")
                    #expect(abs(duration.doubleValue - (Double(parts.5) ?? -1)) < 0.0015, "\(line)")
                    #expect(!line.contains(#""http.status":""#) && !line.contains(#""http.duration_ms":""#), "\(line)")
                    let route = try #require(metadata["http.route"] as? String, "\(line)")
                    routes[String(parts.2)] = route
                    if parts.1 != "-" {
                        #expect(metadata["http.method"] as? String == String(parts.1), "\(line)")
                        #expect(metadata["http.path"] as? String == String(parts.2), "\(line)")
                    } else {
                        #expect(route == "unmatched", "\(line)")
                    }
                }
            }
            #expect(sawListening)
            #expect(routes["/healthz"] == "/healthz" && routes["/api/v1/skin"] == "/api/v1/skin", "\(routes)")
            #expect(routes["/api/v1/packages/\(String(repeating: "0", count: 32)).zip"] == "/api/v1/packages/:file")
            #expect(Set(ids).isSubset(of: requestIDs), "every answered X-Request-Id is in a request line")
            #expect(requestIDs.count >= ids.count + 1, "the rejected request is logged too")
            #expect(livery.errorOutput.isEmpty, "\(livery.errorOutput)")
        }
    }

    @Test(arguments: ["text", "json"])
    func credentialsNeverReachTheLog(format: String) async throws {
        try await blocking {
            // Trace: the most the server ever writes.
            let livery = try LiveryProcess.start(
                ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "trace"],
                environment: ["LIVERY_LOG_FORMAT": format])
            try livery.waitUntilReady()
            _ = try Self.sendCredentials(port: livery.port)
            #expect(try livery.stop(signal: SIGTERM) == 0)
            let log = livery.output
            #expect(log.contains("GET /healthz 200 "), "the requests were logged")
            #expect(!log.contains(Self.secret))
            #expect(!log.lowercased().contains("authorization"))
            #expect(!log.contains("Bearer"))
            #expect(!log.contains("token="))
        }
    }
}
