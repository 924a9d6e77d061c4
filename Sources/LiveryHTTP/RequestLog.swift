import Dispatch
import Foundation
import LiveryJSON
import Logging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The facts of one request line, borrowed from the request (no copy of the path, no metadata dictionary).
struct RequestLine {
    /// Nil when the request head was never read (a request the parser rejected).
    var method: String?
    var path: Substring?
    var route: String
    var status: Int
    var bytesSent: Int
    var elapsedNanoseconds: UInt64
    var requestID: String

    var methodText: String { method ?? "-" }
    var pathText: Substring { path ?? "-" }
    /// `http.duration_ms`: whole microseconds, in milliseconds.
    var durationMilliseconds: Double { Double((elapsedNanoseconds + 500) / 1000) / 1000 }

    /// The line through swift-log (the path of a server without a `RequestLog`).
    func log(to logger: Logger, level: Logger.Level) {
        // The path is logged raw and without the query: no decoded control characters, no query secrets.
        // The same facts as fields a log pipeline can filter on; numbers stay numbers (`stringConvertible`
        // integers and doubles are JSON numbers in the JSON log). Method and path only when the head was read.
        var metadata: Logger.Metadata = [
            "request.id": .string(requestID),
            "http.route": .string(route),
            "http.status": .stringConvertible(status),
            "http.response_bytes": .stringConvertible(bytesSent),
            "http.duration_ms": .stringConvertible(durationMilliseconds)
        ]
        if method != nil {
            metadata["http.method"] = .string(methodText)
            metadata["http.path"] = .string(String(pathText))
        }
        var message: [UInt8] = []
        appendMessage(to: &message)
        logger.log(
            level: level, "\(String(decoding: message, as: UTF8.self))", metadata: metadata, source: "LiveryHTTP")
    }

    /// `GET /healthz 200 120B 0.041ms`.
    /// `escaped`: method and path escaped as in a JSON string (the rest is digits and letters).
    func appendMessage(to line: inout [UInt8], escaped: Bool = false) {
        if escaped {
            JSONWriter.appendEscaped(methodText, to: &line)
            line.append(UInt8(ascii: " "))
            JSONWriter.appendEscaped(pathText, to: &line)
        } else {
            line.append(contentsOf: methodText.utf8)
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: pathText.utf8)
        }
        line.append(UInt8(ascii: " "))
        RequestLog.appendDecimal(status, to: &line)
        line.append(UInt8(ascii: " "))
        RequestLog.appendDecimal(bytesSent, to: &line)
        line.append(contentsOf: "B ".utf8)
        // Three decimals of the elapsed milliseconds, rounded half away from zero.
        let thousandths = Int((Double(elapsedNanoseconds) / 1_000_000 * 1000).rounded())
        RequestLog.appendDecimal(thousandths / 1000, to: &line)
        line.append(UInt8(ascii: "."))
        let fraction = thousandths % 1000
        if fraction < 100 { line.append(UInt8(ascii: "0")) }
        if fraction < 10 { line.append(UInt8(ascii: "0")) }
        RequestLog.appendDecimal(fraction, to: &line)
        line.append(contentsOf: "ms".utf8)
    }
}

/// Request lines written without swift-log's per-line path: each event loop formats its lines into a buffer of its
/// own, byte for byte as the text (`StreamLogHandler`) or JSON (`JSONLogHandler`) handler of `livery serve` would
/// write them, and one writer thread hands the buffers to `write` (the descriptor writer every other log line uses)
/// when one holds 64 KiB, at least every half second, and at `close()`.
///
/// Event loops never wait on the log: when `write` cannot keep up (a slow pipe), full buffers queue up to
/// `maxPendingBytes`; past that a buffer's lines are dropped, passed to `dropped` (a counter), and the writer reports
/// them through `warn` once per episode (an episode ends when a write succeeds with nothing dropped since).
public final class RequestLog: Sendable {
    public enum Format: Sendable {
        /// swift-log's `StreamLogHandler` line: local time to the second, level, label, sorted `key=value` metadata,
        /// `[source]`, message.
        case text
        /// `JSONLogHandler`'s object: UTC timestamp with milliseconds, level, label, source, message, metadata.
        case json
    }

    public static let batchBytes = 64 * 1024
    static let flushInterval: DispatchTimeInterval = .milliseconds(500)

    let format: Format
    let label: String
    private let maxPendingBytes: Int
    private let write: @Sendable ([UInt8]) -> Void
    private let warn: @Sendable (_ dropped: Int) -> Void
    private let dropped: @Sendable (_ lines: Int) -> Void
    private let state = Mutex<State>(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var buffers: [Buffer] = []
        var pending: [[UInt8]] = []
        var pendingBytes = 0
        /// Lines dropped and not yet reported through `warn`.
        var droppedSinceReport = 0
        var closing = false
        var started = false
    }

