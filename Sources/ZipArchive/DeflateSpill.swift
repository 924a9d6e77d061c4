import SystemCalls

/// Holds one entry's compressed bytes until its local header (which needs their size) has been written:
/// in memory up to a limit, then in an unlinked temporary file. Reused across entries.
final class DeflateSpill {
    private let memoryLimit: Int
    private let temporaryDirectory: String
    private var memory: UnsafeMutableRawBufferPointer?
    private var memoryCount = 0
    private var file: SystemFile?
    private var fileCount = 0

    /// Bytes held.
    var count: Int { memoryCount + fileCount }

    init(memoryLimit: Int, temporaryDirectory: String) {
        self.memoryLimit = memoryLimit
        self.temporaryDirectory = temporaryDirectory
    }

    deinit { memory?.deallocate() }

    /// Forgets the bytes held (keeps the memory and the file for the next entry).
    func reset() throws(ZipError) {
        memoryCount = 0
        if fileCount > 0 {
            fileCount = 0
            do { try file?.truncateToZero() } catch { throw .temporaryStorageFailed(detail: error.description) }
        }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(ZipError) {
        var rest = bytes
        if fileCount == 0 && memoryCount < memoryLimit {
            let memory = memoryBuffer()
            let take = min(rest.count, memoryLimit - memoryCount)
            UnsafeMutableRawBufferPointer(rebasing: memory[memoryCount..<(memoryCount + take)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[0..<take]))
            memoryCount += take
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
        }
        guard !rest.isEmpty else { return }
        do {
            if file == nil {
                var path = ""
                let created = try SystemFile.createUnique(
                    template: "\(temporaryDirectory)/livery-zip-spill-XXXXXX", path: &path)
                // Unlinked at once: the bytes vanish with the descriptor even if the process dies.
                SystemPath.remove(path)
                file = consume created
            }
            try file?.writeAll(rest)
            fileCount += rest.count
        } catch {
            throw .temporaryStorageFailed(detail: error.description)
        }
    }

    /// Writes the bytes held to `stream`, using `buffer` to read back the spilled part.
    func drain<Output>(into stream: ArchiveStream<Output>, buffer: UnsafeMutableRawBufferPointer) throws(ZipError) {
        if let memory, memoryCount > 0 {
            try stream.write(UnsafeRawBufferPointer(rebasing: memory[0..<memoryCount]))
        }
        guard fileCount > 0 else { return }
        var remaining = fileCount
        do {
            try file?.rewind()
        } catch {
            throw .temporaryStorageFailed(detail: error.description)
        }
        while remaining > 0 {
            let want = min(remaining, buffer.count)
            let got: Int
            do {
                got = try file?.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])) ?? 0
            } catch {
                throw .temporaryStorageFailed(detail: error.description)
            }
            guard got == want else { throw .temporaryStorageFailed(detail: "spill file shorter than written") }
            try stream.write(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            remaining -= got
        }
    }

    private func memoryBuffer() -> UnsafeMutableRawBufferPointer {
        if let memory { return memory }
        let allocated = UnsafeMutableRawBufferPointer.allocate(byteCount: memoryLimit, alignment: 16)
        memory = allocated
        return allocated
    }
}
