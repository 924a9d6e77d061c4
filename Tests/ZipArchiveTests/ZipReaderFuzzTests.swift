import TestSupport
import Testing
import ZipArchive
import ZipReading

/// Mutated valid archives must only ever produce entries or a `ZipReadError`: never a crash, a hang, or an
/// entry that breaks the reader's guarantees. Fixed seed and iteration count, so a failure repeats exactly.
@Suite("ZipArchiveReader fuzz")
struct ZipReaderFuzzTests {
    static let iterations = 20_000

    /// Small archives (headers are a large share of their bytes) covering stored, deflated, Zip64 and data
    /// descriptor layouts.
    static func seeds() throws -> [[UInt8]] {
        var random = SplitMix64(seed: 99)
        let text = Array(String(repeating: "{\"color\":\"#FFEEDD\"}", count: 40).utf8)
        let entries = [
            ZipEntry(name: try ZipEntryName("config.json"), source: .bytes(text)),
            ZipEntry(name: try ZipEntryName("images/a.png"), source: .bytes(SourceTree.pngLike(random.bytes(64)))),
            ZipEntry(name: try ZipEntryName("images/b.png"), source: .bytes([])),
            ZipEntry(name: try ZipEntryName("lottie/x.json"), source: .bytes(Array(repeating: 65, count: 700)))
        ]
        var plain = ZipMemoryOutput()
        try ZipArchiveWriter.write(entries, to: &plain)
        var zip64 = ZipMemoryOutput()
        var options = ZipArchiveWriter.Options()
        options.zip64Threshold = 0
        options.zip64EntryCountThreshold = 0
        try ZipArchiveWriter.write(entries, to: &zip64, options: options)
        var descriptor = RawZip.Entry.deflated("d.json", content: text, compressed: try RawZip.deflate(text))
        descriptor.flags |= 0x0008
        let withDescriptor = RawZip(entries: [.stored("images/", []), descriptor, .stored("c.txt", Array("hi".utf8))])
            .build()
        return [plain.bytes, zip64.bytes, withDescriptor]
    }

    static func mutate(_ input: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let rounds = Int.random(in: 1...3, using: &random)
        for _ in 0..<rounds where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0:  // flip bits in one byte
                bytes[position] ^= UInt8.random(in: 1...255, using: &random)
            case 1:  // overwrite a little-endian field with an extreme value
                let width = [2, 4, 8].randomElement(using: &random) ?? 4
                let value: UInt64 =
                    [0, 1, 0xFFFF, 0xFFFF_FFFF, UInt64.max, UInt64(bytes.count), random.next()]
                    .randomElement(using: &random) ?? 0
                for offset in 0..<width where position + offset < bytes.count {
                    bytes[position + offset] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(offset)))
                }
            case 2:  // truncate
                bytes.removeSubrange(position...)
            case 3:  // insert random bytes
                bytes.insert(contentsOf: random.bytes(Int.random(in: 1...16, using: &random)), at: position)
            case 4:  // delete a range
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...32, using: &random)))
            case 5:  // copy a chunk elsewhere (duplicated headers, overlapping records)
                let length = min(bytes.count - position, Int.random(in: 4...64, using: &random))
                let chunk = Array(bytes[position..<(position + length)])
                let target = Int.random(in: 0..<bytes.count, using: &random)
                bytes.replaceSubrange(target..<min(bytes.count, target + length), with: chunk)
            default:  // randomise one byte
                bytes[position] = UInt8.random(in: 0...255, using: &random)
            }
        }
        return bytes
    }

    @Test func randomArchivesFromTheWriterReadBackExactly() throws {
        var random = SplitMix64(seed: 2027)
        let alphabet = Array("abcXYZ09-_.@春".unicodeScalars)
        for _ in 0..<60 {
            var files: [String: [UInt8]] = [:]
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let depth = Int.random(in: 1...3, using: &random)
                let name = (0..<depth).map { _ in
                    String(
                        String.UnicodeScalarView(
                            (0..<Int.random(in: 1...6, using: &random)).map { _ in
                                alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                            }))
                }.joined(separator: "/")
                guard (try? ZipEntryName(name)) != nil else { continue }
                let size = Int.random(in: 0...5000, using: &random)
                files[name] =
                    Bool.random(using: &random) ? random.bytes(size) : Array(repeating: UInt8(size % 256), count: size)
            }
            // Drop names that are also parents of other names (a file cannot be a directory).
            let names = Set(files.keys)
            for name in names where names.contains(where: { $0.hasPrefix(name + "/") }) { files[name] = nil }
            // Case-insensitive duplicates are legal for the writer but rejected by the reader: keep one.
            var folded = Set<String>()
            for name in files.keys.sorted() where !folded.insert(name.lowercased()).inserted { files[name] = nil }

            let compressions: [ZipCompression] = [.automatic, .store, .deflate(level: 1), .deflate(level: 9)]
            let entries = try files.map { name, bytes in
                ZipEntry(
                    name: try ZipEntryName(name), source: .bytes(bytes),
                    compression: compressions[Int.random(in: 0..<compressions.count, using: &random)])
            }
            var options = ZipArchiveWriter.Options()
            if Bool.random(using: &random) { options.zip64Threshold = UInt64.random(in: 0...10_000, using: &random) }
            var output = ZipMemoryOutput()
            try ZipArchiveWriter.write(entries, to: &output, options: options)
            let extracted = try ZipArchiveReader.extract(output.bytes)
            #expect(Dictionary(uniqueKeysWithValues: extracted.map { ($0.name.rawValue, $0.bytes) }) == files)
        }
    }

    @Test func mutatedArchivesNeverCrashTheReader() throws {
        let seeds = try Self.seeds()
        for seed in seeds { _ = try ZipArchiveReader.extract(seed) }  // the seeds themselves are valid
        var random = SplitMix64(seed: 0x5EED)
        let limits = ZipArchiveReader.Limits(
            maxEntries: 100, maxTotalUncompressed: 1 << 20, maxEntryUncompressed: 1 << 20)
        var accepted = 0
        var codes: [String: Int] = [:]
        for _ in 0..<Self.iterations {
            let seed = seeds[Int.random(in: 0..<seeds.count, using: &random)]
            let mutated = Self.mutate(seed, &random)
            do {
                let entries = try ZipArchiveReader.extract(mutated, limits: limits)
                accepted += 1
                #expect(entries.count <= limits.maxEntries)
                #expect(UInt64(entries.reduce(0) { $0 + $1.bytes.count }) <= limits.maxTotalUncompressed)
            } catch {
                codes[error.code, default: 0] += 1
            }
        }
        // The mutations reach deep: many distinct rejections, and some harmless mutations still accepted.
        // (20,000 runs see about 15 distinct codes: corrupt, truncated, CRC, names, limits, encryption...)
        #expect(codes.count >= 10, "rejections seen: \(codes)")
        #expect(accepted > 0)
    }
}
