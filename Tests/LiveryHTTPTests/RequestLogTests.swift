import Dispatch
import LiverySetup
import Logging
import Synchronization
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Request lines written by the event loops' buffers (`RequestLog`): the same bytes swift-log's path writes, and a
/// bounded wait on a slow output.
@Suite struct RequestLogTests {
    static let lines: [RequestLine] = [
        RequestLine(
            method: "GET", path: "/healthz", route: "/healthz", status: 200, bytesSent: 120,
            elapsedNanoseconds: 41_300, requestID: "9f2c0000000000a1"),
        RequestLine(
            method: "GET", path: "/api/v1/skin", route: "/api/v1/skin", status: 204, bytesSent: 0,
            elapsedNanoseconds: 1_234_567_891, requestID: "client-id.1:x"),
        // A path with characters JSON escapes, an unmatched route, no time at all.
        RequestLine(
            method: "PUT", path: #"/a"b\c"#, route: "unmatched", status: 404, bytesSent: 98_765,
            elapsedNanoseconds: 0, requestID: "r"),
        // A request the parser rejected: no method or path.
        RequestLine(
            method: nil, path: nil, route: "unmatched", status: 400, bytesSent: 151, elapsedNanoseconds: 999_999,
            requestID: "rejected")
    ]

    /// The line `livery serve`'s handler writes for `line` through swift-log, and the time just before and after.
    static func oldPath(
        _ line: RequestLine, format: LiveryConfiguration.LogFormat
    ) throws -> (bytes: [UInt8], before: timespec, after: timespec) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let output = LogOutput(format: format, descriptor: ends[1])
        let logger = Logger(label: "livery") { output.makeHandler(label: $0, level: .info) }
        let before = JSONLogHandlerClock.now()
        line.log(to: logger, level: .info)
        let after = JSONLogHandlerClock.now()
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
        try #require(count > 0)
        return (Array(buffer[0..<count]), before, after)
    }

    @Test(arguments: [LiveryConfiguration.LogFormat.text, .json])
    func theBufferedLineIsByteForByteSwiftLogsLine(format: LiveryConfiguration.LogFormat) throws {
        let log = RequestLog(
            format: format == .json ? .json : .text, label: "livery", write: { _ in }, warn: { _ in },
            dropped: { _ in })
        for line in Self.lines {
            // The timestamps match when both paths read the clock within one millisecond (text: one second).
            var compared = false
            for _ in 0..<1000 {
                let old = try Self.oldPath(line, format: format)
                let sameInstant =
                    format == .json
                    ? old.before.tv_sec == old.after.tv_sec
                        && old.before.tv_nsec / 1_000_000 == old.after.tv_nsec / 1_000_000
                    // swift-log's `time(nil)` may read a coarser clock, a few milliseconds behind.
                    : old.before.tv_sec == old.after.tv_sec && old.before.tv_nsec > 50_000_000
                guard sameInstant else { continue }
                var cache = RequestLog.TimestampCache()
                var fast: [UInt8] = []
                switch format {
                case .text: log.appendText(line, level: .info, now: old.before, cache: &cache, to: &fast)
                case .json: log.appendJSON(line, level: .info, now: old.before, cache: &cache, to: &fast)
                }
                #expect(
                    String(decoding: fast, as: UTF8.self) == String(decoding: old.bytes, as: UTF8.self),
                    "\(line.requestID)")
                #expect(fast == old.bytes)
                compared = true
                break
            }
            #expect(compared, "both paths ran within one clock tick")
        }
    }

    /// `http.duration_ms` is written without formatting a `Double`, yet spelled as swift-log spells the `Double`
    /// (`0.041`, `1.5`, `12.0`), from no time at all to durations past where the shortcut stops.
    @Test(arguments: [
        UInt64(0), 499, 500, 1_499, 41_300, 100_000, 999_999, 1_000_000, 1_500_000, 12_000_000, 1_234_567_891,
        999_999_999_999_499_999, 999_999_999_999_500_000, 1_000_000_000_000_000_000
    ])
    func theDurationIsSpelledAsTheDoubleSwiftLogWouldPrint(nanoseconds: UInt64) {
        var line = Self.lines[0]
        line.elapsedNanoseconds = nanoseconds
        let expected = "\(line.durationMilliseconds)"
        for format in [RequestLog.Format.text, .json] {
            let log = RequestLog(format: format, label: "livery", write: { _ in }, warn: { _ in }, dropped: { _ in })
            var cache = RequestLog.TimestampCache()
            var bytes: [UInt8] = []
            let now = timespec(tv_sec: 1_800_000_000, tv_nsec: 0)
            switch format {
            case .text: log.appendText(line, level: .info, now: now, cache: &cache, to: &bytes)
            case .json: log.appendJSON(line, level: .info, now: now, cache: &cache, to: &bytes)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let field = format == .text ? " http.duration_ms=\(expected) " : #""http.duration_ms":\#(expected),"#
            #expect(text.contains(field), "\(text)")
        }
    }

    /// A writer that blocks until released, the bytes it wrote, and the drop reports.
    final class StalledOutput: Sendable {
        let gate = DispatchSemaphore(value: 0)
        let written = Mutex<[UInt8]>([])
        let warnings = Mutex<[Int]>([])
        let dropped = Atomic<Int>(0)

        func log(maxPendingBytes: Int) -> RequestLog {
            RequestLog(
                format: .text, label: "livery", maxPendingBytes: maxPendingBytes,
                write: { bytes in
                    self.gate.wait()
                    self.gate.signal()
                    self.written.withLock { $0.append(contentsOf: bytes) }
                },
                warn: { count in self.warnings.withLock { $0.append(count) } },
                dropped: { count in self.dropped.add(count, ordering: .relaxed) })
        }
    }

    @Test func aStalledOutputDropsOnlyWholeRequestLinesCountsThemAndWarnsOnce() throws {
        let output = StalledOutput()
        let log = output.log(maxPendingBytes: 100 * 1024)
        let buffer = log.makeBuffer(level: .info)
        // Four 64 KiB batches: the first waits for the stalled writer, the next ones do not fit and are dropped;
        // appending never waits.
        let total = 4 * RequestLog.batchBytes / 150 + 20
        for index in 0..<total {
            var line = Self.lines[0]
            line.requestID = "line-\(index)"
            buffer.append(line)
        }
        #expect(output.dropped.load(ordering: .relaxed) > 0)
        output.gate.signal()
        log.close(timeout: .seconds(60))

        let text = String(decoding: output.written.withLock { $0 }, as: UTF8.self)
        let written = text.split(separator: "\n")
        #expect(text.hasSuffix("\n"))
        #expect(written.allSatisfy { $0.hasSuffix("GET /healthz 200 120B 0.041ms") }, "whole lines only")
        let dropped = output.dropped.load(ordering: .relaxed)
        #expect(written.count + dropped == total, "every line is either written or counted as dropped")
        #expect(output.warnings.withLock { $0 } == [dropped], "one warning for the episode, with its count")
    }
}
