import LiveryJSON
import Logging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A swift-log handler writing one JSON object per line:
///
/// ```
/// {"timestamp":"2026-11-22T10:15:02.123Z","level":"info","label":"livery","source":"LiveryHTTP",
///  "message":"GET /healthz 200 120B 0.041ms","metadata":{"http.duration_ms":0.041,"http.method":"GET",
///  "http.path":"/healthz","http.response_bytes":120,"http.route":"/healthz","http.status":200,"request.id":"9f2c…"}}
/// ```
///
/// `timestamp` is UTC with milliseconds; `source` (the module that logged, `livery` for announcements) is on every
/// line; `metadata` (handler, provider and call metadata merged, the call's winning) is present only when
/// non-empty, with nested lists and dictionaries as JSON arrays and objects, integers and finite floating-point
/// values passed as `.stringConvertible` as JSON numbers (`http.status`, `http.response_bytes`,
/// `http.duration_ms` of request lines), and every other value as a string; `error` is added when the call passes
/// one. Strings are escaped per RFC 8259, so any message stays on its line.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: LogOutput

    /// - Parameter output: the shared line writer (its format is not consulted).
    public init(label: String, level: Logger.Level, output: LogOutput, metadataProvider: Logger.MetadataProvider? = nil)
    {
        self.label = label
        self.logLevel = level
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let given = event.metadata { merged.merge(given) { $1 } }
        output.write(
            line: Self.encode(
                level: event.level, label: label, message: event.message.description, metadata: merged,
                source: event.source, error: event.error.map { "\($0)" }))
    }

    /// One record as a JSON line (newline included).
    static func encode(
        level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, source: String,
        error: String? = nil, now: timespec = Self.now()
    ) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(160 + message.utf8.count)
        line.append(contentsOf: #"{"timestamp":""#.utf8)
        appendTimestamp(now, to: &line)
        line.append(contentsOf: #"","level":""#.utf8)
        line.append(contentsOf: level.rawValue.utf8)
        line.append(contentsOf: #"","label":"#.utf8)
        appendString(label, to: &line)
        line.append(contentsOf: #","source":"#.utf8)
        appendString(source, to: &line)
        line.append(contentsOf: #","message":"#.utf8)
        appendString(message, to: &line)
        if !metadata.isEmpty {
            line.append(contentsOf: #","metadata":"#.utf8)
            appendObject(metadata, to: &line)
        }
        if let error {
            line.append(contentsOf: #","error":"#.utf8)
            appendString(error, to: &line)
        }
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    static func now() -> timespec {
        let now = WallClock.now()
        return timespec(tv_sec: now.seconds, tv_nsec: now.nanoseconds)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    static func appendTimestamp(_ time: timespec, to line: inout [UInt8]) {
        WallClock.appendUTCStamp(time.tv_sec, milliseconds: time.tv_nsec / 1_000_000, zone: true, to: &line)
    }

    static func appendObject(_ metadata: Logger.Metadata, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "{"))
        // Sorted keys: the same record always encodes the same way.
        for (index, key) in metadata.keys.sorted().enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            appendString(key, to: &line)
            line.append(UInt8(ascii: ":"))
            if let value = metadata[key] { appendValue(value, to: &line) }
        }
        line.append(UInt8(ascii: "}"))
    }

    static func appendValue(_ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        switch value {
        case .string(let text): appendString(text, to: &line)
        case .stringConvertible(let convertible):
            if convertible is any BinaryInteger {
                line.append(contentsOf: convertible.description.utf8)
            } else if let number = convertible as? any BinaryFloatingPoint, Double(number).isFinite {
                line.append(contentsOf: Double(number).description.utf8)
            } else {
                appendString(convertible.description, to: &line)
            }
        case .dictionary(let dictionary): appendObject(dictionary, to: &line)
        case .array(let values):
            line.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                appendValue(element, to: &line)
            }
            line.append(UInt8(ascii: "]"))
        }
    }

    /// A JSON string, escaped by `JSONWriter`'s one rule.
    static func appendString(_ text: String, to line: inout [UInt8]) {
        JSONWriter.appendString(text, to: &line)
    }
}
