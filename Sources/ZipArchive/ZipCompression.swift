import ZipReading

/// How an entry's bytes are stored in the archive.
///
/// Whatever is asked, a deflated entry whose compressed form is not smaller than the original is stored
/// instead, so the archive never grows from compression (and the choice is still deterministic).
public enum ZipCompression: Sendable, Equatable {
    /// Store formats that are already compressed (see `storedExtensions`), deflate everything else at the
    /// writer's default level (`ZipArchiveWriter.Options.deflateLevel`, 6 unless changed).
    case automatic
    /// Store the bytes as they are (method 0).
    case store
    /// Raw deflate (method 8) at zlib level `level`, 1 (fastest) through 9 (smallest); 0 means store.
    case deflate(level: Int)

    /// Lowercased extensions of formats that are already compressed, which `.automatic` stores:
    /// images, audio and video, fonts and archives.
    public static let storedExtensions: Set<String> = [
        "png", "apng", "jpg", "jpeg", "gif", "webp", "heic", "heif", "avif", "jxl",
        "mp3", "m4a", "aac", "ogg", "oga", "opus", "flac",
        "mp4", "m4v", "mov", "webm", "mkv", "avi",
        "woff", "woff2",
        "zip", "gz", "tgz", "bz2", "xz", "zst", "br", "7z", "rar", "lz4", "jar", "apk", "ipa"
    ]

    /// True when `.automatic` stores a file with this name: its extension (after the last `.` of the last
    /// segment, case-insensitive) is in `storedExtensions`.
    public static func storesByDefault(_ name: ZipEntryName) -> Bool {
        let bytes = name.utf8Bytes
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return false }
        if let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > dot { return false }
        let suffix = bytes[(dot + 1)...]
        guard !suffix.isEmpty, suffix.count <= 8 else { return false }
        let lowered = suffix.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }
        return storedExtensions.contains(String(decoding: lowered, as: UTF8.self))
    }
}
