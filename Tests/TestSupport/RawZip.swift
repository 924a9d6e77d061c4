import CZlib

/// Assembles zip archives field by field, including invalid and hostile ones the real writer refuses to make.
/// Every field defaults to what a well-formed archive would hold; tests override the one they attack.
///
/// Nothing here uses Livery's zip code: the CRC is computed bit by bit and `deflate` calls zlib directly, so an
/// archive built here tests the reader against bytes its own writer did not produce.
public struct RawZip: Sendable {
    /// One entry, written as a local header, its data, and a central directory record.
    public struct Entry: Sendable {
        /// The name in the central directory (and the local header unless `localName` is set), as raw bytes.
        public var name: [UInt8]
        /// The bytes as stored in the archive (already deflated when `method` is 8).
        public var data: [UInt8]
        /// The uncompressed content, for the default CRC and size.
        public var content: [UInt8]
        /// The compression method: 0 stored, 8 deflated.
        public var method: UInt16
        /// General purpose flags; the default sets bit 11 (the name is UTF-8).
        public var flags: UInt16 = 0x0800
        /// "Version made by": Unix (3) and zip 2.0 by default, so `externalAttributes` hold a mode.
        public var versionMadeBy: UInt16 = 3 << 8 | 20
        /// The Unix mode in the high 16 bits; a regular file, rw-r--r--, by default.
        public var externalAttributes: UInt32 = 0o100644 << 16
        /// Replaces the CRC-32 of `content` in both headers.
        public var crc: UInt32?
        /// Replaces the uncompressed size (`content.count`) in both headers.
        public var declaredUncompressedSize: UInt64?
        /// Replaces the compressed size (`data.count`) in both headers.
        public var declaredCompressedSize: UInt64?
        /// Replaces the local header's name (to make local and central disagree).
        public var localName: [UInt8]?
        /// Writes Zip64 extra fields and 0xFFFFFFFF markers for sizes and offset even when small.
        public var forceZip64 = false
        /// Replaces the local header's CRC (to make local and central disagree).
        public var localCRC: UInt32?
        /// Points the central record at another offset than the entry's local header.
        public var centralOffsetOverride: UInt64?

        /// An entry named `name` (raw bytes) holding `data`, which is `content` after `method` (0 stored, 8 deflated).
        public init(name: [UInt8], data: [UInt8], content: [UInt8], method: UInt16 = 0) {
            self.name = name
            self.data = data
            self.content = content
            self.method = method
        }

        /// A stored entry.
        public static func stored(_ name: String, _ content: [UInt8]) -> Entry {
            Entry(name: Array(name.utf8), data: content, content: content)
        }

        /// A deflated entry holding `compressed`, which inflates to `content`.
        public static func deflated(_ name: String, content: [UInt8], compressed: [UInt8]) -> Entry {
            Entry(name: Array(name.utf8), data: compressed, content: content, method: 8)
        }
    }

    /// The entries, in archive order.
    public var entries: [Entry]
    /// The archive comment after the end record.
    public var comment: [UInt8] = []
    /// Declared entry count in the end record (nil: the real count).
    public var declaredCount: UInt16?

    /// An archive of `entries`, in order.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// The archive's bytes: local headers and data, the central directory, the end record.
    public func build() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt64(out.count)
            let crc = entry.crc ?? Self.crc32(entry.content)
            let uncompressed = entry.declaredUncompressedSize ?? UInt64(entry.content.count)
            let compressed = entry.declaredCompressedSize ?? UInt64(entry.data.count)
            let big = entry.forceZip64 || uncompressed >= 0xFFFF_FFFF || compressed >= 0xFFFF_FFFF
            let localName = entry.localName ?? entry.name

            var localExtra: [UInt8] = []
            if big { localExtra = le16(1) + le16(16) + le64(uncompressed) + le64(compressed) }
            out += le32(0x0403_4B50) + le16(big ? 45 : 20) + le16(entry.flags) + le16(entry.method)
            out += le16(0) + le16(0x21) + le32(entry.localCRC ?? crc)
            out += le32(big ? 0xFFFF_FFFF : UInt32(compressed)) + le32(big ? 0xFFFF_FFFF : UInt32(uncompressed))
            out += le16(UInt16(localName.count)) + le16(UInt16(localExtra.count)) + localName + localExtra
            out += entry.data

            let centralOffset = entry.centralOffsetOverride ?? offset
            var centralExtra: [UInt8] = []
            if big {
                centralExtra = le16(1) + le16(24) + le64(uncompressed) + le64(compressed) + le64(centralOffset)
            }
            central += le32(0x0201_4B50) + le16(entry.versionMadeBy) + le16(big ? 45 : 20) + le16(entry.flags)
            central += le16(entry.method) + le16(0) + le16(0x21) + le32(crc)
            central += le32(big ? 0xFFFF_FFFF : UInt32(compressed)) + le32(big ? 0xFFFF_FFFF : UInt32(uncompressed))
            central += le16(UInt16(entry.name.count)) + le16(UInt16(centralExtra.count)) + le16(0) + le16(0) + le16(0)
            central += le32(entry.externalAttributes) + le32(big ? 0xFFFF_FFFF : UInt32(centralOffset))
            central += entry.name + centralExtra
        }
        let directoryOffset = out.count
        out += central
        let count = declaredCount ?? UInt16(entries.count)
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(count) + le16(count)
        out += le32(UInt32(central.count)) + le32(UInt32(directoryOffset)) + le16(UInt16(comment.count)) + comment
        return out
    }

    /// The CRC-32 that zip uses (reflected polynomial 0xEDB88320), computed bit by bit, independent of zlib.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = (crc >> 8) ^ crcTable[Int((crc ^ UInt32(byte)) & 0xFF)]
        }
        return ~crc
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 0 ? value >> 1 : (value >> 1) ^ 0xEDB8_8320 }
        return value
    }

    /// zlib could not compress (it reported `code`).
    public struct DeflateFailure: Error, CustomStringConvertible {
        public var code: Int32
        public var description: String { "zlib compress2 failed with code \(code)" }
    }

    /// `bytes` as a raw deflate stream (zip method 8) at level 9, always deflated (never stored).
    ///
    /// zlib's `compress2` writes the zlib format (RFC 1950): a 2-byte header (no preset dictionary), the raw
    /// deflate stream with a 32 KiB window, and a 4-byte Adler-32; the stream is what lies between.
    public static func deflate(_ bytes: [UInt8]) throws(DeflateFailure) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let code = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                compress2(output.baseAddress, &size, input.baseAddress, uLong(input.count), 9)
            }
        }
        guard code == Z_OK, size >= 6 else { throw DeflateFailure(code: code) }
        return Array(out[2..<(Int(size) - 4)])
    }
}

private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
private func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
