import Foundation

/// A temporary folder removed when the value is dropped, so every test cleans up even when it fails.
final class Scratch {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/livery-package-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The absolute path of `relative` inside the folder.
    func url(_ relative: String) -> String { path + "/" + relative }

    /// Writes `bytes` at `relative`, creating folders; returns the absolute path.
    @discardableResult
    func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let full = url(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }

    /// Copies the folder at `source` to `relative` and returns the copy's absolute path.
    func copy(folder source: String, to relative: String) throws -> String {
        let destination = url(relative)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// The names in the folder at `relative` (the scratch root by default), sorted.
    func listing(_ relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? path : url(relative)).sorted()
    }
}

/// Reads a whole file as bytes (`nil` when it does not exist).
func readFile(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
