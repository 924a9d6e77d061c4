/// A file taken out of an uploaded archive, after every check passed.
public struct ExtractedEntry: Sendable, Equatable {
    /// The checked name (relative, no `..`, no backslash, UTF-8).
    public var name: ZipEntryName
    /// The file's bytes, CRC-checked and exactly as long as declared.
    public var bytes: [UInt8]

    public init(name: ZipEntryName, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}
