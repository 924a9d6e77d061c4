/// The parse of one untrusted archive, in the order `checkStructure` lists, then one file at a time;
/// `ZipArchiveReader` is its only user. Every offset and size read from the archive is range-checked before use,
/// with overflow-safe arithmetic, so no input can make it trap.
struct ArchiveParser {
    let view: ByteView
    let limits: ZipArchiveReader.Limits
    /// Where the central directory starts; every entry's data must end before it.
    private var directoryStart = 0

    init(view: ByteView, limits: ZipArchiveReader.Limits) {
        self.view = view
        self.limits = limits
    }

    /// Every file, after every check (all of `checkStructure`, then each file's inflation and CRC).
    mutating func extract() throws(ZipReadError) -> [ExtractedEntry] {
        let entries = try checkStructure()
        var extracted: [ExtractedEntry] = []
        extracted.reserveCapacity(entries.count)
        var inflater: Inflater?
        for entry in entries where !entry.isDirectory {
            extracted.append(try file(entry, inflater: &inflater))
        }
        return extracted
    }

    /// Checks everything that can be checked without inflating: the end records, every central directory record
    /// (names, types, sizes, ratios, encryption, methods), the totals, colliding names and paths, and every local
    /// header against its record (no overlap, nothing running into the directory). Returns the entries in
    /// central-directory order, directories included.
    mutating func checkStructure() throws(ZipReadError) -> [CentralEntry] {
        let directory = try readEndRecords()
        var entries = try readCentralDirectory(directory)
        try checkTotals(entries)
        try checkCollisions(entries)
        try readLocalHeaders(&entries)
        return entries
    }

    // MARK: End records (APPNOTE 4.3.14–4.3.16)

    private struct Directory {
        var count: UInt64
        var offset: Int
        var size: Int
    }

    private var looksLikeZip: Bool {
        guard let signature = view.u32(0) else { return false }
        return signature == ZipFormat.localFileHeaderSignature || signature == ZipFormat.endOfCentralDirectorySignature
            || signature == ZipFormat.dataDescriptorSignature
    }

    /// Finds the end of central directory record: the last signature in the final 65,557 bytes whose comment
    /// length reaches exactly the end of the archive.
    private func findEndRecord() throws(ZipReadError) -> Int {
        let size = ZipFormat.endOfCentralDirectorySize
        guard view.count >= size else { throw looksLikeZip ? .truncated : .notAZip }
        let lowest = max(0, view.count - ZipFormat.maximumEndOfCentralDirectorySearch)
        var position = view.count - size
        while position >= lowest {
            if view.u32(position) == ZipFormat.endOfCentralDirectorySignature,
                let commentLength = view.u16(position + 20), position + size + Int(commentLength) == view.count
            {
                return position
            }
            position -= 1
        }
        throw looksLikeZip ? .truncated : .notAZip
    }