    /// - Parameters:
    ///   - label: the logger's label on every line (`livery`).
    ///   - write: writes whole lines; may block (it runs on the writer thread, and at `close()`).
    ///   - warn: called on the writer thread with the lines dropped, once per episode.
    ///   - dropped: called on the event loop with each drop's line count; must not block.
    public init(
        format: Format, label: String, maxPendingBytes: Int = 1 << 20,
        write: @escaping @Sendable ([UInt8]) -> Void, warn: @escaping @Sendable (_ dropped: Int) -> Void,
        dropped: @escaping @Sendable (_ lines: Int) -> Void
    ) {
        self.format = format
        self.label = label
        self.maxPendingBytes = maxPendingBytes
        self.write = write
        self.warn = warn
        self.dropped = dropped
    }

    /// A buffer for one event loop; starts the writer thread with the first.
    func makeBuffer(level: Logger.Level) -> Buffer {
        let buffer = Buffer(log: self, level: level)
        let start = state.withLock { state in
            state.buffers.append(buffer)
            defer { state.started = true }
            return !state.started && !state.closing
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "livery.requestlog"
            thread.start()
        }
        return buffer
    }

    /// Writes every line buffered so far and ends the writer thread, waiting up to `timeout` for a slow output
    /// (call once the servers have stopped: later lines are not written). Later calls do nothing.
    public func close(timeout: Duration = .seconds(5)) {
        let running = state.withLock { state in
            defer { state.closing = true }
            return state.started && !state.closing
        }
        guard running else { return }
        wake.signal()
        let nanoseconds = Int(clamping: timeout.nanoseconds)
        _ = finished.wait(timeout: .now() + .nanoseconds(nanoseconds))
    }

    /// Queues a full buffer for the writer, or drops it when the queue is full. Never blocks.
    fileprivate func submit(_ bytes: [UInt8], lines: Int) {
        let accepted = state.withLock { state in
            guard state.pendingBytes + bytes.count <= maxPendingBytes else {
                state.droppedSinceReport += lines
                return false
            }
            state.pending.append(bytes)
            state.pendingBytes += bytes.count
            return true
        }
        if accepted { wake.signal() } else { dropped(lines) }
    }

    private func run() {
        var inEpisode = false
        while true {
            _ = wake.wait(timeout: .now() + Self.flushInterval)
            let (pending, buffers, closing) = state.withLock { state in
                defer { state.pending = [] }
                return (state.pending, state.buffers, state.closing)
            }
            for bytes in pending {
                write(bytes)
                state.withLock { $0.pendingBytes -= bytes.count }
            }
            for buffer in buffers {
                let bytes = buffer.take()
                if !bytes.isEmpty { write(bytes) }
            }
            let unreported = state.withLock { state in
                defer { state.droppedSinceReport = 0 }
                return state.droppedSinceReport
            }
            if unreported > 0 {
                if !inEpisode { warn(unreported) }
                inEpisode = true
            } else {
                inEpisode = false
            }
            if closing {
                let more = state.withLock { !$0.pending.isEmpty }
                if !more {
                    finished.signal()
                    return
                }
            }
        }
    }

    /// One event loop's lines since the last flush, behind a lock the writer takes at most twice a second.
    final class Buffer: Sendable {
        private let log: RequestLog
        private let level: Logger.Level
        private let lines = Mutex<Lines>(Lines())

        private struct Lines {
            var bytes: [UInt8] = []
            var count = 0
            var timestamp = TimestampCache()
        }

        fileprivate init(log: RequestLog, level: Logger.Level) {
            self.log = log
            self.level = level
        }

        /// Formats `line` at the current time; hands the buffer to the writer once it holds 64 KiB.
        func append(_ line: RequestLine) {
            let format = log.format
            let full: (bytes: [UInt8], count: Int)? = lines.withLock { lines in
                if lines.bytes.capacity == 0 { lines.bytes.reserveCapacity(RequestLog.batchBytes + 1024) }
                let now = JSONLogHandlerClock.now()
                switch format {
                case .text: log.appendText(line, level: level, now: now, cache: &lines.timestamp, to: &lines.bytes)
                case .json: log.appendJSON(line, level: level, now: now, cache: &lines.timestamp, to: &lines.bytes)
                }
                lines.count += 1
                guard lines.bytes.count >= RequestLog.batchBytes else { return nil }
                defer {
                    lines.bytes = []
                    lines.count = 0
                }
                return (lines.bytes, lines.count)
            }
            if let full { log.submit(full.bytes, lines: full.count) }
        }

