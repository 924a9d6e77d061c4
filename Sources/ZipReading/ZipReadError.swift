/// Why an uploaded archive was rejected by `ZipArchiveReader`.
///
/// Each case has a stable `code` for HTTP error bodies and a `message` that quotes no input: entry names are
/// in `entryName` (decoded lossily if they are not UTF-8) so the caller can put them in structured details.
public enum ZipReadError: Error, Equatable, Sendable {
    /// No end-of-central-directory record and the bytes do not start like a zip.
    case notAZip
    /// The bytes start like a zip but records are cut off, or point past the end.
    case truncated
    /// Records are inconsistent; `reason` is a fixed sentence (never input).
    case corrupt(reason: String)
    /// A name that could write outside the extraction folder: `..`, absolute, backslash, drive letter.
    case unsafePath(name: String)
    /// A name breaking another naming rule: control characters, empty or `.` segments, longer or deeper than
    /// `Limits.maxNameLength` / `Limits.maxPathDepth`.
    case invalidName(name: String)
    /// A name whose bytes are not valid UTF-8 (whatever the UTF-8 flag says): an archiver that wrote the name in
    /// a legacy code page (CP437, GBK, Shift-JIS).
    case nonUTF8Name(name: String)
    /// An entry whose UNIX mode says symbolic link.
    case symlink(name: String)
    /// An entry whose UNIX mode says FIFO, device or socket.
    case specialFile(name: String)
    /// Two entries whose names are equal, or equal ignoring case and Unicode normalization.
    case duplicateEntry(name: String)
    /// A file whose path is also a directory (its own entry, or the parent of another entry).
    case pathConflict(name: String)
    /// More entries than `Limits.maxEntries`.
    case tooManyEntries(count: UInt64, limit: Int)
    /// An entry declares more uncompressed bytes than `Limits.maxEntryUncompressed`.
    case entryTooLarge(name: String, size: UInt64, limit: UInt64)
    /// The entries declare more uncompressed bytes in total than `Limits.maxTotalUncompressed`.
    case archiveTooLarge(size: UInt64, limit: UInt64)
    /// An entry (or, with `name` nil, the whole archive) expands more than `Limits.maxCompressionRatio`.
    case compressionRatioExceeded(name: String?, limit: UInt64)
    /// Inflating produced more, or fewer, bytes than the entry declares; inflation stopped at once.
    case sizeMismatch(name: String)
    /// An encrypted entry (flag bit 0 or 6, a masked header, or AES method 99).
    case encrypted(name: String)
    /// A compression method other than stored (0) or deflated (8).
    case unsupportedCompression(name: String, method: UInt16)
    /// The CRC-32 of the extracted bytes differs from the declared one.
    case crcMismatch(name: String)
    /// zlib could not allocate memory for inflating.
    case outOfMemory

    /// A stable identifier for programs, in snake_case.
    public var code: String {
        switch self {
        case .notAZip: "not_a_zip"
        case .truncated: "truncated_archive"
        case .corrupt: "corrupt_archive"
        case .unsafePath: "unsafe_path"
        case .invalidName: "invalid_entry_name"
        case .nonUTF8Name: "non_utf8_name"
        case .symlink: "symlink_entry"
        case .specialFile: "special_file_entry"
        case .duplicateEntry: "duplicate_entry"
        case .pathConflict: "path_conflict"
        case .tooManyEntries: "too_many_entries"
        case .entryTooLarge: "entry_too_large"
        case .archiveTooLarge: "archive_too_large"
        case .compressionRatioExceeded: "compression_ratio_exceeded"
        case .sizeMismatch: "size_mismatch"
        case .encrypted: "encrypted_entry"
        case .unsupportedCompression: "unsupported_compression"
        case .crcMismatch: "crc_mismatch"
        case .outOfMemory: "out_of_memory"
        }
    }

    /// A sentence for humans; safe to return to a client (no entry names, paths or system errors).
    public var message: String {
        switch self {
        case .notAZip: "The upload is not a zip archive."
        case .truncated: "The zip archive is truncated."
        case .corrupt(let reason): "The zip archive is corrupt: \(reason)."
        case .unsafePath: "An entry's path would escape the destination folder (zip slip)."
        case .invalidName: "An entry's name is invalid."
        case .nonUTF8Name:
            "An entry's name is not UTF-8 (it was written in a legacy code page); re-create the archive with a tool "
                + "that stores UTF-8 names (livery push, zip on Linux or macOS, 7-Zip with -mcu=on), or rename the file "
                + "with ASCII characters."
        case .symlink: "An entry is a symbolic link; links are not accepted."
        case .specialFile: "An entry is a special file (FIFO, device or socket)."
        case .duplicateEntry: "Two entries have the same name (ignoring case)."
        case .pathConflict: "An entry's path is both a file and a directory."
        case .tooManyEntries(let count, let limit): "The archive has \(count) entries; at most \(limit) are accepted."
        case .entryTooLarge(_, let size, let limit):
            "An entry declares \(size) bytes uncompressed; at most \(limit) are accepted per entry."
        case .archiveTooLarge(let size, let limit):
            "The archive declares \(size) bytes uncompressed; at most \(limit) are accepted in total."
        case .compressionRatioExceeded(let name, let limit):
            name == nil
                ? "The archive expands more than \(limit):1 (zip bomb)."
                : "An entry expands more than \(limit):1 (zip bomb)."
        case .sizeMismatch: "An entry's data does not match its declared size."
        case .encrypted: "An entry is encrypted; encrypted archives are not accepted."
        case .unsupportedCompression(_, let method):
            "An entry uses compression method \(method); only stored (0) and deflated (8) are accepted."
        case .crcMismatch: "An entry's CRC-32 does not match its data."
        case .outOfMemory: "The archive could not be decompressed: out of memory."
        }
    }

    /// The entry involved, if any, as the archive names it (lossily decoded if not UTF-8).
    public var entryName: String? {
        switch self {
        case .unsafePath(let name), .invalidName(let name), .nonUTF8Name(let name), .symlink(let name),
            .specialFile(let name), .duplicateEntry(let name), .pathConflict(let name), .sizeMismatch(let name),
            .encrypted(let name), .crcMismatch(let name), .entryTooLarge(let name, _, _),
            .unsupportedCompression(let name, _):
            name
        case .compressionRatioExceeded(let name, _):
            name
        case .notAZip, .truncated, .corrupt, .tooManyEntries, .archiveTooLarge, .outOfMemory:
            nil
        }
    }
}

extension ZipReadError: CustomStringConvertible {
    /// The code and the client-safe message.
    public var description: String { "\(code): \(message)" }
}
