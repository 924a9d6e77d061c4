/// Replaces the file at `path` with `bytes` atomically and durably: a crash leaves either the old file or the new
/// one (temporary file, fsync, rename, directory fsync).
///
/// The process supplies it (the server passes `DurableFile.replace`), so the serving core carries no system-call
/// code of its own; tests may pass any writer.
public typealias DurableWrite = @Sendable (_ path: String, _ bytes: [UInt8]) throws -> Void
