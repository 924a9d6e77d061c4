/// Response data a connection could not write yet: byte runs and file ranges, in order.
///
/// Empty (and allocation-free) on the hot path, where a response goes out with one `send`. File ranges own
/// their descriptor and close it when written or discarded.
struct OutboundQueue {
    enum Chunk {
        case bytes([UInt8], offset: Int)
        case file(descriptor: Int32, offset: Int, remaining: Int)
    }

    private var chunks: [Chunk] = []
    private var head = 0

    var isEmpty: Bool { head == chunks.count }

    mutating func append(bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(.bytes(bytes, offset: 0))
    }

    mutating func append(file descriptor: Int32, offset: Int, length: Int) {
        guard length > 0 else {
            Syscall.close(descriptor)
            return
        }
        chunks.append(.file(descriptor: descriptor, offset: offset, remaining: length))
    }

    var first: Chunk? { isEmpty ? nil : chunks[head] }

    /// Replaces the first chunk after partial progress.
    mutating func updateFirst(_ chunk: Chunk) { chunks[head] = chunk }

    /// Drops the first chunk (closing its file, if any).
    mutating func removeFirst() {
        if case .file(let descriptor, _, _) = chunks[head] { Syscall.close(descriptor) }
        head += 1
        if head == chunks.count {
            chunks.removeAll()
            head = 0
        }
    }

    /// Discards everything, closing files.
    mutating func removeAll() {
        while !isEmpty { removeFirst() }
    }
}
