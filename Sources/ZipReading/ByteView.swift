/// Bounds-checked little-endian reads from untrusted bytes. Every read checks its range first, with
/// overflow-safe arithmetic, and reports a range outside the bytes as `nil`; nothing here can trap.
struct ByteView {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    /// True when `offset ..< offset + length` lies inside the bytes.
    func contains(_ offset: Int, length: Int) -> Bool {
        guard offset >= 0, length >= 0 else { return false }
        let (end, overflow) = offset.addingReportingOverflow(length)
        return !overflow && end <= bytes.count
    }

    func u16(_ offset: Int) -> UInt16? {
        guard contains(offset, length: 2) else { return nil }
        return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    func u32(_ offset: Int) -> UInt32? {
        guard contains(offset, length: 4) else { return nil }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    func u64(_ offset: Int) -> UInt64? {
        guard contains(offset, length: 8) else { return nil }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    func slice(_ offset: Int, length: Int) -> UnsafeRawBufferPointer? {
        guard contains(offset, length: length) else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    func array(_ offset: Int, length: Int) -> [UInt8]? {
        slice(offset, length: length).map { Array($0) }
    }
}
