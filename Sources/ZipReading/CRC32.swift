import CZlib

/// CRC-32 (the zip/gzip polynomial) from zlib, updated incrementally.
package struct CRC32 {
    package private(set) var value: UInt32 = 0

    package init() {}

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        value = UInt32(truncatingIfNeeded: crc32_z(UInt(value), base.assumingMemoryBound(to: Bytef.self), bytes.count))
    }

    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
