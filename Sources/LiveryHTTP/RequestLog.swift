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
        /// The bytes every line of this buffer has after its timestamp (level, label, the first metadata key).
        private let lead: [UInt8]
        private let lines: Mutex<Lines>

        private struct Lines {
            /// Formatted lines: written in place (no array growth checks per field), copied out once per batch.
            let bytes = OutputBuffer(capacity: RequestLog.batchBytes + 1024)
            var count = 0
            var timestamp = TimestampCache()
        }

        fileprivate init(log: RequestLog, level: Logger.Level) {
            self.log = log
            self.lead = log.lead(level: level)
            self.lines = Mutex(Lines())
        }

        /// Formats `line` at the current time; hands the buffer to the writer once it holds 64 KiB.
        func append(_ line: RequestLine) {
            let format = log.format
            let full: (bytes: [UInt8], count: Int)? = lines.withLock { lines in
                let now = JSONLogHandlerClock.now()
                switch format {
                case .text: log.formatText(line, lead: lead, now: now, cache: &lines.timestamp, into: lines.bytes)
                case .json: log.formatJSON(line, lead: lead, now: now, cache: &lines.timestamp, into: lines.bytes)
                }
                lines.count += 1
                guard lines.bytes.count >= RequestLog.batchBytes else { return nil }
                defer {
                    lines.bytes.removeAll()
                    lines.count = 0
                }
                return (Array(lines.bytes.bytes), lines.count)
            }
            if let full { log.submit(full.bytes, lines: full.count) }
        }

        fileprivate func take() -> [UInt8] {
            lines.withLock { lines in
                defer {
                    lines.bytes.removeAll()
                    lines.count = 0
                }
                return Array(lines.bytes.bytes)
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

    /// What follows the timestamp on every line at `level`: text ` info livery: http.duration_ms=`, JSON
    /// `Z","level":"info","label":"livery","source":"LiveryHTTP","message":"`.
    func lead(level: Logger.Level) -> [UInt8] {
        var lead: [UInt8] = []
        switch format {
        case .text:
            lead.append(UInt8(ascii: " "))
            lead.append(contentsOf: level.rawValue.utf8)
            if !label.isEmpty { lead.append(UInt8(ascii: " ")) }
            lead.append(contentsOf: label.utf8)
            lead.append(contentsOf: ": http.duration_ms=".utf8)
        case .json:
            lead.append(contentsOf: #"Z","level":""#.utf8)
            lead.append(contentsOf: level.rawValue.utf8)
            lead.append(contentsOf: #"","label":"#.utf8)
            JSONWriter.appendString(label, to: &lead)
            lead.append(contentsOf: #","source":"LiveryHTTP","message":""#.utf8)
        }
        return lead
    }

    /// `2026-11-22T11:15:02+0100 info livery: http.duration_ms=0.041 … request.id=9f2c [LiveryHTTP] GET /healthz
    /// 200 120B 0.041ms` (one line).
    func appendText(
        _ line: RequestLine, level: Logger.Level, now: timespec, cache: inout TimestampCache, to out: inout [UInt8]
    ) {
        let buffer = OutputBuffer(capacity: 512)
        formatText(line, lead: lead(level: level), now: now, cache: &cache, into: buffer)
        out.append(contentsOf: buffer.bytes)
    }

    /// `{"timestamp":"…","level":"info","label":"livery","source":"LiveryHTTP","message":"…","metadata":{…}}`, keys
    /// sorted as `JSONLogHandler` sorts them.
    func appendJSON(
        _ line: RequestLine, level: Logger.Level, now: timespec, cache: inout TimestampCache, to out: inout [UInt8]
    ) {
        let buffer = OutputBuffer(capacity: 512)
        formatJSON(line, lead: lead(level: level), now: now, cache: &cache, into: buffer)
        out.append(contentsOf: buffer.bytes)
    }

    /// `appendText` into `out`, with the level's `lead` made once per buffer: the line is written in place, in
    /// room reserved once for its longest possible spelling.
    func formatText(
        _ line: RequestLine, lead: [UInt8], now: timespec, cache: inout TimestampCache, into out: OutputBuffer
    ) {
        if cache.second != Int(now.tv_sec) {
            cache.second = Int(now.tv_sec)
            cache.prefix = WallClock.localTimestamp(now.tv_sec)
        }
        let prefix = cache.prefix
        out.appendInPlace(maximum: Self.maximumLength(line, prefix: prefix, lead: lead, escaped: false)) { start in
            var out = LineWriter(start)
            out.put(prefix)
            out.put(lead)
            out.putDurationMilliseconds(line)
            if let method = line.method {
                out.put(" http.method=")
                out.put(string: method)
                out.put(" http.path=")
                out.put(string: line.pathText)
            }
            out.put(" http.response_bytes=")
            out.putDecimal(line.bytesSent)
            out.put(" http.route=")
            out.put(string: line.route)
            out.put(" http.status=")
            out.putDecimal(line.status)
            out.put(" request.id=")
            out.put(string: line.requestID)
            out.put(" [LiveryHTTP] ")
            out.putMessage(line, escaped: false)
            out.put(UInt8(ascii: "\n"))
            return out.written(since: start)
        }
    }

    /// `appendJSON` into `out`, with the level's `lead` made once per buffer, written in place as `formatText`.
    func formatJSON(
        _ line: RequestLine, lead: [UInt8], now: timespec, cache: inout TimestampCache, into out: OutputBuffer
    ) {
        if cache.second != Int(now.tv_sec) {
            cache.second = Int(now.tv_sec)
            var prefix: [UInt8] = []
            WallClock.appendUTCStamp(now.tv_sec, zone: false, to: &prefix)
            cache.prefix = prefix
        }
        let prefix = cache.prefix
        out.appendInPlace(maximum: Self.maximumLength(line, prefix: prefix, lead: lead, escaped: true)) { start in
            var out = LineWriter(start)
            out.put(#"{"timestamp":""#)
            out.put(prefix)
            let milliseconds = Int(now.tv_nsec) / 1_000_000
            out.put(UInt8(ascii: "."))
            out.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds / 100))
            out.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds / 10 % 10))
            out.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds % 10))
            out.put(lead)
            out.putMessage(line, escaped: true)
            out.put(#"","metadata":{"http.duration_ms":"#)
            out.putDurationMilliseconds(line)
            if let method = line.method {
                out.put(#","http.method":""#)
                out.putEscaped(method)
                out.put(#"","http.path":""#)
                out.putEscaped(line.pathText)
                out.put(UInt8(ascii: "\""))
            }
            out.put(#","http.response_bytes":"#)
            out.putDecimal(line.bytesSent)
            out.put(#","http.route":""#)
            out.putEscaped(line.route)
            out.put(#"","http.status":"#)
            out.putDecimal(line.status)
            out.put(#","request.id":""#)
            out.putEscaped(line.requestID)
            out.put("\"}}\n")
            return out.written(since: start)
        }
    }

    /// The most bytes `formatText` or `formatJSON` can write for `line`: the fixed text, each field twice at most
    /// (metadata and message), escaping at most six bytes for one, and every number at its longest.
    private static func maximumLength(_ line: RequestLine, prefix: [UInt8], lead: [UInt8], escaped: Bool) -> Int {
        let expansion = escaped ? 6 : 1
        let fields = line.methodText.utf8.count + line.pathText.utf8.count
        return 512 + prefix.count + lead.count + 2 * expansion * fields
            + expansion * (line.route.utf8.count + line.requestID.utf8.count)
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

/// Writes a request line's bytes into room reserved beforehand (`OutputBuffer.appendInPlace`): no capacity check per
/// field, which is most of what appending piece by piece costs.
private struct LineWriter {
    private var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutableRawPointer) { position = start.assumingMemoryBound(to: UInt8.self) }

    func written(since start: UnsafeMutableRawPointer) -> Int {
        UnsafeMutableRawPointer(position) - start
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        position.pointee = byte
        position += 1
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        position.update(from: base, count: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func put(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { put($0) } }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func put(string text: some StringProtocol) {
        if text.utf8.withContiguousStorageIfAvailable({ put($0) }) == nil {
            for byte in text.utf8 { put(byte) }
        }
    }

    /// `text` escaped as `JSONWriter.appendEscaped` escapes it (at most six bytes for one); copied whole when
    /// nothing needs escaping, as request paths, ids and routes rarely do.
    mutating func putEscaped(_ text: some StringProtocol) {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            put(bytes)
            return true
        }
        guard copied != true else { return }
        var escaped: [UInt8] = []
        JSONWriter.appendEscaped(text, to: &escaped)
        put(escaped)
    }

    mutating func putDecimal(_ value: Int) {
        guard value >= 0 else {
            put(string: value.description)
            return
        }
        putDecimal(UInt64(value))
    }

    /// The decimal digits of `value`, counted first and written from the last.
    mutating func putDecimal(_ value: UInt64) {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        rest = value
        var index = digits
        while index > 0 {
            index -= 1
            position[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        position += digits
    }

    /// `RequestLine.appendMessage`: `GET /healthz 200 120B 0.041ms`.
    mutating func putMessage(_ line: RequestLine, escaped: Bool) {
        if escaped {
            putEscaped(line.methodText)
            put(UInt8(ascii: " "))
            putEscaped(line.pathText)
        } else {
            put(string: line.methodText)
            put(UInt8(ascii: " "))
            put(string: line.pathText)
        }
        put(UInt8(ascii: " "))
        putDecimal(line.status)
        put(UInt8(ascii: " "))
        putDecimal(line.bytesSent)
        put("B ")
        // As `RequestLine.appendMessage`: three decimals of the elapsed milliseconds, rounded half away from zero.
        let thousandths = Int((Double(line.elapsedNanoseconds) / 1_000_000 * 1000).rounded())
        putDecimal(thousandths / 1000)
        put(UInt8(ascii: "."))
        let fraction = thousandths % 1000
        if fraction < 100 { put(UInt8(ascii: "0")) }
        if fraction < 10 { put(UInt8(ascii: "0")) }
        putDecimal(fraction)
        put("ms")
    }

    /// `http.duration_ms` as `line.durationMilliseconds.description` spells it (`0.041`, `1.5`, `12.0`), without
    /// formatting a `Double`: whole microseconds in milliseconds have at most three decimals, and below 10^12 µs
    /// (far below 2^53) the shortest spelling of that `Double` is exactly those decimals, trailing zeros dropped.
    mutating func putDurationMilliseconds(_ line: RequestLine) {
        let microseconds = (line.elapsedNanoseconds + 500) / 1000
        guard microseconds < 1_000_000_000_000 else {
            put(string: line.durationMilliseconds.description)
            return
        }
        putDecimal(microseconds / 1000)
        put(UInt8(ascii: "."))
        let fraction = microseconds % 1000
        let digits = (
            UInt8(truncatingIfNeeded: fraction / 100), UInt8(truncatingIfNeeded: fraction / 10 % 10),
            UInt8(truncatingIfNeeded: fraction % 10)
        )
        put(UInt8(ascii: "0") &+ digits.0)
        if digits.1 != 0 || digits.2 != 0 { put(UInt8(ascii: "0") &+ digits.1) }
        if digits.2 != 0 { put(UInt8(ascii: "0") &+ digits.2) }
    }
}
