import LiveryCrypto
import LiveryProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's file operations on the system-call layer (`SystemCalls`), each failure turned into
/// `StoreError.io` in one place (``mapped(_:)``).
///
/// Durable writes are `DurableFile`'s (temporary file in the target's directory, write all, `fsync`, `rename`
/// over the target, `fsync` the directory). Nothing else in the store writes files in place except the audit
/// log, which is append-only and reconciled on open.
package enum FileIO {
    /// Prefix of every temporary file the store creates (`DurableFile`'s); `FileSkinStore.init` removes leftovers.
    package static let temporaryPrefix = DurableFile.temporaryPrefix

    /// Runs `body`, turning the layer's error into the store's.
    package static func mapped<Result>(_ body: () throws(SystemCallError) -> Result) throws(StoreError) -> Result {
        do {
            return try body()
        } catch {
            throw .io(operation: error.operation, path: error.path ?? "", errno: error.errno)
        }
    }

    /// Opens `path` with `flags` (close-on-exec added), retrying `EINTR`.
    package static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(StoreError) -> Int32 {
        try mapped { () throws(SystemCallError) in try Syscall.open(path, flags, mode: mode) }
    }

    /// Closes `fd`, ignoring errors (a failed close after a successful fsync loses nothing).
    package static func closeFile(_ fd: Int32) {
        Syscall.close(fd)
    }

    /// Writes all of `bytes` to `fd` at `offset` (or at the current position when `offset` is nil).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], offset: Int? = nil, path: String) throws(StoreError) {
        try mapped { () throws(SystemCallError) in try Syscall.writeAll(fd, bytes, at: offset, path: path) }
    }

    /// Flushes `fd`'s data and metadata to the device.
    package static func sync(_ fd: Int32, path: String) throws(StoreError) {
        try mapped { () throws(SystemCallError) in try Syscall.sync(fd, path: path) }
    }

    /// Makes the directory entries of `directory` (creations, renames, removals) durable.
    package static func syncDirectory(_ directory: String) throws(StoreError) {
        try mapped { () throws(SystemCallError) in try SystemPath.syncDirectory(directory) }
    }

    /// Replaces `path` with `bytes` atomically and durably: after a crash at any instant the file holds either
    /// its old content or `bytes`, and once this returns it holds `bytes` even after a power loss.
    ///
    /// - Parameter syncDirectory: pass `false` only when the caller syncs `path`'s directory itself afterwards
    ///   (to batch many files of one directory); until then the rename may not survive a power loss.
    package static func writeAtomically(
        _ bytes: [UInt8], to path: String, syncDirectory shouldSyncDirectory: Bool = true
    ) throws(StoreError) {
        try mapped { () throws(SystemCallError) in
            try DurableFile.replace(path, with: bytes, directorySync: shouldSyncDirectory ? .required : .byCaller)
        }
    }

    /// The whole content of `path`, or nil if it does not exist.
    package static func readIfExists(_ path: String) throws(StoreError) -> [UInt8]? {
        try mapped { () throws(SystemCallError) -> [UInt8]? in
            let file: SystemFile
            do throws(SystemCallError) { file = try SystemFile.open(path, O_RDONLY) } catch {
                if error.errno == ENOENT { return nil }
                throw error
            }
            return try file.readAll()
        }
    }

    /// Calls `body` with successive chunks of `path` (at most `chunkSize` bytes each), without loading it whole.
    package static func forEachChunk(
        of path: String, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(StoreError) {
        try mapped { () throws(SystemCallError) in
            let file = try SystemFile.open(path, O_RDONLY)
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
            defer { chunk.deallocate() }
            while true {
                let count = try file.read(into: chunk)
                if count == 0 { return }
                body(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
            }
        }
    }

    /// The size and lowercase hex SHA-256 of the file at `path`, read whole; nil if it does not exist.
    package static func contentAddress(of path: String) throws(StoreError) -> (size: Int, sha256: String)? {
        var hasher = SHA256()
        var size = 0
        do throws(StoreError) {
            try forEachChunk(of: path) { chunk in
                hasher.update(chunk)
                size += chunk.count
            }
        } catch .io(_, _, ENOENT) {
            return nil
        }
        return (size, Hex.encode(hasher.finalize()))
    }

    /// The size of the file at `path`, or nil if nothing is there.
    package static func fileSize(_ path: String) throws(StoreError) -> Int? {
        try mapped { () throws(SystemCallError) in try SystemPath.status(path).map { Int($0.st_size) } }
    }

    /// Creates `path` as a directory if it is missing, making the creation durable in its parent.
    /// Missing parents are created the same way.
    package static func makeDirectory(_ path: String) throws(StoreError) {
        try mapped { () throws(SystemCallError) in try SystemPath.makeDirectory(path) }
    }

    /// Names in `directory` (without `.` and `..`); empty if it does not exist.
    package static func list(_ directory: String) throws(StoreError) -> [String] {
        try mapped { () throws(SystemCallError) in try SystemPath.list(directory) }
    }

    /// Names in `directory`, or nil if `directory` is not a directory.
    package static func listIfDirectory(_ directory: String) throws(StoreError) -> [String]? {
        do {
            return try list(directory)
        } catch {
            if case .io(_, _, let code) = error, code == ENOTDIR { return nil }
            throw error
        }
    }

    /// Removes the file at `path`; a missing file is not an error.
    package static func remove(_ path: String) throws(StoreError) {
        try mapped { () throws(SystemCallError) in try SystemPath.removeIfPresent(path) }
    }

    /// Truncates `fd` to `length` bytes.
    package static func truncate(_ fd: Int32, to length: Int, path: String) throws(StoreError) {
        try mapped { () throws(SystemCallError) in try Syscall.truncate(fd, to: length, path: path) }
    }

    /// Takes an exclusive advisory lock on `fd` without waiting; false if someone else holds it.
    package static func tryLock(_ fd: Int32, path: String) throws(StoreError) -> Bool {
        try mapped { () throws(SystemCallError) in try Syscall.tryLock(fd, path: path) }
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a root child).
    package static func parent(of path: String) -> String {
        SystemPath.directory(of: path)
    }
}
