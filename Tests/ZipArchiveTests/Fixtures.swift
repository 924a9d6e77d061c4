import Foundation
import TestSupport
import Testing
import ZipArchive
import ZipReading

/// A test-data file set: relative name → bytes. Written to disk to serve as sources and as the reference
/// that independent readers' output is compared with.
struct SourceTree {
    var files: [String: [UInt8]]

    /// A skin-like tree: incompressible "PNG"s (random bytes), JSON, SVG, an empty file, a non-ASCII name,
    /// nested folders, and one file larger than `largeSize` bytes.
    static func make(seed: UInt64 = 42, largeSize: Int = 300_000) -> SourceTree {
        var random = SplitMix64(seed: seed)
        var files: [String: [UInt8]] = [:]
        files["config.json"] = Array(Self.json(modules: 200).utf8)
        files["skin.json"] = Array(#"{"id":"spring-festival-2027","title":"Spring Festival 2027","app":"ziroom"}"#.utf8)
        files["images/tab_home.png"] = pngLike(random.bytes(2_000))
        files["images/tab_home@2x.png"] = pngLike(random.bytes(8_000))
        files["images/tab_home@3x.png"] = pngLike(random.bytes(largeSize))
        files["images/banner.JPG"] = random.bytes(5_000)
        files["icons/logo.svg"] = Array(String(repeating: "<path d=\"M0 0 L10 10\"/>\n", count: 300).utf8)
        files["lottie/fireworks.json"] = Array(Self.json(modules: 50).utf8)
        files["notes/empty.txt"] = []
        files["notes/春节.txt"] = Array("新年快乐 Happy New Year\n".utf8)
        files["data/noise.bin"] = random.bytes(4_000)  // unknown extension, incompressible: deflate then store
        return SourceTree(files: files)
    }

    static func pngLike(_ body: [UInt8]) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + body
    }

    static func json(modules: Int) -> String {
        var text = "{"
        for index in 0..<modules {
            if index > 0 { text += "," }
            text +=
                ##""module_\##(index)":{"colors":{"color_background":"#FFEEDD","color_text":"rgba<254,220,189,0.9>"},"##
            text += ##""images":{"tab_home":"tab_home.png"}}"##
        }
        return text + "}"
    }

    func writeAll(to directory: ScratchDirectory, under folder: String = "src") throws -> String {
        try directory.write(files, under: folder)
    }

    /// Entries reading each file from `root` (or, with `inMemory`, carrying the bytes).
    func entries(root: String, inMemory: Bool = false) throws -> [ZipEntry] {
        try files.keys.sorted().map { name in
            ZipEntry(
                name: try ZipEntryName(name),
                source: inMemory ? .bytes(files[name] ?? []) : .file(path: root + "/" + name))
        }
    }
}

/// Opens `archive` with Python's zipfile (testzip + byte comparison), `unzip -t`, `bsdtar -t` and
/// `bsdtar -x`, and checks every reader sees exactly `expected`.
func verifyWithIndependentReaders(
    _ archive: String, expected: [String: [UInt8]], scratch: ScratchDirectory
) async throws {
    let referenceFolder = "reference-\(UUID().uuidString)"
    let referenceRoot = scratch.path(referenceFolder)
    try FileManager.default.createDirectory(atPath: referenceRoot, withIntermediateDirectories: true)
    for (name, bytes) in expected { try scratch.write(referenceFolder + "/" + name, bytes) }

    let python = try await ExternalProcess.run("python3", ["-c", pythonCheck, archive, referenceRoot])
    #expect(python.status == 0, "python zipfile: \(python.transcript)")

    let unzip = try await ExternalProcess.run("unzip", ["-t", "-q", archive])
    #expect(unzip.status == 0, "unzip -t: \(unzip.transcript)")

    let list = try await ExternalProcess.run("bsdtar", ["-tf", archive])
    #expect(list.status == 0, "bsdtar -t: \(list.transcript)")
    let listed = list.standardOutput.split(separator: "\n").map(String.init).sorted()
    #expect(listed == expected.keys.sorted())

    let extractRoot = scratch.path("bsdtar-\(UUID().uuidString)")
    try FileManager.default.createDirectory(atPath: extractRoot, withIntermediateDirectories: true)
    let extract = try await ExternalProcess.run("bsdtar", ["-xf", archive, "-C", extractRoot])
    #expect(extract.status == 0, "bsdtar -x: \(extract.transcript)")
    for (name, bytes) in expected {
        let data = FileManager.default.contents(atPath: extractRoot + "/" + name).map { [UInt8]($0) }
        #expect(data == bytes, "bsdtar extracted \(name) differently")
    }
}

/// Python: testzip() must find nothing, names must match the reference tree, and bytes must match.
private let pythonCheck = #"""
    import os, sys, zipfile
    archive, root = sys.argv[1], sys.argv[2]
    expected = {}
    for directory, _, files in os.walk(root):
        for f in files:
            full = os.path.join(directory, f)
            expected[os.path.relpath(full, root)] = open(full, 'rb').read()
    with zipfile.ZipFile(archive) as z:
        bad = z.testzip()
        if bad is not None:
            sys.exit('testzip: bad entry ' + bad)
        names = z.namelist()
        if sorted(names) != sorted(expected):
            sys.exit('names differ: %r vs %r' % (sorted(names)[:5], sorted(expected)[:5]))
        for name in names:
            if z.read(name) != expected[name]:
                sys.exit('content differs: ' + name)
    """#

/// What Python's zipfile says about one entry.
struct PythonEntryInfo: Decodable, Equatable {
    var name: String
    var method: Int
    var size: Int
    var compressedSize: Int
    var flags: Int
    var dateTime: [Int]
    var externalAttributes: Int
    var createSystem: Int
    var extractVersion: Int
    var extraLength: Int
}

/// Python zipfile's view of every entry (in archive order).
func pythonEntryInfo(_ archive: String) async throws -> [PythonEntryInfo] {
    let script = #"""
        import json, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as z:
            print(json.dumps([{"name": i.filename, "method": i.compress_type, "size": i.file_size,
                "compressedSize": i.compress_size, "flags": i.flag_bits, "dateTime": list(i.date_time),
                "externalAttributes": i.external_attr, "createSystem": i.create_system,
                "extractVersion": i.extract_version, "extraLength": len(i.extra)} for i in z.infolist()]))
        """#
    let run = try await ExternalProcess.run("python3", ["-c", script, archive])
    try #require(run.status == 0, "python zipfile failed: \(run.transcript)")
    return try JSONDecoder().decode([PythonEntryInfo].self, from: Data(run.standardOutput.utf8))
}

/// True when `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { start in
        haystack[start..<(start + needle.count)].elementsEqual(needle)
    }
}
