import LiveryCrypto
import LiveryProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileSkinStore {
    /// The path of the blob holding `file` of version `version` of `skinID`, after reading it whole and checking
    /// that it holds exactly the bytes its content address (SHA-256 and size) names: what to call before building a
    /// package from a stored file or serving it, so bytes damaged on disk are never passed on as good.
    ///
    /// O(file size). The check is of the moment: blobs never change while the store is open, so a mismatch is
    /// damage from outside the process.
    ///
    /// - Throws: `corruptFile` naming the blob (and, in the reason, the skin, version and file) if it is missing,
    ///   has another size or another digest; `invalidDigest` for a malformed digest; `io` if it cannot be read.
    func verifiedBlobPath(of file: StoredFile, skinID: String, version: Int) throws(StoreError) -> String {
        let path = try blobPath(digest: file.sha256)
        guard let (size, digest) = try FileIO.contentAddress(of: path) else {
            throw .corruptFile(path: path, reason: "blob of \(skinID) v\(version) \(file.path) is missing")
        }
        guard size == file.size, digest == file.sha256 else {
            throw .corruptFile(path: path, reason: Self.mismatch(skinID: skinID, version: version, file: file))
        }
        return path
    }

    /// Why a blob is refused: it does not hold what its name promises.
    static func mismatch(skinID: String, version: Int, file: StoredFile) -> String {
        StoreChanges.mismatch(skinID: skinID, version: version, file: file)
    }

    /// What `verify()` found.
    public struct VerificationReport: Sendable, Equatable {
        /// Number of blob files read and rehashed.
        public var checkedBlobs: Int
        /// Paths of blob files whose content does not hash to their name (or whose name is not a digest).
        public var corruptBlobs: [String]
        /// Digests the current snapshot refers to (files and metadata) for which no blob file exists.
        public var missingBlobs: [String]

        /// True when nothing is corrupt or missing.
        public var isHealthy: Bool { corruptBlobs.isEmpty && missingBlobs.isEmpty }
    }

    /// Maintenance: rehashes every blob on disk and checks that every blob the current snapshot refers to exists.
    ///
    /// Reads everything (O(total bytes stored)); it holds no lock, so changes go on meanwhile. It repairs
    /// nothing: a corrupt blob is reported for an operator to restore. Temporary files are skipped.
    ///
    /// - Throws: `io` if a directory or blob cannot be read.
    public func verify() throws(StoreError) -> VerificationReport {
        let blobs = directory + "/blobs"
        var report = VerificationReport(checkedBlobs: 0, corruptBlobs: [], missingBlobs: [])
        var present = Set<String>()
        for prefix in try FileIO.list(blobs).sorted() where !prefix.hasPrefix(FileIO.temporaryPrefix) {
            guard let names = try FileIO.listIfDirectory(blobs + "/" + prefix) else {
                report.corruptBlobs.append(blobs + "/" + prefix)
                continue
            }
            for name in names.sorted() where !name.hasPrefix(FileIO.temporaryPrefix) {
                let path = blobs + "/" + prefix + "/" + name
                var hasher = SHA256()
                try FileIO.forEachChunk(of: path) { hasher.update($0) }
                let digest = Hex.encode(hasher.finalize())
                report.checkedBlobs += 1
                if digest == prefix + name {
                    present.insert(digest)
                } else {
                    report.corruptBlobs.append(path)
                }
            }
        }
        var referenced = Set<String>()
        for skin in snapshot.skins.values {
            for version in skin.versions {
                referenced.insert(version.metadataDigest)
                for file in version.files { referenced.insert(file.sha256) }
            }
        }
        report.missingBlobs = referenced.subtracting(present).sorted()
        return report
    }
}
