import LiveryCrypto
import SystemCalls

/// The archive's byte stream: buffers small writes, counts bytes (the offset of the next byte), hashes
/// everything with SHA-256, and hands large pieces to the output without copying them.
final class ArchiveStream<Output: ZipOutput> {
    private(set) var output: Output
    private let destination: String?
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    private var hasher: SHA256? = SHA256()
    /// Bytes written so far, including those still buffered: the offset the next byte will have.
    private(set) var offset: UInt64 = 0

    init(output: Output, destination: String?, bufferSize: Int) {
        self.output = output
        self.destination = destination
        self.buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ZipError) {
        guard !bytes.isEmpty else { return }
        offset += UInt64(bytes.count)
        if bytes.count <= buffer.count - buffered {
            UnsafeMutableRawBufferPointer(rebasing: buffer[buffered...]).copyMemory(from: bytes)
            buffered += bytes.count
            return
        }
        try flush()
        if bytes.count >= buffer.count / 2 {
            try send(bytes)
        } else {
            buffer.copyMemory(from: bytes)
            buffered = bytes.count
        }
    }

    func write(_ bytes: [UInt8]) throws(ZipError) {
        // Array.withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in Result { () throws(ZipError) in try write(raw) } }
        try result.get()
    }

    func flush() throws(ZipError) {
        guard buffered > 0 else { return }
        let pending = UnsafeRawBufferPointer(rebasing: buffer[0..<buffered])
        buffered = 0
        try send(pending)
    }

    /// Flushes and returns the SHA-256 of everything written; the stream takes no more bytes afterwards.
    func finish() throws(ZipError) -> [UInt8] {
        try flush()
        guard let hasher = hasher.take() else { return [] }
        return hasher.finalize()
    }

    private func send(_ bytes: UnsafeRawBufferPointer) throws(ZipError) {
        hasher?.update(bytes)
        do {
            try output.write(bytes)
        } catch let error as SystemCallError {
            throw .outputFailed(path: destination, detail: error.description)
        } catch {
            throw .outputFailed(path: destination, detail: String(describing: error))
        }
    }
}
