import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small files written so that a crash leaves either the old file or the new one: temporary file in the same
/// directory, write all, `fsync`, `rename` over the target, `fsync` the directory.
enum DurableFile {
    /// Why a durable write failed: the system call and its errno (for the operator's log only).
    struct Failure: Error, CustomStringConvertible {
        let operation: String
        let path: String
        let code: Int32
        var description: String { "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// Replaces `path` with `bytes` atomically and durably.
    static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(operation: "open", path: temporary, code: errno) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                unlink(temporary)
                throw Failure(operation: "write", path: temporary, code: code)
            }
            written += result
        }
        guard fsync(fd) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw Failure(operation: "fsync", path: temporary, code: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(operation: "rename", path: path, code: code)
        }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw Failure(operation: "open", path: directory, code: errno) }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { throw Failure(operation: "fsync", path: directory, code: errno) }
    }
}
