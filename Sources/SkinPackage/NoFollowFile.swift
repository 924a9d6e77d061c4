#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file opened for reading without following a symbolic link in its last component (`O_NOFOLLOW`),
/// so a skin file swapped for a link after validation is refused instead of read through the link. Owns its
/// descriptor and closes it exactly once.
struct NoFollowFile: ~Copyable {
    /// Why a file could not be opened or read.
    enum Failure: Error, Equatable {
        /// The path's last component is a symbolic link (or the path loops through links).
        case symbolicLink
        /// Not a regular file (a directory, FIFO, device or socket).
        case notRegularFile
        /// Any other system error, by errno.
        case system(Int32)
    }

    private let descriptor: Int32

    /// Opens `path`; `O_NONBLOCK` so a FIFO planted in its place cannot hang the open (it is then refused).
    init(path: String) throws(Failure) {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw errno == ELOOP ? .symbolicLink : .system(errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let failure = errno
            close(descriptor)
            throw .system(failure)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .notRegularFile
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Reads up to `buffer.count` bytes into the start of `buffer`; 0 only at the end of the file. Retries `EINTR`.
    func read(into buffer: inout [UInt8]) throws(Failure) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno != EINTR { throw .system(errno) }
        }
    }
}

/// `read(2)`, named apart from ``NoFollowFile/read(into:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
