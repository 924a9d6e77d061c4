/// Where the writer reads an entry's bytes from.
public enum ZipEntrySource: Sendable {
    /// Bytes already in memory.
    case bytes([UInt8])
    /// A regular file, read in bounded chunks while the archive is written (never loaded whole).
    ///
    /// The file must not change while the archive is being written; if its size or content changes between
    /// the writer's passes, writing fails with `ZipError.sourceChanged` rather than producing a corrupt archive.
    /// The last path component is opened with `O_NOFOLLOW`: a symbolic link there fails with
    /// `ZipError.sourceIsSymbolicLink` (folders on the way are the caller's to trust).
    case file(path: String)
}
