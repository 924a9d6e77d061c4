#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Path operations that do not need an open file.
enum SystemPath {
    static func rename(_ from: String, to: String) throws(SystemError) {
        #if canImport(Glibc)
        let result = Glibc.rename(from, to)
        #elseif canImport(Musl)
        let result = Musl.rename(from, to)
        #else
        let result = Darwin.rename(from, to)
        #endif
        guard result == 0 else { throw SystemError("rename") }
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// The directory part of `path` (`"."` when there is none).
    static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of `path`.
    static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
