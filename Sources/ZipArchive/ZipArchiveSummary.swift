/// What the writer produced: the archive's identity and size.
public struct ZipArchiveSummary: Sendable, Equatable {
    /// Lowercase hex SHA-256 of every byte of the archive, computed while writing.
    public var sha256: String
    /// The archive's size in bytes.
    public var size: UInt64
    /// The number of entries in the archive.
    public var entryCount: Int

    public init(sha256: String, size: UInt64, entryCount: Int) {
        self.sha256 = sha256
        self.size = size
        self.entryCount = entryCount
    }
}
