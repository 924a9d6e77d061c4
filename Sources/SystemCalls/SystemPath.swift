#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Path operations that do not need an open file. Each throws a ``SystemCallError`` naming its path.
public enum SystemPath {
    /// Renames `from` over `to` (atomic on POSIX file systems; durable once the directory is synced).
    public static func rename(_ from: String, to: String) throws(SystemCallError) {
        guard Glibc.rename(from, to) == 0 else { throw Syscall.lastFailure("rename", path: to) }
    }

    /// A second name `to` for the file `from`; fails with `EEXIST` when `to` exists (even as a dangling link).
    public static func link(_ from: String, to: String) throws(SystemCallError) {
        guard Glibc.link(from, to) == 0 else { throw Syscall.lastFailure("link", path: to) }
    }

    /// Removes the file at `path`; whether it did. Callers that clean up temporary files ignore the result.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// Whether something is at `path` (following links); one `access(F_OK)`, cheaper than a `stat`.
    public static func exists(_ path: String) -> Bool {
        path.withCString { access($0, F_OK) } == 0
    }

    /// The file system holding `path` (`statvfs`): whether it is mounted read-only, and the blocks left for an
    /// unprivileged writer.
    public static func fileSystem(of path: String) throws(SystemCallError) -> (readOnly: Bool, blocksAvailable: UInt64)
    {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw Syscall.lastFailure("statvfs", path: path) }
        return (info.f_flag & UInt(ST_RDONLY) != 0, UInt64(info.f_bavail))
    }

    /// Checks that this process may use `path` as `mode` says (`R_OK`, `W_OK`, `X_OK`, or'ed), with its real ids
    /// (`access`); throws operation `access` with the reason otherwise.
    public static func checkAccess(_ path: String, _ mode: Int32) throws(SystemCallError) {
        guard access(path, mode) == 0 else { throw Syscall.lastFailure("access", path: path) }
    }

    /// Removes the file at `path`; a missing file is not an error.
    public static func removeIfPresent(_ path: String) throws(SystemCallError) {
        if unlink(path) != 0 && SystemCallError.currentErrno() != ENOENT {
            throw Syscall.lastFailure("unlink", path: path)
        }
    }

    /// `stat` of `path` following links; nil if nothing is there (`ENOENT`).
    public static func status(_ path: String) throws(SystemCallError) -> stat? {
        var info = stat()
        if stat(path, &info) == 0 { return info }
        if SystemCallError.currentErrno() == ENOENT { return nil }
        throw Syscall.lastFailure("stat", path: path)
    }

    /// `lstat` of `path`: a symbolic link is reported as itself, never followed.
    public static func linkStatus(_ path: String) throws(SystemCallError) -> stat {
        try linkStatus(Array(path.utf8))
    }

    /// `lstat` of the raw path bytes `path` (which need not be UTF-8).
    public static func linkStatus(_ path: [UInt8]) throws(SystemCallError) -> stat {
        var info = stat()
        guard withCString(path, { lstat($0, &info) }) == 0 else {
            throw Syscall.lastFailure("lstat", path: shown(path))
        }
        return info
    }

    /// Creates `path` as a directory if it is missing, making the creation durable in its parent.
    /// Missing parents are created the same way.
    public static func makeDirectory(_ path: String) throws(SystemCallError) {
        if let info = try status(path) {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemCallError("mkdir", path: path, errno: ENOTDIR) }
            return
        }
        let parentPath = directory(of: path)
        if parentPath != path { try makeDirectory(parentPath) }
        if mkdir(path, 0o755) != 0 && SystemCallError.currentErrno() != EEXIST {
            throw Syscall.lastFailure("mkdir", path: path)
        }
        try syncDirectory(parentPath)
    }

    /// Makes the directory entries of `directory` (creations, renames, removals) durable.
    public static func syncDirectory(_ directory: String) throws(SystemCallError) {
        try SystemFile.openDirectory(directory).sync()
    }

    /// Names in `directory` as raw bytes (which need not be UTF-8), without `.` and `..`.
    public static func listBytes(_ directory: String) throws(SystemCallError) -> [[UInt8]] {
        try listBytes(Array(directory.utf8))
    }

    /// Names in the folder at the raw path bytes `directory` (which need not be UTF-8), without `.` and `..`.
    public static func listBytes(_ directory: [UInt8]) throws(SystemCallError) -> [[UInt8]] {
        guard let handle = withCString(directory, { opendir($0) }) else {
            throw Syscall.lastFailure("opendir", path: shown(directory))
        }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(handle) else {
                if errno != 0 { throw Syscall.lastFailure("readdir", path: shown(directory)) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
    }

    /// Names in `directory` (without `.` and `..`); empty if it does not exist.
    public static func list(_ directory: String) throws(SystemCallError) -> [String] {
        do {
            return try listBytes(directory).map { String(decoding: $0, as: UTF8.self) }
        } catch {
            if error.errno == ENOENT { return [] }
            throw error
        }
    }

    /// Calls `body` with a NUL-terminated copy of raw path bytes.
    private static func withCString<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        let cString = bytes.map { CChar(bitPattern: $0) } + [0]
        return body(cString)
    }

    /// Raw path bytes as text for messages (invalid UTF-8 shown as U+FFFD).
    private static func shown(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The directory part of `path` (`"."` when there is none, `/` for a root child).
    public static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of `path`.
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
