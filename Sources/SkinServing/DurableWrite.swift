import SystemCalls

/// Replaces the file at `path` with `bytes` atomically and durably: a crash leaves either the old file or the new
/// one (temporary file, fsync, rename, directory fsync).
///
/// `DurableFile.writer` (the system-call layer's one crash-safe write) by default; tests may pass any writer.
public typealias DurableWrite = @Sendable (_ path: String, _ bytes: [UInt8]) throws -> Void

extension DurableFile {
    /// `replace(_:with:)` as a `DurableWrite`.
    public static let writer: DurableWrite = { path, bytes in try replace(path, with: bytes) }
}