    private func readEndRecords() throws(ZipReadError) -> Directory {
        let end = try findEndRecord()
        guard let disk = view.u16(end + 4), let directoryDisk = view.u16(end + 6),
            let entriesOnDisk = view.u16(end + 8), let entries = view.u16(end + 10),
            let size32 = view.u32(end + 12), let offset32 = view.u32(end + 16)
        else { throw .truncated }

        var count = UInt64(entries)
        var size = UInt64(size32)
        var offset = UInt64(offset32)
        var directoryEnd = end
        let locator = end - ZipFormat.zip64EndOfCentralDirectoryLocatorSize
        if locator >= 0, view.u32(locator) == ZipFormat.zip64EndOfCentralDirectoryLocatorSignature {
            guard let locatorDisk = view.u32(locator + 4), let recordOffset = view.u64(locator + 8),
                let totalDisks = view.u32(locator + 16)
            else { throw .truncated }
            guard locatorDisk == 0, totalDisks <= 1 else {
                throw .corrupt(reason: "multi-disk archives are not supported")
            }
            guard recordOffset <= UInt64(locator),
                UInt64(locator) - recordOffset >= UInt64(ZipFormat.zip64EndOfCentralDirectorySize)
            else { throw .corrupt(reason: "the Zip64 end record is out of place") }
            let record = Int(recordOffset)
            guard view.u32(record) == ZipFormat.zip64EndOfCentralDirectorySignature,
                let recordSize = view.u64(record + 4), recordSize >= 44, recordSize <= UInt64(locator - record - 12),
                let disk64 = view.u32(record + 16), let directoryDisk64 = view.u32(record + 20),
                let entriesOnDisk64 = view.u64(record + 24), let entries64 = view.u64(record + 32),
                let size64 = view.u64(record + 40), let offset64 = view.u64(record + 48)
            else { throw .corrupt(reason: "the Zip64 end record is invalid") }
            guard disk64 == 0, directoryDisk64 == 0, entriesOnDisk64 == entries64, disk == 0 || disk == 0xFFFF
            else { throw .corrupt(reason: "multi-disk archives are not supported") }
            // Where the 32-bit record has a real value (not the 0xFFFF… marker) it must agree with Zip64's.
            guard entries == ZipFormat.sentinel16 || UInt64(entries) == entries64,
                size32 == ZipFormat.sentinel32 || UInt64(size32) == size64,
                offset32 == ZipFormat.sentinel32 || UInt64(offset32) == offset64
            else { throw .corrupt(reason: "the end records disagree") }
            count = entries64
            size = size64
            offset = offset64
            directoryEnd = record
        } else {
            guard disk == 0, directoryDisk == 0, entriesOnDisk == entries
            else { throw .corrupt(reason: "multi-disk archives are not supported") }
        }
        guard count <= UInt64(limits.maxEntries) else { throw .tooManyEntries(count: count, limit: limits.maxEntries) }
        // The central directory must end exactly where the end records begin (no prefix, no gap, no overlap).
        guard size <= UInt64(directoryEnd), offset == UInt64(directoryEnd) - size else {
            throw offset > UInt64(view.count) ? .truncated : .corrupt(reason: "the central directory is out of place")
        }
        // Each record is at least 46 bytes: a count the directory cannot hold is a lie.
        guard count <= size / UInt64(ZipFormat.centralFileHeaderSize) else {
            throw .corrupt(reason: "the entry count does not fit the central directory")
        }
        return Directory(count: count, offset: Int(offset), size: Int(size))
    }

    // MARK: Central directory (APPNOTE 4.3.12)

    private mutating func readCentralDirectory(_ directory: Directory) throws(ZipReadError) -> [CentralEntry] {
        directoryStart = directory.offset
        let directoryEnd = directory.offset + directory.size
        var entries: [CentralEntry] = []
        entries.reserveCapacity(Int(directory.count))
        var position = directory.offset
        for _ in 0..<directory.count {
            guard position + ZipFormat.centralFileHeaderSize <= directoryEnd,
                view.u32(position) == ZipFormat.centralFileHeaderSignature,
                let flags = view.u16(position + 8), let method = view.u16(position + 10),
                let crc = view.u32(position + 16), let compressed32 = view.u32(position + 20),
                let uncompressed32 = view.u32(position + 24), let nameLength = view.u16(position + 28),
                let extraLength = view.u16(position + 30), let commentLength = view.u16(position + 32),
                let diskStart = view.u16(position + 34), let external = view.u32(position + 38),
                let offset32 = view.u32(position + 42)
            else { throw .corrupt(reason: "a central directory record is invalid") }
            let nameStart = position + ZipFormat.centralFileHeaderSize
            let recordEnd = nameStart + Int(nameLength) + Int(extraLength) + Int(commentLength)
            guard recordEnd <= directoryEnd, let rawName = view.array(nameStart, length: Int(nameLength)),
                let extra = view.slice(nameStart + Int(nameLength), length: Int(extraLength))
            else { throw .corrupt(reason: "a central directory record overruns the directory") }
            position = recordEnd

            var compressed = UInt64(compressed32)
            var uncompressed = UInt64(uncompressed32)
            var offset = UInt64(offset32)
            if uncompressed32 == ZipFormat.sentinel32 || compressed32 == ZipFormat.sentinel32
                || offset32 == ZipFormat.sentinel32 || diskStart == ZipFormat.sentinel16
            {
                var values = Zip64Values(extra: extra)
                if uncompressed32 == ZipFormat.sentinel32 { uncompressed = try values.next() }
                if compressed32 == ZipFormat.sentinel32 { compressed = try values.next() }
                if offset32 == ZipFormat.sentinel32 { offset = try values.next() }
            } else if diskStart != 0 {
                throw .corrupt(reason: "multi-disk archives are not supported")
            }

            let entry = try checkedEntry(
                rawName: rawName, flags: flags, method: method, external: external, crc: crc,
                compressed: compressed, uncompressed: uncompressed, offset: offset)
            entries.append(entry)
        }
        guard position == directoryEnd else { throw .corrupt(reason: "the central directory has trailing bytes") }
        return entries
    }

