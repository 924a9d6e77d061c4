#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one crash-safe write: files written so that a crash at any instant leaves either the old file or the new
/// one, and once a write returns the new one survives a power loss.
///
/// The recipe: a new temporary file in the target's folder (so the rename cannot cross file systems), named
/// `.tmp-<name>-XXXXXX` (``temporaryPrefix``; whoever owns the folder removes leftovers of a crash by that prefix),
/// written whole, given its mode, `fsync`ed, renamed over the target (or linked to it, for ``create(_:with:mode:)``),
/// and the folder `fsync`ed. On any failure before the rename the temporary file is removed and the target is
/// untouched.
public enum DurableFile {
    /// The start of every temporary file's name.
    public static let temporaryPrefix = ".tmp-"

    /// Whether the folder is synced after the rename.
    public enum DirectorySync: Sendable {
        /// Synced before returning; a failure throws (the new content is in place, but not yet durable).
        case required
        /// Synced before returning; a failure is ignored (for rebuildable files, where the caller must not be told
        /// that a complete file is missing).
        case bestEffort
        /// Not synced: the caller syncs the folder itself afterwards (``SystemPath/syncDirectory(_:)``), to batch
        /// many files of one folder. Until then the rename may not survive a power loss.
        case byCaller
    }

    /// Replaces `path` with `bytes` atomically and durably.
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t = 0o644, directorySync: DirectorySync = .required
    ) throws(SystemCallError) {
        try replace(path, mode: mode, directorySync: directorySync, mapError: { $0 }) { file throws(SystemCallError) in
            try file.writeAll(bytes)
        }
    }

    /// Replaces `path` with whatever `body` writes to the temporary file it is given, atomically and durably.
    /// If `body` throws, its error is rethrown and `path` is untouched. System-call failures are turned into
    /// the caller's error type by `mapError`.
    public static func replace<Failure: Error>(
        _ path: String, mode: mode_t = 0o644, directorySync: DirectorySync = .required,
        mapError: (SystemCallError) -> Failure, writing body: (borrowing SystemFile) throws(Failure) -> Void
    ) throws(Failure) {
        try commit(path, mode: mode, directorySync: directorySync, mapError: mapError, writing: body) {
            (temporary) throws(SystemCallError) in try SystemPath.rename(temporary, to: path)
        }
    }

    /// Creates the new file `path` holding `bytes` with exactly `mode`, durably, never over an existing file (or a
    /// symbolic link, even a dangling one): the temporary file is linked to `path` (`link(2)` fails with `EEXIST`),
    /// so two concurrent writers cannot both win and no one ever sees a half-written file.
    public static func create(_ path: String, with bytes: [UInt8], mode: mode_t) throws(SystemCallError) {
        try commit(
            path, mode: mode, directorySync: .required, mapError: { $0 },
            writing: { file throws(SystemCallError) in
                try file.writeAll(bytes)
            }
        ) { (temporary) throws(SystemCallError) in
            defer { SystemPath.remove(temporary) }
            try SystemPath.link(temporary, to: path)
        }
    }

    private static func commit<Failure: Error>(
        _ path: String, mode: mode_t, directorySync: DirectorySync, mapError: (SystemCallError) -> Failure,
        writing body: (borrowing SystemFile) throws(Failure) -> Void,
        publish: (String) throws(SystemCallError) -> Void
    ) throws(Failure) {
        let directory = SystemPath.directory(of: path)
        let template = "\(directory)/\(temporaryPrefix)\(SystemPath.lastComponent(of: path))-XXXXXX"
        var temporary = ""
        do throws(Failure) {
            let file: SystemFile
            do throws(SystemCallError) {
                file = try SystemFile.createUnique(template: template, path: &temporary)
            } catch {
                throw mapError(error)
            }
            try body(file)
            do throws(SystemCallError) {
                // The umask can only clear bits of `mode`; fchmod makes it exact.
                try file.setMode(mode)
                try file.sync()
            } catch {
                throw mapError(error)
            }
        } catch {
            if !temporary.isEmpty { SystemPath.remove(temporary) }
            throw error
        }
        do throws(SystemCallError) {
            try publish(temporary)
        } catch {
            SystemPath.remove(temporary)
            throw mapError(error)
        }
        switch directorySync {
        case .required:
            do throws(SystemCallError) { try SystemPath.syncDirectory(directory) } catch { throw mapError(error) }
        case .bestEffort:
            try? SystemPath.syncDirectory(directory)
        case .byCaller:
            break
        }
    }
}
