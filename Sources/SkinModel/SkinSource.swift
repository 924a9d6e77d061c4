/// Where a skin's files come from: a folder on disk, or an uploaded zip held in memory.
///
/// Implementations never follow symbolic links and refuse paths that leave the skin.
public protocol SkinSource: Sendable {
    /// Every file under the skin root (directories themselves are not listed), sorted bytewise by path.
    func listFiles() throws(SkinSourceError) -> [SkinFile]

    /// The whole content of the regular file at `path` (a path from ``listFiles()``).
    func read(_ path: String) throws(SkinSourceError) -> [UInt8]

    /// At most the first `maxBytes` bytes of the file at `path` (for magic-number checks).
    func readPrefix(_ path: String, maxBytes: Int) throws(SkinSourceError) -> [UInt8]

    /// An absolute file-system path holding exactly the bytes of `path`, when the source has one, so large files
    /// can be streamed instead of read whole; `nil` for sources that only have bytes (such as uploads in memory).
    func filePath(of path: String) -> String?
}

extension SkinSource {
    /// Reads the whole file and keeps the prefix; sources that can read less should override this.
    public func readPrefix(_ path: String, maxBytes: Int) throws(SkinSourceError) -> [UInt8] {
        Array(try read(path).prefix(maxBytes))
    }

    /// No file-system path by default.
    public func filePath(of path: String) -> String? { nil }
}

/// Why a ``SkinSource`` could not list or read. Messages name the skin-relative path, never an absolute one.
public enum SkinSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The skin root does not exist.
    case rootNotFound
    /// The skin root is not a directory.
    case rootNotADirectory
    /// No file at this path.
    case notFound(String)
    /// The path is not a plain relative path inside the skin, or goes through a symlink.
    case refusedPath(String)
    /// The path is not a regular file.
    case notARegularFile(String)
    /// The operating system refused (permissions, I/O error); `reason` is the system's message.
    case unreadable(String, reason: String)
    /// Folders nest deeper than the source allows.
    case tooDeep(String)

    public var description: String {
        switch self {
        case .rootNotFound: "the skin folder does not exist"
        case .rootNotADirectory: "the skin path is not a folder"
        case .notFound(let path): "\(path): no such file"
        case .refusedPath(let path): "\(path): refused (not a plain path inside the skin)"
        case .notARegularFile(let path): "\(path): not a regular file"
        case .unreadable(let path, let reason): "\(path.isEmpty ? "." : path): cannot read (\(reason))"
        case .tooDeep(let path): "\(path): folders nested too deeply"
        }
    }
}