        fileprivate func take() -> [UInt8] {
            lines.withLock { lines in
                defer {
                    lines.bytes = []
                    lines.count = 0
                }
                return lines.bytes
            }
        }
    }

    // MARK: - Formatting

    /// The second a timestamp prefix was made for, and the prefix (text: the whole `strftime` timestamp; JSON: up to
    /// the seconds).
    struct TimestampCache {
        var second: Int = -1
        var prefix: [UInt8] = []
    }

    /// `2026-11-22T11:15:02+0100 info livery: http.duration_ms=0.041 … request.id=9f2c [LiveryHTTP] GET /healthz
    /// 200 120B 0.041ms` (one line).
    func appendText(
        _ line: RequestLine, level: Logger.Level, now: timespec, cache: inout TimestampCache, to out: inout [UInt8]
    ) {
        if cache.second != Int(now.tv_sec) {
            cache.second = Int(now.tv_sec)
            cache.prefix = WallClock.localTimestamp(now.tv_sec)
        }
        out.append(contentsOf: cache.prefix)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: level.rawValue.utf8)
        if !label.isEmpty { out.append(UInt8(ascii: " ")) }
        out.append(contentsOf: label.utf8)
        out.append(contentsOf: ": http.duration_ms=".utf8)
        out.append(contentsOf: line.durationMilliseconds.description.utf8)
        if line.method != nil {
            out.append(contentsOf: " http.method=".utf8)
            out.append(contentsOf: line.methodText.utf8)
            out.append(contentsOf: " http.path=".utf8)
            out.append(contentsOf: line.pathText.utf8)
        }
        out.append(contentsOf: " http.response_bytes=".utf8)
        Self.appendDecimal(line.bytesSent, to: &out)
        out.append(contentsOf: " http.route=".utf8)
        out.append(contentsOf: line.route.utf8)
        out.append(contentsOf: " http.status=".utf8)
        Self.appendDecimal(line.status, to: &out)
        out.append(contentsOf: " request.id=".utf8)
        out.append(contentsOf: line.requestID.utf8)
        out.append(contentsOf: " [LiveryHTTP] ".utf8)
        line.appendMessage(to: &out)
        out.append(UInt8(ascii: "\n"))
    }

    /// `{"timestamp":"…","level":"info","label":"livery","source":"LiveryHTTP","message":"…","metadata":{…}}`, keys
    /// sorted as `JSONLogHandler` sorts them.
    func appendJSON(
        _ line: RequestLine, level: Logger.Level, now: timespec, cache: inout TimestampCache, to out: inout [UInt8]
    ) {
        if cache.second != Int(now.tv_sec) {
            cache.second = Int(now.tv_sec)
            var prefix: [UInt8] = []
            WallClock.appendUTCStamp(now.tv_sec, zone: false, to: &prefix)
            cache.prefix = prefix
        }
        out.append(contentsOf: #"{"timestamp":""#.utf8)
        out.append(contentsOf: cache.prefix)
        out.append(UInt8(ascii: "."))
        let milliseconds = Int(now.tv_nsec) / 1_000_000
        out.append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        out.append(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(milliseconds % 10))
        out.append(contentsOf: #"Z","level":""#.utf8)
        out.append(contentsOf: level.rawValue.utf8)
        out.append(contentsOf: #"","label":"#.utf8)
        JSONWriter.appendString(label, to: &out)
        out.append(contentsOf: #","source":"LiveryHTTP","message":""#.utf8)
        line.appendMessage(to: &out, escaped: true)
        out.append(contentsOf: #"","metadata":{"http.duration_ms":"#.utf8)
        out.append(contentsOf: line.durationMilliseconds.description.utf8)
        if line.method != nil {
            out.append(contentsOf: #","http.method":"#.utf8)
            JSONWriter.appendString(line.methodText, to: &out)
            out.append(contentsOf: #","http.path":"#.utf8)
            JSONWriter.appendString(line.pathText, to: &out)
        }
        out.append(contentsOf: #","http.response_bytes":"#.utf8)
        Self.appendDecimal(line.bytesSent, to: &out)
        out.append(contentsOf: #","http.route":"#.utf8)
        JSONWriter.appendString(line.route, to: &out)
        out.append(contentsOf: #","http.status":"#.utf8)
        Self.appendDecimal(line.status, to: &out)
        out.append(contentsOf: #","request.id":"#.utf8)
        JSONWriter.appendString(line.requestID, to: &out)
        out.append(contentsOf: "}}\n".utf8)
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 0 {
            out.append(contentsOf: value.description.utf8)
            return
        }
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

enum JSONLogHandlerClock {
    static func now() -> timespec {
        let now = WallClock.now()
        return timespec(tv_sec: now.seconds, tv_nsec: now.nanoseconds)
    }
}
