import LiveryCrypto

extension SkinStore {
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
