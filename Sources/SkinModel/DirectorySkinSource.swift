#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A skin folder on disk.
///
/// Listing uses `lstat`, so symbolic links are reported as ``SkinFile/Kind/symlink`` and never followed, and
/// file names are read as raw bytes so non-UTF-8 names are detected rather than mangled. Reading refuses any
/// path that is not a plain relative path, that passes through a symlinked folder, or whose last component is
/// a symlink (`O_NOFOLLOW`), so a skin can never make Livery read outside its folder.
public struct DirectorySkinSource: SkinSource {
    /// The deepest folder nesting listed.
    public static let maximumDepth = 32

    /// The folder as given.
    public let path: String

    public init(path: String) { self.path = path }

    public func listFiles() throws(SkinSourceError) -> [SkinFile] {
        var info = stat()
        // The root itself may be reached through a symlink (skins/x -> /srv/x); only what is inside is checked.
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .rootNotFound }
            throw .unreadable("", reason: DirectorySkinSource.errorText(errno))
        }
        guard DirectorySkinSource.isDirectory(info.st_mode) else { throw .rootNotADirectory }
        var files: [SkinFile] = []
        try list(relative: [], depth: 0, into: &files)
        return files.sorted { bytewiseLess($0.path, $1.path) }
    }

    private func list(relative: [UInt8], depth: Int, into files: inout [SkinFile]) throws(SkinSourceError) {
        let shown = DirectorySkinSource.display(relative)
        guard depth <= DirectorySkinSource.maximumDepth else { throw .tooDeep(shown) }
        let directoryPath = relative.isEmpty ? Array(path.utf8) : Array(path.utf8) + [UInt8(ascii: "/")] + relative
        guard let directory = opendir(DirectorySkinSource.cString(directoryPath)) else {
            throw .unreadable(shown, reason: DirectorySkinSource.errorText(errno))
        }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .unreadable(shown, reason: DirectorySkinSource.errorText(errno)) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
        for name in names {
            let childRelative = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
            let childPath = Array(path.utf8) + [UInt8(ascii: "/")] + childRelative
            var info = stat()
            let status = lstat(DirectorySkinSource.cString(childPath), &info)
            guard status == 0 else {
                throw .unreadable(DirectorySkinSource.display(childRelative), reason: DirectorySkinSource.errorText(errno))
            }
            let validName = String(validating: childRelative, as: UTF8.self) != nil
            let shownChild = DirectorySkinSource.display(childRelative)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                try list(relative: childRelative, depth: depth + 1, into: &files)
            case S_IFREG:
                files.append(SkinFile(path: shownChild, size: Int(info.st_size), kind: .regular, nameIsValidUTF8: validName))
            case S_IFLNK:
                files.append(SkinFile(path: shownChild, size: Int(info.st_size), kind: .symlink, nameIsValidUTF8: validName))
            default:
                files.append(SkinFile(path: shownChild, size: 0, kind: .other, nameIsValidUTF8: validName))
            }
        }
    }

    public func read(_ relativePath: String) throws(SkinSourceError) -> [UInt8] {
        try readBytes(relativePath, limit: nil)
    }

    public func readPrefix(_ relativePath: String, maxBytes: Int) throws(SkinSourceError) -> [UInt8] {
        try readBytes(relativePath, limit: max(0, maxBytes))
    }

    /// The file's path under the skin folder, for a plain relative path whose folders are real folders and whose
    /// last component is a regular file (not a symlink); `nil` otherwise.
    public func filePath(of relativePath: String) -> String? {
        guard AssetPath.problem(in: relativePath) == nil else { return nil }
        var prefix = path
        for segment in DirectorySkinSource.segments(of: relativePath) {
            prefix += "/" + segment
            var info = stat()
            guard lstat(prefix, &info) == 0, info.st_mode & S_IFMT != S_IFLNK else { return nil }
        }
        var info = stat()
        guard lstat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return prefix
    }

    private func readBytes(_ relativePath: String, limit: Int?) throws(SkinSourceError) -> [UInt8] {
        guard AssetPath.problem(in: relativePath) == nil else { throw .refusedPath(relativePath) }
        // Every folder on the way must be a real folder, not a symlink that could lead outside the skin.
        let segments = DirectorySkinSource.segments(of: relativePath)
        var prefix = path
        for segment in segments.dropLast() {
            prefix += "/" + segment
            var info = stat()
            guard lstat(prefix, &info) == 0 else { throw .notFound(relativePath) }
            guard DirectorySkinSource.isDirectory(info.st_mode), info.st_mode & S_IFMT != S_IFLNK else {
                throw .refusedPath(relativePath)
            }
        }
        // O_NONBLOCK: opening a FIFO planted after listing must not block; it is refused by fstat below.
        let descriptor = open(path + "/" + relativePath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: throw .notFound(relativePath)
            case ELOOP: throw .refusedPath(relativePath)
            default: throw .unreadable(relativePath, reason: DirectorySkinSource.errorText(errno))
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .unreadable(relativePath, reason: DirectorySkinSource.errorText(errno))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(relativePath) }
        let wanted = limit.map { min($0, Int(info.st_size)) } ?? Int(info.st_size)
        // Read straight into the result, sized by fstat: no zero-filled chunk buffer and no second copy (this
        // runs for every file of a skin, including the 12-byte magic-number reads of each image).
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            while initialized < wanted, let base = buffer.baseAddress {
                let count = systemRead(descriptor, base + initialized, wanted - initialized)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if count == 0 { return }
                initialized += count
            }
        }
        if failure != 0 { throw .unreadable(relativePath, reason: DirectorySkinSource.errorText(failure)) }
        // A file that ended early is done; one that filled the buffer may have grown since fstat: read on.
        guard bytes.count == wanted else { return bytes }
        var chunk = [UInt8]()
        while limit.map({ bytes.count < $0 }) ?? true {
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 64 * 1024) }
            let room = limit.map { min(chunk.count, $0 - bytes.count) } ?? chunk.count
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, room) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(relativePath, reason: DirectorySkinSource.errorText(errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    // MARK: Helpers

    /// The `/`-separated segments of `relativePath`, split on bytes: `String.split` works on grapheme clusters,
    /// so `a/\u{301}b` would stay one segment and the folder `a` would never be checked for being a symlink.
    private static func segments(of relativePath: String) -> [String] {
        relativePath.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func isDirectory(_ mode: mode_t) -> Bool { mode & S_IFMT == S_IFDIR }

    /// A NUL-terminated copy of raw path bytes (which need not be UTF-8), for passing to C.
    private static func cString(_ bytes: [UInt8]) -> [CChar] { (bytes + [0]).map { CChar(bitPattern: $0) } }

    private static func display(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// `read(2)`, named apart from ``DirectorySkinSource/read(_:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
