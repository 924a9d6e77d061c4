import Foundation
import Logging

/// Collects log lines (message and metadata rendered as text) so tests can check what is, and is not, logged.
final class LogCapture: LogHandler, @unchecked Sendable {
    // Invariant: `lines` is guarded by `lock`; the value-type LogHandler fields are only set before use.
    private let lock = NSLock()
    private var lines: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var text = "\(event.level) \(event.message)"
        for (key, value) in (event.metadata ?? [:]).sorted(by: { $0.key < $1.key }) { text += " \(key)=\(value)" }
        lock.withLock { lines.append(text) }
    }

    /// Every line so far.
    var captured: [String] { lock.withLock { lines } }

    /// A logger writing here.
    var logger: Logger {
        Logger(label: "test", factory: { _ in self })
    }
}
