/// Appends little-endian integers and raw bytes to a growing byte array (4.4.1.1: all values are
/// little-endian).
struct LittleEndianBuilder {
    var bytes: [UInt8] = []

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func append(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func append(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func append(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func append(contentsOf other: [UInt8]) { bytes.append(contentsOf: other) }
}
