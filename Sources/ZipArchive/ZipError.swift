import SystemCalls
import ZipReading

/// Why writing an archive failed.
///
/// `code` is stable and `message` is safe to show a client: neither contains a file path, an errno value or an
/// entry name. Those are in `path`, `entryName` and `logDescription` for logs and operators.
public enum ZipError: Error, Equatable, Sendable {
    /// An entry name breaks a rule of `ZipEntryName`.
    case invalidEntryName(name: String, violation: ZipEntryName.Violation)
    /// Two entries have the same name (byte for byte).
    case duplicateEntryName(ZipEntryName)
    /// `.deflate(level:)` or `Options.deflateLevel` outside 0...9.
    case invalidCompressionLevel(Int)
    /// An option is outside its documented range.
    case invalidOption(String)
    /// A source file could not be opened, inspected or read; `errno` is the system error number.
    case sourceUnreadable(path: String, errno: Int32)
    /// A source path is not a regular file (a directory, FIFO, device or socket).
    case sourceNotRegularFile(path: String)
    /// A source path is a symbolic link (or leads through a loop of them). Links are never followed, so a
    /// checked file swapped for a link to somewhere else is refused rather than archived.
    case sourceIsSymbolicLink(path: String)
    /// A source file changed size or content while the archive was being written.
    case sourceChanged(path: String)
    /// Writing the archive failed; `path` is the destination file when there is one, `detail` says why for logs.
    case outputFailed(path: String?, detail: String)
    /// The temporary spill file for a large deflated entry could not be created, written or read.
    case temporaryStorageFailed(detail: String)
    /// zlib returned an unexpected code (never seen with valid parameters).
    case compressionFailed(zlibCode: Int32)

    /// A stable identifier for programs, in snake_case.
    public var code: String {
        switch self {
        case .invalidEntryName: "invalid_entry_name"
        case .duplicateEntryName: "duplicate_entry_name"
        case .invalidCompressionLevel: "invalid_compression_level"
        case .invalidOption: "invalid_option"
        case .sourceUnreadable: "source_unreadable"
        case .sourceNotRegularFile: "source_not_regular_file"
        case .sourceIsSymbolicLink: "source_is_symbolic_link"
        case .sourceChanged: "source_changed"
        case .outputFailed: "output_failed"
        case .temporaryStorageFailed: "temporary_storage_failed"
        case .compressionFailed: "compression_failed"
        }
    }

    /// A sentence for humans with no path, errno value or entry name in it.
    public var message: String {
        switch self {
        case .invalidEntryName(_, let violation): "An entry name is invalid: \(violation.explanation)."
        case .duplicateEntryName: "Two entries have the same name."
        case .invalidCompressionLevel(let level): "Compression level \(level) is outside 0...9."
        case .invalidOption(let what): "Invalid writer option: \(what)."
        case .sourceUnreadable: "A source file could not be read."
        case .sourceNotRegularFile: "A source is not a regular file."
        case .sourceIsSymbolicLink: "A source is a symbolic link, which is never followed."
        case .sourceChanged: "A source file changed while the archive was being written."
        case .outputFailed: "The archive could not be written."
        case .temporaryStorageFailed: "Temporary storage for compression failed."
        case .compressionFailed: "Compression failed."
        }
    }

    /// The file involved, if any (a source file or the destination); for logs, not for clients.
    public var path: String? {
        switch self {
        case .sourceUnreadable(let path, _), .sourceNotRegularFile(let path), .sourceIsSymbolicLink(let path),
            .sourceChanged(let path):
            path
        case .outputFailed(let path, _): path
        default: nil
        }
    }

    /// The entry name involved, if any.
    public var entryName: String? {
        switch self {
        case .invalidEntryName(let name, _): name
        case .duplicateEntryName(let name): name.rawValue
        default: nil
        }
    }

    /// Everything known about the failure, including paths and system error text; for logs only.
    public var logDescription: String {
        var parts = ["\(code): \(message)"]
        if let entryName { parts.append("entry=\(entryName)") }
        if let path { parts.append("path=\(path)") }
        switch self {
        case .sourceUnreadable(_, let errno): parts.append("errno=\(errno) (\(SystemCallError.text(errno)))")
        case .outputFailed(_, let detail), .temporaryStorageFailed(let detail): parts.append(detail)
        case .compressionFailed(let code): parts.append("zlib=\(code)")
        default: break
        }
        return parts.joined(separator: " ")
    }
}

extension ZipError: CustomStringConvertible {
    /// The code and the client-safe message (never a path).
    public var description: String { "\(code): \(message)" }
}
