import Foundation
import Logging
import Testing

@testable import LiverySetup

#if canImport(Glibc)
    import Glibc
#endif

/// The JSON log format: one object per line that any JSON parser reads back exactly.
@Suite struct JSONLogHandlerTests {
    /// A `LogOutput` writing into a temporary file, read back after the records are written.
    final class Capture {
        let output: LogOutput
        private let path: String
        private let descriptor: Int32

        init(format: LiveryConfiguration.LogFormat = .json) {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("livery-log-\(UUID().uuidString)").path
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            output = LogOutput(format: format, descriptor: descriptor)
        }

        deinit {
            close(descriptor)
            unlink(path)
        }

        /// Everything written so far.
        func text() -> String {
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }

        func objects() throws -> [[String: Any]] {
            let lines = text().split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "")
            return try lines.dropLast().map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }
    }

    @Test func recordHasTheDocumentedFields() throws {
        let capture = Capture()
        var logger = Logger(label: "livery") { label in capture.output.makeHandler(label: label, level: .info) }
        logger[metadataKey: "handler.key"] = "handler"
        logger.info("GET /healthz 200 120B 0.041ms", metadata: ["request.id": "abc-1"])
        logger.debug("below the level")
        let objects = try capture.objects()
        #expect(objects.count == 1)
        let record = try #require(objects.first)
        #expect(record["level"] as? String == "info")
        #expect(record["label"] as? String == "livery")
        #expect(record["message"] as? String == "GET /healthz 200 120B 0.041ms")
        #expect(record["source"] as? String == "LiverySetupTests", "the module that logged")
        let metadata = try #require(record["metadata"] as? [String: String])
        #expect(metadata == ["request.id": "abc-1", "handler.key": "handler"])
    }

    @Test(arguments: [
        "plain", "quote \" and backslash \\", "new\nline\r\ttab", "control \u{01}\u{1F}\u{7F}", "unicode 新春快乐 🎄",
        "", "{\"looks\":\"like json\"}"
    ])
    func anyMessageRoundTripsOnOneLine(_ message: String) throws {
        let capture = Capture()
        capture.output.write(
            line: JSONLogHandler.encode(
                level: .error, label: "la\"bel", message: message, metadata: ["key\n": .string(message)],
                source: message))
        let text = capture.text()
        #expect(text.filter { $0 == "\n" }.count == 1 && text.hasSuffix("\n"))
        let record = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(record["message"] as? String == message)
        #expect(record["label"] as? String == "la\"bel")
        #expect(record["source"] as? String == message)
        #expect((record["metadata"] as? [String: String])?["key\n"] == message)
    }

    @Test func nestedMetadataBecomesJSONAndCallMetadataWins() throws {
        let capture = Capture()
        var handler = JSONLogHandler(
            label: "t", level: .trace, output: capture.output,
            metadataProvider: .init { ["from": "provider", "p": "1"] })
        handler.metadata = ["from": "handler", "h": "1"]
        let logger = Logger(label: "t") { _ in handler }
        logger.notice(
            "m",
            metadata: [
                "from": "call", "list": .array(["a", .dictionary(["b": "c"])]), "number": .stringConvertible(42)
            ])
        let record = try #require(try capture.objects().first)
        let metadata = try #require(record["metadata"] as? [String: Any])
        #expect(metadata["from"] as? String == "call")
        #expect(metadata["p"] as? String == "1" && metadata["h"] as? String == "1")
        #expect((metadata["number"] as? NSNumber)?.intValue == 42, "an integer is a JSON number")
        let list = try #require(metadata["list"] as? [Any])
        #expect(list.first as? String == "a")
        #expect((list.last as? [String: String]) == ["b": "c"])
    }

    /// Integers and finite doubles given as `.stringConvertible` are JSON numbers; anything else stays a string, so
    /// a value that only looks like a number (a string "42", an infinity) never becomes one.
    @Test func numbersStayNumbers() throws {
        let capture = Capture()
        let logger = Logger(label: "t") { JSONLogHandler(label: $0, level: .info, output: capture.output) }
        logger.info(
            "m",
            metadata: [
                "int": .stringConvertible(200), "negative": .stringConvertible(Int64(-7)),
                "unsigned": .stringConvertible(UInt8(9)), "double": .stringConvertible(0.041),
                "whole": .stringConvertible(12.0), "infinite": .stringConvertible(Double.infinity),
                "text": "42", "nan": .stringConvertible(Double.nan)
            ])
        let line = capture.text()
        for fragment in [
            #""int":200"#, #""negative":-7"#, #""unsigned":9"#, #""double":0.041"#, #""whole":12.0"#,
            #""infinite":"inf""#, #""text":"42""#, #""nan":"nan""#
        ] {
            #expect(line.contains(fragment), "\(fragment) in \(line)")
        }
        #expect(try capture.objects().count == 1, "the line is JSON")
    }

    @Test(arguments: [
        (0, 0, "1970-01-01T00:00:00.000Z"), (1_795_312_419, 501_209_700, "2026-11-22T01:53:39.501Z"),
        (1_709_210_096, 999_999_999, "2024-02-29T12:34:56.999Z")
    ])
    func timestampsAreUTCWithMilliseconds(seconds: Int, nanoseconds: Int, expected: String) {
        var line: [UInt8] = []
        JSONLogHandler.appendTimestamp(timespec(tv_sec: seconds, tv_nsec: nanoseconds), to: &line)
        #expect(String(decoding: line, as: UTF8.self) == expected)
    }

    @Test func announcementsAreJSONInJSONFormatAndPlainInText() throws {
        let json = Capture(format: .json)
        json.output.announce("LIVERY_LISTENING 127.0.0.1:8080", metadata: ["http.address": "127.0.0.1:8080"])
        let record = try #require(try json.objects().first)
        #expect(record["message"] as? String == "LIVERY_LISTENING 127.0.0.1:8080")
        #expect(record["level"] as? String == "notice")
        #expect(record["source"] as? String == "livery", "every line has a source")

        let text = Capture(format: .text)
        text.output.announce("LIVERY_LISTENING 127.0.0.1:8080")
        #expect(text.text() == "LIVERY_LISTENING 127.0.0.1:8080\n")
    }

    @Test func linesFromManyThreadsNeverInterleave() throws {
        let capture = Capture()
        let output = capture.output
        let message = String(repeating: "x", count: 3000)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let logger = Logger(label: "t\(thread)") { JSONLogHandler(label: $0, level: .info, output: output) }
            for index in 0..<20 { logger.info("\(message)", metadata: ["i": "\(index)"]) }
        }
        let objects = try capture.objects()
        #expect(objects.count == 160)
        #expect(objects.allSatisfy { ($0["message"] as? String) == message })
    }
}
