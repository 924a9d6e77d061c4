import LiveryCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls the store makes, each checked, retried on `EINTR`, and turned into `StoreError.io`.
///
/// The durable-write recipe lives here (`writeAtomically`): temporary file in the target's directory,
/// write all, `fsync`, `rename` over the target, `fsync` the directory. Nothing else in the store writes files
/// in place except the audit log, which is append-only and reconciled on open.
package enum FileIO {
    /// Prefix of every temporary file the store creates; `FileSkinStore.init` removes leftovers.
    package static let temporaryPrefix = ".tmp-"

    /// Opens `path` with `flags`, retrying `EINTR`.
    package static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(StoreError) -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw .io(operation: "open", path: path, errno: errno)
        }
    }

    /// Closes `fd`, ignoring errors (a failed close after a successful fsync loses nothing).
    package static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// Writes all of `bytes` to `fd` at `offset` (or at the current position when `offset` is nil).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], offset: Int? = nil, path: String) throws(StoreError) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                if let offset {
                    return pwrite(fd, base + done, buffer.count - done, off_t(offset + done))
                }
                return write(fd, base + done, buffer.count - done)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "write", path: path, errno: errno)
            }
            done += result
        }
    }

    /// Flushes `fd`'s data and metadata to the device.
    package static func sync(_ fd: Int32, path: String) throws(StoreError) {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw .io(operation: "fsync", path: path, errno: errno)
        }
    }

    /// Makes the directory entries of `directory` (creations, renames, removals) durable.
    package static func syncDirectory(_ directory: String) throws(StoreError) {
        let fd = try openFile(directory, O_RDONLY | O_DIRECTORY)
        defer { closeFile(fd) }
        try sync(fd, path: directory)
    }

    /// Replaces `path` with `bytes` atomically and durably: after a crash at any instant the file holds either
    /// its old content or `bytes`, and once this returns it holds `bytes` even after a power loss.
    ///
    /// - Parameter syncDirectory: pass `false` only when the caller syncs `path`'s directory itself afterwards
    ///   (to batch many files of one directory); until then the rename may not survive a power loss.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, syncDirectory shouldSyncDirectory: Bool = true) throws(StoreError) {
        let temporary = try writeTemporary(bytes, in: parent(of: path))
        try replace(path, with: temporary)
        if shouldSyncDirectory { try syncDirectory(parent(of: path)) }
    }

    /// Writes `bytes` to a new temporary file in `directory` and fsyncs it; returns its path.
    /// On failure nothing is left behind.
    package static func writeTemporary(_ bytes: [UInt8], in directory: String) throws(StoreError) -> String {
        let temporary = directory + "/" + temporaryPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd = try openFile(temporary, O_WRONLY | O_CREAT | O_EXCL)
        do throws(StoreError) {
            try writeAll(fd, bytes, path: temporary)
            try sync(fd, path: temporary)
            closeFile(fd)
        } catch {
            closeFile(fd)
            _ = unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Renames `temporary` over `path` (atomic on POSIX file systems); removes `temporary` if that fails.
    /// The new name is durable only once the directory is synced.
    package static func replace(_ path: String, with temporary: String) throws(StoreError) {
        if rename(temporary, path) != 0 {
            let code = errno
            _ = unlink(temporary)
            throw .io(operation: "rename", path: path, errno: code)
        }
    }

    /// The whole content of `path`, or nil if it does not exist.
    package static func readIfExists(_ path: String) throws(StoreError) -> [UInt8]? {
        let fd: Int32
        do { fd = try openFile(path, O_RDONLY) } catch {
            if case .io(_, _, let code) = error, code == ENOENT { return nil }
            throw error
        }
        defer { closeFile(fd) }
        var result = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    /// Calls `body` with successive chunks of `path` (at most `chunkSize` bytes each), without loading it whole.
    package static func forEachChunk(of path: String, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Void) throws(StoreError) {
        let fd = try openFile(path, O_RDONLY)
        defer { closeFile(fd) }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return }
            chunk.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// The size of the regular file at `path`, or nil if nothing is there.
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

    package static func fileSize(_ path: String) throws(StoreError) -> Int? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw .io(operation: "stat", path: path, errno: errno)
        }
        return Int(info.st_size)
    }

    /// Creates `path` as a directory if it is missing, making the creation durable in its parent.
    /// Missing parents are created the same way.
    package static func makeDirectory(_ path: String) throws(StoreError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .io(operation: "mkdir", path: path, errno: ENOTDIR) }
            return
        }
        let parentPath = parent(of: path)
        if parentPath != path { try makeDirectory(parentPath) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw .io(operation: "mkdir", path: path, errno: errno)
        }
        try syncDirectory(parentPath)
    }

    /// Names in `directory` (without `.` and `..`); empty if it does not exist.
    package static func list(_ directory: String) throws(StoreError) -> [String] {
        guard let handle = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw .io(operation: "opendir", path: directory, errno: errno)
        }
        defer { closedir(handle) }
        var names = [String]()
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
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
        if unlink(path) != 0 && errno != ENOENT {
            throw .io(operation: "unlink", path: path, errno: errno)
        }
    }

    /// Truncates `fd` to `length` bytes.
    package static func truncate(_ fd: Int32, to length: Int, path: String) throws(StoreError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno == EINTR { continue }
            throw .io(operation: "ftruncate", path: path, errno: errno)
        }
    }

    /// Takes an exclusive advisory lock on `fd` without waiting; false if someone else holds it.
    package static func tryLock(_ fd: Int32, path: String) throws(StoreError) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw .io(operation: "flock", path: path, errno: errno)
        }
        return true
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a root child).
    package static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }
}
