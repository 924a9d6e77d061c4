import Foundation
import SkinModel
import SkinStore

/// A `SkinSource` over one immutable stored version: files are listed from the version record and read from
/// their content-addressed blobs, so big assets are packed by streaming the blob (`filePath(of:)`).
///
/// Blobs are never deleted while the store is open and never change (they are named by their SHA-256), so a
/// source stays valid for as long as the store is open, even after the version is deleted; damage from outside
/// the process is caught when the source is made (each blob is checked against its address).
public struct StoredSkinSource: SkinSource {
    /// The version whose files this source serves.
    public let version: SkinVersion
    private let blobPaths: [String: String]

    /// Reads every stored file of the version once (the store does it off the cooperative pool) and checks it
    /// against its content address, so a package is never built (nor a skin validated) from bytes damaged on
    /// disk: a blob flipped in place keeps its size, and only its digest shows the damage.
    ///
    /// - Throws: `StoreError.corruptFile` naming the first blob that is missing or does not match its address;
    ///   `.invalidDigest` if the version names a malformed digest (a damaged state record); `.io`.
    public init(version: SkinVersion, store: any SkinStore) async throws(StoreError) {
        self.version = version
        var paths: [String: String] = [:]
        for file in version.files {
            paths[file.path] = try await store.verifiedFilePath(
                of: file, skinID: version.skinID, version: version.number)
        }
        self.blobPaths = paths
    }

    public func listFiles() throws(SkinSourceError) -> [SkinFile] {
        // The store keeps files sorted by the UTF-8 bytes of their paths, which is the order sources promise.
        version.files.map { SkinFile(path: $0.path, size: $0.size) }
    }

    public func read(_ path: String) throws(SkinSourceError) -> [UInt8] {
        try read(path, maxBytes: nil)
    }

    public func readPrefix(_ path: String, maxBytes: Int) throws(SkinSourceError) -> [UInt8] {
        try read(path, maxBytes: max(0, maxBytes))
    }

    public func filePath(of path: String) -> String? { blobPaths[path] }

    private func read(_ path: String, maxBytes: Int?) throws(SkinSourceError) -> [UInt8] {
        guard let file = version.file(at: path), let blob = blobPaths[path] else { throw .notFound(path) }
        guard let handle = FileHandle(forReadingAtPath: blob) else {
            throw .unreadable(path, reason: "the stored blob is missing")
        }
        defer { try? handle.close() }
        let wanted = min(file.size, maxBytes ?? file.size)
        let data: Data
        do {
            data = try handle.read(upToCount: wanted) ?? Data()
        } catch {
            throw .unreadable(path, reason: "the stored blob cannot be read")
        }
        guard data.count == wanted else { throw .unreadable(path, reason: "the stored blob is shorter than recorded") }
        return [UInt8](data)
    }
}
