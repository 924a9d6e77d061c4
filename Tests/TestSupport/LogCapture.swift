import Foundation
import Logging

/// The one log handler tests use to check what is, and is not, logged: it keeps every record in memory.
///
/// `logger` is a `Logger` writing here; `records` holds each record's level, message and metadata (the handler's
/// and the event's, rendered as text); `lines` renders each record as `"<level> <message> key=value…"` with the
/// event's metadata sorted by key, for searching as text.
public final class LogCapture: LogHandler, @unchecked Sendable {
    // Invariant: `stored` is guarded by `lock`; the value-type LogHandler fields are only set before use.

    /// One captured record.
    public struct Record: Sendable {
        public var level: Logger.Level
        public var message: String
        /// The handler's and the event's metadata (the event's wins), values rendered as text.
        public var metadata: [String: String]
        /// `"<level> <message>"` and the event's metadata as ` key=value`, sorted by key.
        public var line: String
    }

    private let lock = NSLock()
    private var stored: [Record] = []
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged: [String: String] = [:]
        for (key, value) in metadata { merged[key] = "\(value)" }
        var line = "\(event.level) \(event.message)"
        for (key, value) in (event.metadata ?? [:]).sorted(by: { $0.key < $1.key }) {
            merged[key] = "\(value)"
            line += " \(key)=\(value)"
        }
        let record = Record(level: event.level, message: "\(event.message)", metadata: merged, line: line)
        lock.withLock { stored.append(record) }
    }

    /// Every record so far, oldest first.
    public var records: [Record] { lock.withLock { stored } }

    /// Every record so far as a line of text, oldest first.
    public var lines: [String] { records.map(\.line) }

    /// A logger writing here.
    public var logger: Logger {
        Logger(label: "test", factory: { _ in self })
    }
}
