#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A growable byte buffer reused for every response an event loop writes, so encoding allocates nothing.
///
/// Owned by one `EventLoop` and used only on its thread. Responses are encoded into it during one round of
/// processing and sent with one `send`; whatever the socket does not take is copied to the connection.
final class OutputBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
    var isEmpty: Bool { count == 0 }

    func removeAll() { count = 0 }

    /// Drops everything after the first `newCount` bytes (to undo a partly encoded response).
    func truncate(to newCount: Int) { count = min(count, max(0, newCount)) }

    private func reserve(_ extra: Int) {
        let needed = count + extra
        guard needed > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        newBase.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ source: UnsafeRawBufferPointer) {
        guard let address = source.baseAddress, source.count > 0 else { return }
        reserve(source.count)
        (base + count).copyMemory(from: address, byteCount: source.count)
        count += source.count
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a string's UTF-8 bytes. Named apart from `append(_: StaticString)` so that literals, which the
    /// encoder writes on every response, take the cheaper overload.
    func append(string text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append(UnsafeRawBufferPointer($0)) }) == nil {
            append(Array(text.utf8))
        }
    }

    /// Appends `text` if every byte satisfies `isAllowed`; otherwise appends nothing and returns false.
    /// One pass that validates while copying (for header names and values on every response).
    func append(_ text: String, ifEvery isAllowed: (UInt8) -> Bool) -> Bool {
        let result = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            reserve(bytes.count)
            let target = (base + count).assumingMemoryBound(to: UInt8.self)
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard isAllowed(byte) else { return false }
                target[index] = byte
            }
            count += bytes.count
            return true
        }
        if let result { return result }
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy(isAllowed) else { return false }
        append(bytes)
        return true
    }

    /// Lets `body` write at most `maximum` bytes at the end (its argument is where the first goes) and keeps as
    /// many as it returns: one capacity check for a whole piece written field by field.
    func appendInPlace(maximum: Int, _ body: (UnsafeMutableRawPointer) -> Int) {
        reserve(maximum)
        let written = body(base + count)
        precondition(written >= 0 && written <= maximum, "wrote past the room reserved")
        count += written
    }

    func append(byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends the decimal digits of `value`.
    func appendDecimal(_ value: UInt64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch: UInt64.max has 20 digits
        withUnsafeMutableBytes(of: &digits) { scratch in
            var position = scratch.count
            var remaining = value
            repeat {
                position -= 1
                scratch[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            append(UnsafeRawBufferPointer(rebasing: scratch[position...]))
        }
    }
}
