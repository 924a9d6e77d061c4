import Foundation
import TestSupport
import Testing

/// An archive as readers we did not write see it.
struct ArchiveContents {
    /// Entry names in archive order, as Python's `zipfile` lists them.
    var names: [String]
    /// Every entry's bytes, read (and CRC-checked) by Python's `zipfile`.
    var files: [String: [UInt8]]
    /// Every entry's compression method (0 stored, 8 deflated).
    var methods: [String: Int]
}

/// Opens archives with Python's `zipfile` (`testzip()` and reading every member), `unzip -t` and `bsdtar -tf`.
enum IndependentReaders {
    /// Checks `archive` with all three readers, expects each to accept it and to list the same names, and returns
    /// Python's view of it (names and bytes).
    static func read(
        _ archive: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ArchiveContents {
        let python = try await ExternalProcess.run("python3", ["-c", pythonReader, archive])
        try #require(
            python.status == 0, "python zipfile rejected \(archive): \(python.transcript)",
            sourceLocation: sourceLocation)
        let report = try JSONDecoder().decode(PythonReport.self, from: Data(python.standardOutput.utf8))
        #expect(
            report.bad == nil, "zipfile.testzip() found a bad entry: \(report.bad ?? "")",
            sourceLocation: sourceLocation)
        let names = report.entries.map(\.name)

        let unzip = try await ExternalProcess.run("unzip", ["-t", archive])
        #expect(unzip.status == 0, "unzip -t: \(unzip.transcript)", sourceLocation: sourceLocation)
        #expect(
            unzip.standardOutput.contains("No errors detected"), "unzip -t: \(unzip.transcript)",
            sourceLocation: sourceLocation)
        let tested = unzip.standardOutput.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("testing: "), trimmed.hasSuffix(" OK") else { return nil }
            return trimmed.dropFirst("testing: ".count).dropLast(" OK".count).trimmingCharacters(in: .whitespaces)
        }
        #expect(tested.sorted() == names.sorted(), "unzip -t tested other entries", sourceLocation: sourceLocation)

        let bsdtar = try await ExternalProcess.run("bsdtar", ["-tf", archive])
        #expect(bsdtar.status == 0, "bsdtar -tf: \(bsdtar.transcript)", sourceLocation: sourceLocation)
        let listed = bsdtar.standardOutput.split(separator: "\n").map(String.init)
        #expect(listed == names, "bsdtar -tf listed other entries", sourceLocation: sourceLocation)

        var files: [String: [UInt8]] = [:]
        var methods: [String: Int] = [:]
        for entry in report.entries {
            files[entry.name] = [UInt8](entry.data)
            methods[entry.name] = entry.method
        }
        return ArchiveContents(names: names, files: files, methods: methods)
    }

    private struct PythonReport: Decodable {
        struct Entry: Decodable {
            var name: String
            var method: Int
            var data: Data
        }
        var bad: String?
        var entries: [Entry]
    }

    private static let pythonReader = #"""
        import base64, json, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as z:
            bad = z.testzip()
            entries = [{"name": i.filename, "method": i.compress_type,
                        "data": base64.b64encode(z.read(i)).decode()} for i in z.infolist()]
        print(json.dumps({"bad": bad, "entries": entries}))
        """#
}
