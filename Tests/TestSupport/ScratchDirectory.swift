import Foundation

/// A fresh temporary folder for one test, removed with everything in it when the value goes away, so a test
/// cleans up even when it fails.
///
/// Keep the value in a local (or a stored property) for as long as the files are used: the folder is removed
/// when the last reference is dropped, not at the end of the test. The folder exists from `init` on.
public final class ScratchDirectory: Sendable {
    /// The folder's absolute path: `<system temporary folder>/<prefix>-<UUID>`.
    public let path: String

    /// Creates the folder. `prefix` names the suite that made it, so a leftover folder says where it came from.
    public init(prefix: String = "livery-tests") throws {
        path = FileManager.default.temporaryDirectory.path + "/" + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The absolute path of `relative` inside the folder (nothing is created).
    public func path(_ relative: String) -> String { path + "/" + relative }

    /// Writes `bytes` at `relative`, creating the folders on the way; returns the file's absolute path.
    @discardableResult
    public func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }

    /// Writes every file of `files` (relative name → bytes) under the folder `relative` (the scratch folder itself
    /// by default; created even when `files` is empty); returns that folder's absolute path.
    @discardableResult
    public func write(_ files: [String: [UInt8]], under relative: String = "") throws -> String {
        let folder = relative.isEmpty ? path : path(relative)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, bytes) in files { try write(relative.isEmpty ? name : relative + "/" + name, bytes) }
        return folder
    }

    /// The bytes of the file at `relative`.
    public func read(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    /// Copies the folder (or file) at `source` to `relative` and returns the copy's absolute path.
    public func copy(folder source: String, to relative: String) throws -> String {
        let destination = path(relative)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// The names in the folder at `relative` (the scratch folder itself by default), sorted.
    public func listing(_ relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? path : path(relative)).sorted()
    }
}