    /// The checks that need only the central record, most dangerous first.
    private func checkedEntry(
        rawName: [UInt8], flags: UInt16, method: UInt16, external: UInt32, crc: UInt32,
        compressed: UInt64, uncompressed: UInt64, offset: UInt64
    ) throws(ZipReadError) -> CentralEntry {
        let displayName = String(decoding: rawName, as: UTF8.self)
        // 4.4.4 bit 11 marks UTF-8; without it the name is CP437 by the letter of APPNOTE, but Info-ZIP's
        // `zip` (the standard tool on Linux and macOS) writes UTF-8 names without the flag. A name is accepted when
        // its bytes are valid UTF-8, whatever the flag; anything else (CP437, GBK, Shift-JIS from older Windows
        // tools) is refused by `ZipEntryName(validating:)` below, as almost none of it is valid UTF-8.
        let isDirectory = rawName.last == UInt8(ascii: "/")
        let path = isDirectory ? Array(rawName.dropLast()) : rawName
        let name: ZipEntryName
        do {
            name = try ZipEntryName(validating: path)
        } catch {
            if error.escapesDestination { throw .unsafePath(name: displayName) }
            if error == .notUTF8 { throw .nonUTF8Name(name: displayName) }
            // A bare "/" is absolute; an empty name is invalid.
            throw .invalidName(name: displayName)
        }
        guard rawName.count <= limits.maxNameLength,
            path.lazy.filter({ $0 == UInt8(ascii: "/") }).count < limits.maxPathDepth
        else { throw .invalidName(name: displayName) }

        if flags & (ZipFormat.flagEncrypted | ZipFormat.flagStrongEncryption | ZipFormat.flagMaskedLocalHeader) != 0
            || method == ZipFormat.methodAESEncrypted
        {
            throw .encrypted(name: displayName)
        }
        guard method == ZipFormat.methodStored || method == ZipFormat.methodDeflated else {
            throw .unsupportedCompression(name: displayName, method: method)
        }

        // 4.4.15: UNIX hosts keep st_mode in the upper 16 bits. Others leave them zero, so check regardless.
        switch (external >> 16) & ZipFormat.unixFileTypeMask {
        case ZipFormat.unixSymbolicLink: throw .symlink(name: displayName)
        case 0, ZipFormat.unixRegularFile: break
        case ZipFormat.unixDirectory:
            guard isDirectory else { throw .corrupt(reason: "a directory entry has no trailing slash") }
        default: throw .specialFile(name: displayName)
        }

        if isDirectory {
            guard uncompressed == 0 else { throw .corrupt(reason: "a directory entry has content") }
        } else {
            guard uncompressed <= limits.maxEntryUncompressed else {
                throw .entryTooLarge(name: displayName, size: uncompressed, limit: limits.maxEntryUncompressed)
            }
            if method == ZipFormat.methodStored, compressed != uncompressed {
                throw .corrupt(reason: "a stored entry's sizes differ")
            }
            if exceedsRatio(uncompressed: uncompressed, compressed: compressed) {
                throw .compressionRatioExceeded(name: displayName, limit: limits.maxCompressionRatio)
            }
        }
        return CentralEntry(
            name: name, displayName: displayName, rawName: rawName, isDirectory: isDirectory, flags: flags,
            method: method, crc: crc, compressedSize: compressed, uncompressedSize: uncompressed,
            localHeaderOffset: offset)
    }

    private func exceedsRatio(uncompressed: UInt64, compressed: UInt64) -> Bool {
        guard uncompressed >= limits.ratioCheckMinimumSize else { return false }
        let (allowed, overflow) = max(compressed, 1).multipliedReportingOverflow(by: limits.maxCompressionRatio)
        return !overflow && uncompressed > allowed
    }

    private func checkTotals(_ entries: [CentralEntry]) throws(ZipReadError) {
        var totalUncompressed: UInt64 = 0
        var totalCompressed: UInt64 = 0
        for entry in entries where !entry.isDirectory {
            let (sum, overflow) = totalUncompressed.addingReportingOverflow(entry.uncompressedSize)
            guard !overflow, sum <= limits.maxTotalUncompressed else {
                throw .archiveTooLarge(size: overflow ? UInt64.max : sum, limit: limits.maxTotalUncompressed)
            }
            totalUncompressed = sum
            // Bounded by the archive size once local headers are checked; saturate meanwhile.
            totalCompressed =
                totalCompressed.addingReportingOverflow(entry.compressedSize).overflow
                ? UInt64.max : totalCompressed + entry.compressedSize
        }
        if exceedsRatio(uncompressed: totalUncompressed, compressed: totalCompressed) {
            throw .compressionRatioExceeded(name: nil, limit: limits.maxCompressionRatio)
        }
    }

