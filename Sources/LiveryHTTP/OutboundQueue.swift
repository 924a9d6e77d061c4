/// Response data a connection could not write yet: byte runs and file ranges, in order.
///
/// Empty (and allocation-free) on the hot path, where a response goes out with one `send`. File ranges hold a
/// reference to their open file, released when written or discarded (the descriptor closes with the last one).
struct OutboundQueue {
    enum Chunk {
        case bytes([UInt8], offset: Int)
        case file(OpenFile, offset: Int, remaining: Int)
    }

    private var chunks: [Chunk] = []
    private var head = 0

    var isEmpty: Bool { head == chunks.count }

    mutating func append(bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(.bytes(bytes, offset: 0))
    }

    /// Queues `bytes` from `offset` on (the array is shared, not copied).
    mutating func append(bytes: [UInt8], from offset: Int) {
        guard offset < bytes.count else { return }
        chunks.append(.bytes(bytes, offset: offset))
    }

    mutating func append(file: OpenFile, offset: Int, length: Int) {
        guard length > 0 else { return }
        chunks.append(.file(file, offset: offset, remaining: length))
    }

    var first: Chunk? { isEmpty ? nil : chunks[head] }

    /// Replaces the first chunk after partial progress.
    mutating func updateFirst(_ chunk: Chunk) { chunks[head] = chunk }

    /// Drops the first chunk (releasing its file, if any).
    mutating func removeFirst() {
        chunks[head] = .bytes([], offset: 0)
        head += 1
        if head == chunks.count {
            // Gives the storage back too: an idle connection holds no queue memory.
            chunks = []
            head = 0
        }
    }

    /// Discards everything, releasing files.
    mutating func removeAll() {
        chunks = []
        head = 0
    }
}
