import ZipArchive

/// Assembles zip archives field by field, including invalid and hostile ones the real writer refuses to make.
/// Every field defaults to what a well-formed archive would hold; tests override the one they attack.
/// (A copy of ZipArchiveTests' RawZip: test targets cannot share files, and this one feeds the admin upload corpus.)
struct RawZip {
    struct Entry {
        var name: [UInt8]
        /// The bytes as stored in the archive (already deflated when `method` is 8).
        var data: [UInt8]
        /// The uncompressed content, for the default CRC and size.
        var content: [UInt8]
        var method: UInt16 = 0
        var flags: UInt16 = 0x0800
        var versionMadeBy: UInt16 = 3 << 8 | 20
        var externalAttributes: UInt32 = 0o100644 << 16
        var crc: UInt32?
        var declaredUncompressedSize: UInt64?
        var declaredCompressedSize: UInt64?
        /// Replaces the local header's name (to make local and central disagree).
        var localName: [UInt8]?
        /// Writes Zip64 extra fields and 0xFFFFFFFF markers for sizes and offset even when small.
        var forceZip64 = false
        /// Replaces the local header's CRC (to make local and central disagree).
        var localCRC: UInt32?
        /// Points the central record at another offset than the entry's local header.
        var centralOffsetOverride: UInt64?

        /// A stored entry.
        static func stored(_ name: String, _ content: [UInt8]) -> Entry {
            Entry(name: Array(name.utf8), data: content, content: content)
        }

        /// A deflated entry holding `compressed`, which inflates to `content`.
        static func deflated(_ name: String, content: [UInt8], compressed: [UInt8]) -> Entry {
            Entry(name: Array(name.utf8), data: compressed, content: content, method: 8)
        }
    }

    var entries: [Entry]
    var comment: [UInt8] = []
    /// Declared entry count in the end record (nil: the real count).
    var declaredCount: UInt16?

    func build() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt64(out.count)
            let crc = entry.crc ?? referenceCRC32(entry.content)
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
}

func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

/// The CRC-32 that zip uses, computed bit by bit (independent of zlib).
func referenceCRC32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc = (crc >> 8) ^ crcTable[Int((crc ^ UInt32(byte)) & 0xFF)]
    }
    return ~crc
}

private let crcTable: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 0 ? value >> 1 : (value >> 1) ^ 0xEDB8_8320 }
    return value
}

/// Raw deflate of `bytes`, taken out of a one-entry archive made by the real writer.
func rawDeflate(_ bytes: [UInt8]) throws -> [UInt8] {
    var output = ZipMemoryOutput()
    try ZipArchiveWriter.write(
        [ZipEntry(name: try ZipEntryName("x"), source: .bytes(bytes), compression: .deflate(level: 9))], to: &output)
    let archive = output.bytes
    let size = Int(archive[18]) | Int(archive[19]) << 8 | Int(archive[20]) << 16 | Int(archive[21]) << 24
    let start = 30 + 1
    return Array(archive[start..<(start + size)])
}
