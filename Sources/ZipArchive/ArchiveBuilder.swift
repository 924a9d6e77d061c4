import LiveryCrypto
import LiveryProtocol
import SystemCalls
import ZipReading

/// The writer's engine: encodes entries one at a time onto an `ArchiveStream`, remembers their central
/// directory records, and ends the archive. Entries must arrive sorted and unique (`ZipArchiveWriter` does it).
final class ArchiveBuilder<Output: ZipOutput> {
    private let stream: ArchiveStream<Output>
    private let options: ZipArchiveWriter.Options
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let deflateBuffer: UnsafeMutableRawBufferPointer
    private let spill: DeflateSpill
    private var deflater: Deflater?
    private var header = LittleEndianBuilder()
    private var centralDirectory = LittleEndianBuilder()
    private var entryCount = 0

    init(stream: ArchiveStream<Output>, options: ZipArchiveWriter.Options) {
        self.stream = stream
        self.options = options
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.bufferSize, alignment: 16)
        self.deflateBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        self.spill = DeflateSpill(memoryLimit: options.spillMemoryLimit, temporaryDirectory: options.temporaryDirectory)
    }

    deinit {
        readBuffer.deallocate()
        deflateBuffer.deallocate()
    }

    /// What the local header and central record of one entry say about its data.
    private struct EncodedEntry {
        var method: UInt16
        var crc: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
    }

    // MARK: Entries

    func add(_ entry: ZipEntry) throws(ZipError) {
        let offset = stream.offset
        let level = deflateLevel(for: entry)
        let encoded: EncodedEntry
        switch entry.source {
        case .bytes(let bytes):
            // Array.withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(ZipError) in try addBytes(raw, name: entry.name, level: level) }
            }
            encoded = try result.get()
        case .file(let path):
            encoded = try addFile(path, name: entry.name, level: level)
        }
        appendCentralRecord(name: entry.name, encoded: encoded, offset: offset)
        entryCount += 1
    }

    /// The zlib level to try, or nil to store.
    private func deflateLevel(for entry: ZipEntry) -> Int32? {
        let level: Int
        switch entry.compression {
        case .store: return nil
        case .deflate(let requested): level = requested
        case .automatic:
            if ZipCompression.storesByDefault(entry.name) { return nil }
            level = options.deflateLevel
        }
        return level == 0 ? nil : Int32(level)
    }

    private func addBytes(
        _ raw: UnsafeRawBufferPointer, name: ZipEntryName, level: Int32?
    ) throws(ZipError)
        -> EncodedEntry
    {
        let size = UInt64(raw.count)
        let crc = CRC32.checksum(raw)
        if let level, !raw.isEmpty {
            try startDeflating(level: level)
            if try deflateChunk(raw, finish: true, limit: raw.count) {
                let encoded = EncodedEntry(
                    method: ZipFormat.methodDeflated, crc: crc, compressedSize: UInt64(spill.count),
                    uncompressedSize: size)
                try writeLocalHeader(name: name, encoded: encoded)
                try spill.drain(into: stream, buffer: readBuffer)
                return encoded
            }
        }
        let encoded = EncodedEntry(
            method: ZipFormat.methodStored, crc: crc, compressedSize: size, uncompressedSize: size)
        try writeLocalHeader(name: name, encoded: encoded)
        try stream.write(raw)
        return encoded
    }

    private func addFile(_ path: String, name: ZipEntryName, level: Int32?) throws(ZipError) -> EncodedEntry {
        let file: SystemFile
        do {
            file = try SystemFile.openForReading(path)
        } catch {
            if error.isSymbolicLinkRefusal { throw .sourceIsSymbolicLink(path: path) }
            throw .sourceUnreadable(path: path, errno: error.errno)
        }
        let status: (size: UInt64, isRegular: Bool)
        do {
            status = try file.status()
        } catch {
            throw .sourceUnreadable(path: path, errno: error.errno)
        }
        guard status.isRegular else { throw .sourceNotRegularFile(path: path) }
        let size = status.size
        file.adviseSequential()
        if let level, size > 0, let encoded = try deflateFile(file, path: path, size: size, level: level) {
            try writeLocalHeader(name: name, encoded: encoded)
            try spill.drain(into: stream, buffer: readBuffer)
            return encoded
        }
        return try storeFile(file, path: path, size: size, name: name)
    }

    /// Deflates the whole file into the spill. Returns nil (and leaves the file rewound) when the compressed
    /// form is not smaller than the file, so the caller stores it.
    private func deflateFile(
        _ file: borrowing SystemFile, path: String, size: UInt64, level: Int32
    ) throws(ZipError)
        -> EncodedEntry?
    {
        try startDeflating(level: level)
        var crc = CRC32()
        var total: UInt64 = 0
        let limit = Int(clamping: size)
        while true {
            let got = try read(file, path: path, into: readBuffer)
            total += UInt64(got)
            guard total <= size else { throw .sourceChanged(path: path) }
            let chunk = UnsafeRawBufferPointer(rebasing: readBuffer[0..<got])
            crc.update(chunk)
            let atEnd = got < readBuffer.count
            guard try deflateChunk(chunk, finish: atEnd, limit: limit) else {
                try rewind(file, path: path)
                return nil
            }
            if atEnd { break }
        }
        guard total == size else { throw .sourceChanged(path: path) }
        return EncodedEntry(
            method: ZipFormat.methodDeflated, crc: crc.value, compressedSize: UInt64(spill.count),
            uncompressedSize: size)
    }

    /// Stores the file: small files are read once into the buffer; larger ones get a CRC pass and then a
    /// copy pass that re-checks size and CRC, so a file changing underneath fails loudly instead of producing
    /// an archive whose header lies.
    private func storeFile(
        _ file: borrowing SystemFile, path: String, size: UInt64, name: ZipEntryName
    )
        throws(ZipError) -> EncodedEntry
    {
        if size < UInt64(readBuffer.count) {
            let count = Int(size)
            // Ask for one byte more than expected: getting it means the file grew.
            let got = try read(file, path: path, into: UnsafeMutableRawBufferPointer(rebasing: readBuffer[0...count]))
            guard got == count else { throw .sourceChanged(path: path) }
            let content = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
            let encoded = EncodedEntry(
                method: ZipFormat.methodStored, crc: CRC32.checksum(content), compressedSize: size,
                uncompressedSize: size)
            try writeLocalHeader(name: name, encoded: encoded)
            try stream.write(content)
            return encoded
        }
        var crc = CRC32()
        var total: UInt64 = 0
        while true {
            let got = try read(file, path: path, into: readBuffer)
            total += UInt64(got)
            guard total <= size else { throw .sourceChanged(path: path) }
            crc.update(UnsafeRawBufferPointer(rebasing: readBuffer[0..<got]))
            if got < readBuffer.count { break }
        }
        guard total == size else { throw .sourceChanged(path: path) }
        let encoded = EncodedEntry(
            method: ZipFormat.methodStored, crc: crc.value, compressedSize: size, uncompressedSize: size)
        try writeLocalHeader(name: name, encoded: encoded)

        try rewind(file, path: path)
        var check = CRC32()
        var remaining = size
        while remaining > 0 {
            let want = Int(min(remaining, UInt64(readBuffer.count)))
            let got = try read(file, path: path, into: UnsafeMutableRawBufferPointer(rebasing: readBuffer[0..<want]))
            guard got == want else { throw .sourceChanged(path: path) }
            let chunk = UnsafeRawBufferPointer(rebasing: readBuffer[0..<got])
            check.update(chunk)
            try stream.write(chunk)
            remaining -= UInt64(got)
        }
        guard check.value == crc.value else { throw .sourceChanged(path: path) }
        return encoded
    }

    private func read(
        _ file: borrowing SystemFile, path: String, into buffer: UnsafeMutableRawBufferPointer
    )
        throws(ZipError) -> Int
    {
        do {
            return try file.readFully(into: buffer)
        } catch {
            throw .sourceUnreadable(path: path, errno: error.errno)
        }
    }

    private func rewind(_ file: borrowing SystemFile, path: String) throws(ZipError) {
        do {
            try file.rewind()
        } catch {
            throw .sourceUnreadable(path: path, errno: error.errno)
        }
    }

    // MARK: Deflate

    private func startDeflating(level: Int32) throws(ZipError) {
        try spill.reset()
        if let deflater, deflater.level == level {
            try deflater.reset()
        } else {
            deflater = nil
            deflater = try Deflater(level: level)
        }
    }

    /// Feeds `chunk` to the deflater, appending output to the spill. Returns false as soon as the compressed
    /// size reaches `limit` (the uncompressed size): storing is then at least as small, and since output only
    /// grows, stopping early gives the same decision as finishing.
    private func deflateChunk(_ chunk: UnsafeRawBufferPointer, finish: Bool, limit: Int) throws(ZipError) -> Bool {
        guard let deflater else { throw .compressionFailed(zlibCode: -2) }
        let spill = self.spill
        let completed = try deflater.deflate(chunk, finish: finish, scratch: deflateBuffer) {
            (piece) throws(ZipError) -> Bool in
            guard spill.count + piece.count < limit else { return false }
            try spill.append(piece)
            return true
        }
        return completed
    }

    // MARK: Records

    private func needsZip64(_ value: UInt64) -> Bool { value > options.zip64Threshold }

    /// 4.3.7 local file header; with Zip64 (4.5.3) both sizes go in the extra field and read 0xFFFFFFFF.
    private func writeLocalHeader(name: ZipEntryName, encoded: EncodedEntry) throws(ZipError) {
        let zip64 = needsZip64(encoded.uncompressedSize) || needsZip64(encoded.compressedSize)
        header.removeAll()
        header.append(ZipFormat.localFileHeaderSignature)
        header.append(versionNeeded(method: encoded.method, zip64: zip64 || needsZip64(stream.offset)))
        header.append(ZipFormat.flagUTF8)
        header.append(encoded.method)
        header.append(ZipFormat.dosTime)
        header.append(ZipFormat.dosDate)
        header.append(encoded.crc)
        header.append(zip64 ? ZipFormat.sentinel32 : UInt32(encoded.compressedSize))
        header.append(zip64 ? ZipFormat.sentinel32 : UInt32(encoded.uncompressedSize))
        header.append(UInt16(name.utf8Bytes.count))
        header.append(UInt16(zip64 ? 20 : 0))
        header.append(contentsOf: name.utf8Bytes)
        if zip64 {
            header.append(ZipFormat.zip64ExtraFieldID)
            header.append(UInt16(16))
            header.append(encoded.uncompressedSize)
            header.append(encoded.compressedSize)
        }
        try stream.write(header.bytes)
    }

    /// 4.3.12 central file header; each Zip64 extra value (4.5.3) appears only when its 32-bit field reads
    /// 0xFFFFFFFF, in the order uncompressed size, compressed size, local header offset.
    private func appendCentralRecord(name: ZipEntryName, encoded: EncodedEntry, offset: UInt64) {
        let bigUncompressed = needsZip64(encoded.uncompressedSize)
        let bigCompressed = needsZip64(encoded.compressedSize)
        let bigOffset = needsZip64(offset)
        var extra = LittleEndianBuilder()
        if bigUncompressed { extra.append(encoded.uncompressedSize) }
        if bigCompressed { extra.append(encoded.compressedSize) }
        if bigOffset { extra.append(offset) }
        // The local header has Zip64 sizes whenever either size is big; the version must agree with it.
        let zip64 = bigUncompressed || bigCompressed || bigOffset

        centralDirectory.append(ZipFormat.centralFileHeaderSignature)
        centralDirectory.append(ZipFormat.versionMadeBy)
        centralDirectory.append(versionNeeded(method: encoded.method, zip64: zip64))
        centralDirectory.append(ZipFormat.flagUTF8)
        centralDirectory.append(encoded.method)
        centralDirectory.append(ZipFormat.dosTime)
        centralDirectory.append(ZipFormat.dosDate)
        centralDirectory.append(encoded.crc)
        centralDirectory.append(bigCompressed ? ZipFormat.sentinel32 : UInt32(encoded.compressedSize))
        centralDirectory.append(bigUncompressed ? ZipFormat.sentinel32 : UInt32(encoded.uncompressedSize))
        centralDirectory.append(UInt16(name.utf8Bytes.count))
        centralDirectory.append(UInt16(extra.bytes.isEmpty ? 0 : 4 + extra.bytes.count))
        centralDirectory.append(UInt16(0))  // comment length
        centralDirectory.append(UInt16(0))  // disk number start
        centralDirectory.append(UInt16(0))  // internal attributes
        centralDirectory.append(ZipFormat.regularFileExternalAttributes)
        centralDirectory.append(bigOffset ? ZipFormat.sentinel32 : UInt32(offset))
        centralDirectory.append(contentsOf: name.utf8Bytes)
        if !extra.bytes.isEmpty {
            centralDirectory.append(ZipFormat.zip64ExtraFieldID)
            centralDirectory.append(UInt16(extra.bytes.count))
            centralDirectory.append(contentsOf: extra.bytes)
        }
    }

    private func versionNeeded(method: UInt16, zip64: Bool) -> UInt16 {
        if zip64 { return ZipFormat.versionZip64 }
        return method == ZipFormat.methodDeflated ? ZipFormat.versionDeflated : ZipFormat.versionStored
    }

    /// Writes the central directory and the end records (4.3.14–4.3.16), and returns the summary.
    func finish() throws(ZipError) -> ZipArchiveSummary {
        let directoryOffset = stream.offset
        try stream.write(centralDirectory.bytes)
        let directorySize = UInt64(centralDirectory.bytes.count)
        let count = UInt64(entryCount)
        let bigCount = entryCount > options.zip64EntryCountThreshold
        let bigSize = needsZip64(directorySize)
        let bigOffset = needsZip64(directoryOffset)

        var end = LittleEndianBuilder()
        if bigCount || bigSize || bigOffset {
            let zip64EndOffset = stream.offset
            end.append(ZipFormat.zip64EndOfCentralDirectorySignature)
            end.append(UInt64(ZipFormat.zip64EndOfCentralDirectorySize - 12))  // size of the rest of the record
            end.append(ZipFormat.versionMadeBy)
            end.append(ZipFormat.versionZip64)
            end.append(UInt32(0))  // this disk
            end.append(UInt32(0))  // disk with the central directory
            end.append(count)  // entries on this disk
            end.append(count)  // entries in total
            end.append(directorySize)
            end.append(directoryOffset)

            end.append(ZipFormat.zip64EndOfCentralDirectoryLocatorSignature)
            end.append(UInt32(0))  // disk with the Zip64 end record
            end.append(zip64EndOffset)
            end.append(UInt32(1))  // total disks
        }
        let count16 = bigCount ? ZipFormat.sentinel16 : UInt16(entryCount)
        end.append(ZipFormat.endOfCentralDirectorySignature)
        end.append(UInt16(0))  // this disk
        end.append(UInt16(0))  // disk with the central directory
        end.append(count16)
        end.append(count16)
        end.append(bigSize ? ZipFormat.sentinel32 : UInt32(directorySize))
        end.append(bigOffset ? ZipFormat.sentinel32 : UInt32(directoryOffset))
        end.append(UInt16(0))  // comment length
        try stream.write(end.bytes)

        let size = stream.offset
        let digest = try stream.finish()
        return ZipArchiveSummary(sha256: Hex.encode(digest), size: size, entryCount: entryCount)
    }
}
