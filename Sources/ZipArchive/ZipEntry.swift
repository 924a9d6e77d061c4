import ZipReading

/// One file to put in an archive: its name, where its bytes come from, and how to compress them.
public struct ZipEntry: Sendable {
    /// The checked name the file gets inside the archive.
    public var name: ZipEntryName
    /// Where the writer reads the file's bytes.
    public var source: ZipEntrySource
    /// How the bytes are compressed; `.automatic` (the default) decides by the name's extension.
    public var compression: ZipCompression

    /// An entry named `name` whose bytes come from `source`.
    public init(name: ZipEntryName, source: ZipEntrySource, compression: ZipCompression = .automatic) {
        self.name = name
        self.source = source
        self.compression = compression
    }
}
