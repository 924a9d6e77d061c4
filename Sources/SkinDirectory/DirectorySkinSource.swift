import SkinModel
import SystemCalls

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
/// path that is not a plain relative path, or that meets a symlink in any component (`SystemFile.openBeneath`:
/// `O_NOFOLLOW` on every component, walked with `openat` from the skin folder), so a skin can never make Livery
/// read outside its folder.
public struct DirectorySkinSource: SkinSource {
    /// The deepest folder nesting listed.
    public static let maximumDepth = 32

    /// The folder as given.
    public let path: String

    public init(path: String) { self.path = path }

    public func listFiles() throws(SkinSourceError) -> [SkinFile] {
        // The root itself may be reached through a symlink (skins/x -> /srv/x); only what is inside is checked.
        let found: stat?
        do throws(SystemCallError) { found = try SystemPath.status(path) } catch {
            if error.errno == ENOTDIR { throw .rootNotFound }
            throw .unreadable("", reason: error.reason)
        }
        guard let info = found else { throw .rootNotFound }
        guard DirectorySkinSource.isDirectory(info.st_mode) else { throw .rootNotADirectory }
        var files: [SkinFile] = []
        try list(relative: [], depth: 0, into: &files)
        return files.sorted { bytewiseLess($0.path, $1.path) }
    }

    private func list(relative: [UInt8], depth: Int, into files: inout [SkinFile]) throws(SkinSourceError) {
        let shown = DirectorySkinSource.display(relative)
        guard depth <= DirectorySkinSource.maximumDepth else { throw .tooDeep(shown) }
        let directoryPath = relative.isEmpty ? Array(path.utf8) : Array(path.utf8) + [UInt8(ascii: "/")] + relative
        let names: [[UInt8]]
        do throws(SystemCallError) { names = try SystemPath.listBytes(directoryPath) } catch {
            throw .unreadable(shown, reason: error.reason)
        }
        for name in names {
            let childRelative = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
            let childPath = Array(path.utf8) + [UInt8(ascii: "/")] + childRelative
            let info: stat
            do throws(SystemCallError) { info = try SystemPath.linkStatus(childPath) } catch {
                throw .unreadable(DirectorySkinSource.display(childRelative), reason: error.reason)
            }
            let validName = String(validating: childRelative, as: UTF8.self) != nil
            let shownChild = DirectorySkinSource.display(childRelative)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                try list(relative: childRelative, depth: depth + 1, into: &files)
            case S_IFREG:
                files.append(
                    SkinFile(path: shownChild, size: Int(info.st_size), kind: .regular, nameIsValidUTF8: validName))
            case S_IFLNK:
                files.append(
                    SkinFile(path: shownChild, size: Int(info.st_size), kind: .symlink, nameIsValidUTF8: validName))
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
            guard let info = try? SystemPath.linkStatus(prefix), info.st_mode & S_IFMT != S_IFLNK else { return nil }
        }
        guard let info = try? SystemPath.linkStatus(prefix), info.st_mode & S_IFMT == S_IFREG else { return nil }
        return prefix
    }

    private func readBytes(_ relativePath: String, limit: Int?) throws(SkinSourceError) -> [UInt8] {
        guard AssetPath.problem(in: relativePath) == nil else { throw .refusedPath(relativePath) }
        // O_NONBLOCK (openBeneath's): opening a FIFO planted after listing must not block; it is refused below.
        let outcome = Result { () throws(SystemCallError) -> [UInt8]? in
            let file = try SystemFile.openBeneath(relativePath, in: path)
            guard try file.status().isRegular else { return nil }
            return try file.readAll(limit: limit)
        }
        switch outcome {
        case .success(let bytes?):
            return bytes
        case .success(nil):
            throw .notARegularFile(relativePath)
        case .failure(let error):
            switch error.errno {
            case ENOENT: throw .notFound(relativePath)
            case ELOOP, ENOTDIR, EINVAL: throw .refusedPath(relativePath)
            default: throw .unreadable(relativePath, reason: error.reason)
            }
        }
    }

    // MARK: Helpers

    /// The `/`-separated segments of `relativePath`, split on bytes: `String.split` works on grapheme clusters,
    /// so `a/\u{301}b` would stay one segment and the folder `a` would never be checked for being a symlink.
    private static func segments(of relativePath: String) -> [String] {
        relativePath.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func isDirectory(_ mode: mode_t) -> Bool { mode & S_IFMT == S_IFDIR }

    private static func display(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