    /// Rejects names that would land on the same file on a case-insensitive or normalising file system, and
    /// paths that are both a file and a directory, by inserting every entry into a tree of folded path
    /// segments. Segments are compared as Swift strings (canonical equivalence), so NFC and NFD spellings
    /// collide too. Time and memory are linear in the total length of the names.
    private func checkCollisions(_ entries: [CentralEntry]) throws(ZipReadError) {
        let root = PathNode(kind: .directory)
        for entry in entries {
            let segments = entry.name.utf8Bytes.split(separator: UInt8(ascii: "/"))
            var node = root
            for (index, segment) in segments.enumerated() {
                let key = String(decoding: segment, as: UTF8.self).lowercased()
                let isLast = index == segments.count - 1
                let kind: PathNode.Kind = !isLast ? .directory : entry.isDirectory ? .explicitDirectory : .file
                guard let existing = node.children[key] else {
                    let child = PathNode(kind: kind)
                    node.children[key] = child
                    node = child
                    continue
                }
                switch (existing.kind, kind) {
                case (.file, .file), (.explicitDirectory, .explicitDirectory):
                    throw .duplicateEntry(name: entry.displayName)
                case (.file, _), (_, .file):
                    throw .pathConflict(name: entry.displayName)
                case (.directory, .explicitDirectory):
                    existing.kind = .explicitDirectory
                case (.directory, .directory), (.explicitDirectory, .directory):
                    break
                }
                node = existing
            }
        }
    }

    // MARK: Local headers (APPNOTE 4.3.7)

    /// Reads every local header, checks it against its central record, and checks that entries' header+data
    /// ranges lie before the central directory without overlapping (overlap is how "better zip bombs" reuse
    /// one compressed stream many times).
    private func readLocalHeaders(_ entries: inout [CentralEntry]) throws(ZipReadError) {
        // Ties broken by directory position, so the same archive always reports the same error.
        let order = entries.indices.sorted {
            (entries[$0].localHeaderOffset, $0) < (entries[$1].localHeaderOffset, $1)
        }
        var previousEnd = 0
        for index in order {
            let entry = entries[index]
            guard entry.localHeaderOffset <= UInt64(directoryStart) else {
                throw entry.localHeaderOffset > UInt64(view.count)
                    ? .truncated : .corrupt(reason: "an entry starts inside the central directory")
            }
            let header = Int(entry.localHeaderOffset)
            guard header >= previousEnd else { throw .corrupt(reason: "entries overlap") }
            guard header + ZipFormat.localFileHeaderSize <= directoryStart,
                view.u32(header) == ZipFormat.localFileHeaderSignature,
                let flags = view.u16(header + 6), let method = view.u16(header + 8), let crc = view.u32(header + 14),
                let compressed32 = view.u32(header + 18), let uncompressed32 = view.u32(header + 22),
                let nameLength = view.u16(header + 26), let extraLength = view.u16(header + 28)
            else { throw .corrupt(reason: "a local header is missing or invalid") }
            let nameStart = header + ZipFormat.localFileHeaderSize
            let dataStart = nameStart + Int(nameLength) + Int(extraLength)
            guard dataStart <= directoryStart, entry.compressedSize <= UInt64(directoryStart - dataStart) else {
                throw .corrupt(reason: "an entry's data runs into the central directory")
            }
            guard view.array(nameStart, length: Int(nameLength)) == entry.rawName else {
                throw .corrupt(reason: "a local header's name differs from the central directory")
            }
            if flags & (ZipFormat.flagEncrypted | ZipFormat.flagStrongEncryption) != 0 {
                throw .encrypted(name: entry.displayName)
            }
            guard method == entry.method else {
                throw .corrupt(reason: "a local header's method differs from the central directory")
            }
            if flags & ZipFormat.flagDataDescriptor == 0 {
                var compressed = UInt64(compressed32)
                var uncompressed = UInt64(uncompressed32)
                if compressed32 == ZipFormat.sentinel32 || uncompressed32 == ZipFormat.sentinel32 {
                    // 4.5.3: in a local header the Zip64 field holds both sizes, uncompressed first.
                    guard let extra = view.slice(nameStart + Int(nameLength), length: Int(extraLength)) else {
                        throw .truncated
                    }
                    var values = Zip64Values(extra: extra)
                    let zip64Uncompressed = try values.next()
                    let zip64Compressed = try values.next()
                    if uncompressed32 == ZipFormat.sentinel32 { uncompressed = zip64Uncompressed }
                    if compressed32 == ZipFormat.sentinel32 { compressed = zip64Compressed }
                }
                guard crc == entry.crc, compressed == entry.compressedSize, uncompressed == entry.uncompressedSize
                else { throw .corrupt(reason: "a local header disagrees with the central directory") }
            }
            entries[index].dataStart = dataStart
            previousEnd = dataStart + Int(entry.compressedSize)
        }
    }

