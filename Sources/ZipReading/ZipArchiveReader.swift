import Foundation

/// Reads uploaded zip archives hostile-first: every structure is bounds-checked, every declared size is
/// checked against `Limits` before anything is allocated or inflated, and inflation stops the moment an entry
/// produces more than it declared.
///
/// What is accepted: a single-disk archive (Zip64 or not) whose end record sits within the last 65,557 bytes
/// and whose central directory ends exactly where the end records begin; entries stored (0) or deflated (8),
/// unencrypted; names whose bytes are valid UTF-8, with or without flag bit 11 (Info-ZIP omits it); regular files and directories; local headers
/// that agree with the central directory (name, method, and, without a data descriptor, CRC and sizes);
/// entry data that does not overlap. Everything else is rejected with a distinct `ZipReadError`.
public enum ZipArchiveReader {
    /// Bounds for one upload. Defaults suit skin packages.
    public struct Limits: Sendable, Equatable {
        /// Most entries (files and directories). Default 10,000.
        public var maxEntries: Int = 10_000
        /// Most uncompressed bytes in all entries together. Default 256 MiB.
        public var maxTotalUncompressed: UInt64 = 256 << 20
        /// Most uncompressed bytes in one entry. Default 64 MiB.
        public var maxEntryUncompressed: UInt64 = 64 << 20
        /// Highest uncompressed:compressed ratio, per entry and for the whole archive. Default 100 (100:1).
        public var maxCompressionRatio: UInt64 = 100
        /// Entries (and archives) smaller than this many uncompressed bytes skip the ratio check: deflate
        /// expands at most ~1,032:1, so they cannot be bombs, and tiny repetitive files legitimately compress
        /// far better than 100:1. Default 64 KiB.
        public var ratioCheckMinimumSize: UInt64 = 64 << 10
        /// Longest entry name in UTF-8 bytes (the format allows 65,535). Default 1,024.
        public var maxNameLength: Int = 1_024
        /// Most `/`-separated segments in an entry name. Default 32.
        ///
        /// With `maxNameLength` and `maxEntries` this bounds the duplicate and file/directory checks to
        /// `maxEntries × maxPathDepth` path segments, whatever the archive's size.
        public var maxPathDepth: Int = 32

        public init() {}

        public init(
            maxEntries: Int = 10_000, maxTotalUncompressed: UInt64 = 256 << 20,
            maxEntryUncompressed: UInt64 = 64 << 20, maxCompressionRatio: UInt64 = 100,
            ratioCheckMinimumSize: UInt64 = 64 << 10, maxNameLength: Int = 1_024, maxPathDepth: Int = 32
        ) {
            self.maxEntries = maxEntries
            self.maxTotalUncompressed = maxTotalUncompressed
            self.maxEntryUncompressed = maxEntryUncompressed
            self.maxCompressionRatio = maxCompressionRatio
            self.ratioCheckMinimumSize = ratioCheckMinimumSize
            self.maxNameLength = maxNameLength
            self.maxPathDepth = maxPathDepth
        }
    }

    /// Checks `archive` and returns its files (directories are checked, then skipped), in central-directory
    /// order.
    ///
    /// Memory: at most the sum of declared entry sizes, which is checked against `limits` first.
    /// - Throws: the first `ZipReadError` found; nothing is returned from a rejected archive.
    public static func extract(_ archive: [UInt8], limits: Limits = .init()) throws(ZipReadError) -> [ExtractedEntry] {
        // Array.withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
        let result = archive.withUnsafeBytes { raw in
            Result { () throws(ZipReadError) in
                var parser = ArchiveParser(view: ByteView(bytes: raw), limits: limits)
                return try parser.extract()
            }
        }
        return try result.get()
    }

    /// Checks the whole structure of `archive` first (end records, every central record, totals, ratios, colliding
    /// names and paths, every local header: everything `extract` checks before inflating), then hands its files to
    /// `body` one at a time, in central-directory order, each inflated and CRC-checked before it is handed over
    /// (directories are checked, then skipped).
    ///
    /// So a hostile archive is refused before `body` sees anything, except for a damaged deflate stream or CRC,
    /// which can only be found by inflating: then the files before it have been handed over and this throws.
    /// A caller that writes files out must therefore write into a fresh folder and remove it on any error.
    ///
    /// Memory: one entry at a time (at most `limits.maxEntryUncompressed`), plus the archive's bytes, which the
    /// caller holds (or maps: see `forEachFile(inArchiveAt:limits:_:)`).
    /// - Throws: the first `ZipReadError` found, or whatever `body` threw (and then no further file is read).
    public static func forEachFile(
        in archive: UnsafeRawBufferPointer, limits: Limits = .init(), _ body: (ExtractedEntry) throws -> Void
    ) throws {
        var parser = ArchiveParser(view: ByteView(bytes: archive), limits: limits)
        let entries = try parser.checkStructure()
        var inflater: Inflater?
        for entry in entries where !entry.isDirectory {
            try body(try parser.file(entry, inflater: &inflater))
        }
    }

    /// `forEachFile(in:limits:_:)` over the bytes of `archive`.
    public static func forEachFile(
        in archive: Data, limits: Limits = .init(), _ body: (ExtractedEntry) throws -> Void
    ) throws {
        try archive.withUnsafeBytes { raw in try forEachFile(in: raw, limits: limits, body) }
    }

    /// `forEachFile(in:limits:_:)` over the archive in the file at `url`, mapped into memory
    /// (`Data.ReadingOptions.alwaysMapped`) rather than read, so its bytes stay in the page cache and are not
    /// copied into this process's heap.
    /// - Throws: Foundation's error when the file cannot be read, then as `forEachFile(in:limits:_:)`.
    public static func forEachFile(
        inArchiveAt url: URL, limits: Limits = .init(), _ body: (ExtractedEntry) throws -> Void
    ) throws {
        let archive = try Data(contentsOf: url, options: .alwaysMapped)
        try forEachFile(in: archive, limits: limits, body)
    }
}
