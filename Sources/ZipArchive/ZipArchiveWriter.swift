import CZlib
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes deterministic zip archives with bounded memory.
///
/// Determinism: the same entries (names, bytes, compression choices) and options give a byte-identical archive
/// with the same zlib build, whatever the order of `entries`, the source files' times or owners, or the
/// machine's clock. The writer sorts entries by the UTF-8 bytes of their names, stamps every entry
/// 1980-01-01 00:00 (DOS time), marks names UTF-8 (flag bit 11), records every file as a UNIX regular file
/// with mode 0644, writes no extra fields except Zip64 ones, no comments, and no data descriptors
/// (sizes and CRC-32 are in every local header, which every mobile unzip library, Java's `ZipInputStream`
/// included, reads).
///
/// Compression: `.automatic` stores already-compressed formats (`ZipCompression.storedExtensions`) and raw-
/// deflates the rest (zlib, window 2^15, memLevel 8, default strategy, level `Options.deflateLevel`); any
/// deflated entry that does not come out smaller than its input is stored instead.
///
/// Zip64: records, locator and extra fields appear exactly when an entry's size or offset exceeds
/// `Options.zip64Threshold` (0xFFFF_FFFE) or the entry count exceeds `Options.zip64EntryCountThreshold`
/// (0xFFFE), as APPNOTE.TXT 4.4.1.4 requires.
///
/// Memory: the archive is streamed to its output; per entry the writer holds one read buffer
/// (`Options.bufferSize`), zlib's state, and at most `Options.spillMemoryLimit` bytes of compressed output
/// (beyond that it spills to an unlinked temporary file), plus one central-directory record per entry.
/// Stored files larger than the buffer are read twice (a CRC pass, then a copy pass that re-checks size and
/// CRC), so local headers can carry the CRC without data descriptors; a source changing in between fails
/// with `ZipError.sourceChanged` instead of producing an archive whose headers lie.
///
/// The writer is synchronous and does blocking file I/O: run it on a thread of your own, not on the
/// cooperative pool.
public enum ZipArchiveWriter {
    /// Knobs of the writer. Defaults suit skin packages; tests lower the Zip64 thresholds.
    public struct Options: Sendable {
        /// zlib level for `.automatic` entries that are deflated, 1...9 (0 stores). Default 6, like `zip -6`.
        public var deflateLevel: Int = 6
        /// Size of the read buffer and of the output buffer, in bytes. Default 1 MiB; at least 4 KiB.
        public var bufferSize: Int = 1 << 20
        /// Compressed bytes of one entry kept in memory before spilling to a temporary file. Default 8 MiB.
        public var spillMemoryLimit: Int = 8 << 20
        /// Directory for spill files (created, unlinked at once, and reused). Default `$TMPDIR` or `/tmp`.
        public var temporaryDirectory: String = Options.defaultTemporaryDirectory()
        /// Sizes and offsets above this value use Zip64 fields. Default 0xFFFF_FFFE, the format's limit;
        /// lowering it (a testing hook) forces Zip64 records into small archives. Cannot be raised.
        public var zip64Threshold: UInt64 = 0xFFFF_FFFE
        /// Entry counts above this value use the Zip64 end records. Default 0xFFFE, the format's limit;
        /// lowering it is a testing hook. Cannot be raised.
        public var zip64EntryCountThreshold: Int = 0xFFFE

        public init() {}

        static func defaultTemporaryDirectory() -> String {
            if let value = Syscall.environmentValue("TMPDIR"), !value.isEmpty { return value }
            return "/tmp"
        }

        func validate() throws(ZipError) {
            guard (0...9).contains(deflateLevel) else { throw .invalidCompressionLevel(deflateLevel) }
            guard bufferSize >= 4096 else { throw .invalidOption("bufferSize must be at least 4096") }
            guard spillMemoryLimit >= 0 else { throw .invalidOption("spillMemoryLimit must not be negative") }
            guard zip64Threshold <= 0xFFFF_FFFE else { throw .invalidOption("zip64Threshold is above 0xFFFFFFFE") }
            guard (0...0xFFFE).contains(zip64EntryCountThreshold) else {
                throw .invalidOption("zip64EntryCountThreshold is outside 0...0xFFFE")
            }
        }
    }

    /// The zlib version deflating entries (for example "1.2.13"). Deflate output, and so the archive's
    /// SHA-256, is stable for a given zlib version; log it next to package identities.
    public static var zlibVersion: String { String(cString: CZlib.zlibVersion()) }

    /// Writes `entries` as a zip archive at `path`, atomically.
    ///
    /// The archive is built by `DurableFile` (the one crash-safe write): in a temporary file beside `path`,
    /// given mode 0644, fsynced, renamed over `path`, and the directory fsynced. On failure the temporary file is
    /// removed and `path` is untouched.
    ///
    /// - Returns: the archive's SHA-256, size and entry count.
    /// - Throws: `ZipError` (invalid or duplicate names, unreadable or changing sources, I/O failures).
    @discardableResult
    public static func write(
        _ entries: [ZipEntry], to path: String, options: Options = .init()
    ) throws(ZipError)
        -> ZipArchiveSummary
    {
        try options.validate()
        var summary: ZipArchiveSummary?
        // The archive is rebuilt from its sources whenever it is missing, so a failed directory sync is not
        // reported: the complete archive is already at `path`, and throwing would tell the caller it is not.
        try DurableFile.replace(
            path, mode: 0o644, directorySync: .bestEffort,
            mapError: { ZipError.outputFailed(path: path, detail: $0.description) }
        ) { file throws(ZipError) in
            var sink = FileOutput(descriptor: file.descriptor, path: file.path)
            summary = try build(entries, output: &sink, destination: path, options: options)
        }
        guard let summary else { throw ZipError.outputFailed(path: path, detail: "nothing written") }
        return summary
    }

    /// Writes `entries` as a zip archive to `output`, in order and without seeking.
    ///
    /// - Returns: the SHA-256 and size of exactly the bytes given to `output`, and the entry count.
    /// - Throws: `ZipError`; if it throws, what `output` received is not a valid archive.
    @discardableResult
    public static func write<Output: ZipOutput>(
        _ entries: [ZipEntry], to output: inout Output, options: Options = .init()
    ) throws(ZipError) -> ZipArchiveSummary {
        try options.validate()
        return try build(entries, output: &output, destination: nil, options: options)
    }

    private static func build<Output: ZipOutput>(
        _ entries: [ZipEntry], output: inout Output, destination: String?, options: Options
    ) throws(ZipError) -> ZipArchiveSummary {
        let sorted = entries.sorted { $0.name < $1.name }
        for index in sorted.indices.dropFirst() where sorted[index].name == sorted[index - 1].name {
            throw .duplicateEntryName(sorted[index].name)
        }
        for entry in sorted {
            if case .deflate(let level) = entry.compression, !(0...9).contains(level) {
                throw .invalidCompressionLevel(level)
            }
        }
        let stream = ArchiveStream(output: output, destination: destination, bufferSize: options.bufferSize)
        defer { output = stream.output }
        let builder = ArchiveBuilder(stream: stream, options: options)
        for entry in sorted {
            try builder.add(entry)
        }
        return try builder.finish()
    }
}