    // MARK: Data

    /// The bytes of one file entry returned by `checkStructure`, inflated (with `inflater`, made on first need and
    /// reused) and CRC-checked: exactly as long as declared or an error.
    func file(_ entry: CentralEntry, inflater: inout Inflater?) throws(ZipReadError) -> ExtractedEntry {
        guard let data = view.slice(entry.dataStart, length: Int(entry.compressedSize)) else { throw .truncated }
        guard let size = Int(exactly: entry.uncompressedSize) else {
            throw .entryTooLarge(
                name: entry.displayName, size: entry.uncompressedSize, limit: limits.maxEntryUncompressed)
        }
        let bytes: [UInt8]
        if entry.method == ZipFormat.methodStored {
            bytes = Array(data)
        } else {
            if inflater == nil { inflater = Inflater() }
            guard let active = inflater else { throw .outOfMemory }
            var outcome = Inflater.Outcome.corrupt
            bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                outcome = active.inflate(data, into: UnsafeMutableRawBufferPointer(buffer))
                // Only a complete inflate filled the buffer; otherwise keep nothing.
                initialized = outcome == .complete(consumed: data.count) ? size : 0
            }
            switch outcome {
            case .complete(let consumed) where consumed == data.count: break
            case .complete: throw .corrupt(reason: "an entry has bytes after its deflate stream")
            case .exceedsDeclaredSize, .shorterThanDeclared: throw .sizeMismatch(name: entry.displayName)
            case .truncated: throw .corrupt(reason: "an entry's deflate stream is cut short")
            case .corrupt: throw .corrupt(reason: "an entry's deflate data is invalid")
            case .outOfMemory: throw .outOfMemory
            }
        }
        let crc = bytes.withUnsafeBytes { CRC32.checksum($0) }
        guard crc == entry.crc else { throw .crcMismatch(name: entry.displayName) }
        return ExtractedEntry(name: entry.name, bytes: bytes)
    }
}

/// One central directory record, checked.
struct CentralEntry {
    var name: ZipEntryName
    var displayName: String
    var rawName: [UInt8]
    var isDirectory: Bool
    var flags: UInt16
    var method: UInt16
    var crc: UInt32
    var compressedSize: UInt64
    var uncompressedSize: UInt64
    var localHeaderOffset: UInt64
    /// Set once the local header has been read.
    var dataStart = 0
}

/// A node of the folded path tree built by `checkCollisions`.
private final class PathNode {
    enum Kind {
        /// A directory implied by a deeper entry's path.
        case directory
        /// A directory with its own entry (`name/`).
        case explicitDirectory
        /// A file entry.
        case file
    }

    var kind: Kind
    var children: [String: PathNode] = [:]

    init(kind: Kind) { self.kind = kind }
}

/// The 8-byte values of a Zip64 extended information extra field (APPNOTE 4.5.3), taken in order.
private struct Zip64Values {
    private let field: ByteView?
    private var position = 0

    /// Finds the 0x0001 field among `extra`'s fields (each: 2-byte ID, 2-byte size, data).
    init(extra: UnsafeRawBufferPointer) {
        let view = ByteView(bytes: extra)
        var offset = 0
        var found: ByteView?
        while let id = view.u16(offset), let size = view.u16(offset + 2),
            let data = view.slice(offset + 4, length: Int(size))
        {
            if id == ZipFormat.zip64ExtraFieldID {
                found = ByteView(bytes: data)
                break
            }
            offset += 4 + Int(size)
        }
        field = found
    }

    mutating func next() throws(ZipReadError) -> UInt64 {
        guard let value = field?.u64(position) else { throw .corrupt(reason: "a Zip64 field is missing") }
        position += 8
        return value
    }
}
