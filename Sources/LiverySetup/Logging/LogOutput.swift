import Logging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where `livery serve` writes its log: whole lines to one file descriptor (standard output by default), in the
/// configured format.
///
/// Guarantees: each record (or batch of whole request lines, see `RequestLog` in LiveryHTTP) is written by one
/// `write` loop under a lock, so lines from different threads never interleave, in text format as in JSON; in JSON
/// format every line the process writes through it, `announce` included, is one JSON object. Logging never throws: a
/// failed write (a closed pipe) drops the line.
public final class LogOutput: Sendable {
    /// The format of every line.
    public let format: LiveryConfiguration.LogFormat
    private let descriptor: Int32
    private let lock = Mutex<Void>(())

    /// - Parameter descriptor: where lines go. Default 1 (standard output). A descriptor that is not open (a
    ///   server started with standard output closed) drops every line.
    public init(format: LiveryConfiguration.LogFormat, descriptor: Int32 = 1) {
        self.format = format
        self.descriptor = Syscall.isOpen(descriptor) ? descriptor : -1
    }

    /// A handler for `LoggingSystem.bootstrap`, at `level`.
    public func makeHandler(label: String, level: Logger.Level) -> any LogHandler {
        switch format {
        case .text:
            var handler = StreamLogHandler(label: label, stream: Stream(output: self))
            handler.logLevel = level
            return handler
        case .json:
            return JSONLogHandler(label: label, level: level, output: self)
        }
    }

    /// Writes a line that must be seen whatever the log level (such as `LIVERY_LISTENING 127.0.0.1:8080`): as is in
    /// text format, as the `message` of a `notice` record from `label` and `source` in JSON format.
    public func announce(
        _ message: String, label: String = "livery", source: String = "livery", metadata: Logger.Metadata = [:]
    ) {
        switch format {
        case .text:
            write(line: Array((message + "\n").utf8))
        case .json:
            write(
                line: JSONLogHandler.encode(
                    level: .notice, label: label, message: message, metadata: metadata, source: source))
        }
    }

    /// Writes `line` (one or more lines, ending in a newline) whole, blocking while the descriptor is full; a failed
    /// write (a closed pipe) drops it.
    public func write(line: [UInt8]) {
        guard descriptor >= 0 else { return }
        lock.withLock { _ in _ = try? Syscall.writeAll(descriptor, line) }
    }

    /// `StreamLogHandler`'s text lines, through the same lock and descriptor as every other line (it writes each
    /// line with one `write(_:)`).
    private struct Stream: TextOutputStream, Sendable {
        let output: LogOutput

        func write(_ string: String) {
            output.write(line: Array(string.utf8))
        }
    }
}
