import Foundation
import LiveryCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileSkinStore {
    /// Rehashes every blob and recomputes every version record of the file store in `directory`, reporting each
    /// piece of damage, without opening the store: it takes no lock, so it runs beside the `livery serve` that
    /// has the folder open (`livery store verify`) and inside it (the periodic scrub).
    ///
    /// Safe against a live writer: `state.json` is replaced atomically and blobs are written under their name
    /// only once complete, so every blob the state read here refers to is whole. Reads everything once
    /// (O(total bytes stored)); a blob several versions share is read once. Blobs no live version refers to
    /// (deleted skins') are rehashed too and reported with skin `-`.
    ///
    /// - Throws: `io` if `directory/state.json` does not exist or a file cannot be read (not damage: the input
    ///   is unusable).
    public static func scrub(directory: String) throws(StoreError) -> StoreScrubReport {
        var report = StoreScrubReport()
        let statePath = directory + "/state.json"
        guard let bytes = try FileIO.readIfExists(statePath) else {
            throw .io(operation: "open", path: statePath, errno: ENOENT)
        }
        let state: PersistedState
        do throws(StoredObject.Fault) {
            state = try PersistedState.parse(bytes)
        } catch {
            report.damages.append(
                StoreDamage(
                    kind: .version, skinID: "-", version: 0, location: "state.json",
                    reason: "not a state record: \(error.text)"))
            return report
        }

        /// Who refers to each digest: (skin, version, the file's path or `metadata`), and the size they expect.
        var references: [String: [(skin: String, version: Int, path: String, size: Int)]] = [:]
        for skin in state.skins where !skin.deleted {
            for version in skin.versions {
                report.checkedVersions += 1
                let files = version.files.map { StoredFile(path: $0.path, size: $0.size, sha256: $0.sha256) }
                let digest = SkinVersion.digest(files: files, metadataDigest: version.metadata)
                if digest != version.digest {
                    report.damages.append(
                        StoreDamage(
                            kind: .version, skinID: skin.id, version: version.number, location: "state.json",
                            reason:
                                "the version digest is \(version.digest) but its files and metadata hash to \(digest)"))
                }
                references[version.metadata, default: []].append(
                    (skin.id, version.number, "metadata", version.metadataSize))
                for file in version.files {
                    references[file.sha256, default: []].append((skin.id, version.number, file.path, file.size))
                }
            }
        }

        let blobs = directory + "/blobs"
        for digest in references.keys.sorted() {
            guard let uses = references[digest] else { continue }
            let found: (size: Int, sha256: String)?
            if (try? StoreNames.checkDigest(digest)) == nil {
                found = nil
            } else {
                found = try FileIO.contentAddress(of: blobPath(digest: digest, in: blobs))
                report.checkedBlobs += 1
            }
            for use in uses {
                let reason: String
                if let found {
                    guard found.size != use.size || found.sha256 != digest else { continue }
                    reason =
                        "the blob holds \(found.size) bytes hashing to \(found.sha256), not \(use.size) bytes hashing to \(digest)"
                } else {
                    reason = "the blob \(digest) is missing"
                }
                report.damages.append(
                    StoreDamage(
                        kind: .blob, skinID: use.skin, version: use.version, location: use.path, reason: reason))
            }
        }

        // Blobs no live version refers to: still content-addressed, so still checked.
        for prefix in (try FileIO.listIfDirectory(blobs) ?? []).sorted() where !prefix.hasPrefix(FileIO.temporaryPrefix)
        {
            guard let names = try FileIO.listIfDirectory(blobs + "/" + prefix) else { continue }
            for name in names.sorted() where !name.hasPrefix(FileIO.temporaryPrefix) {
                let digest = prefix + name
                guard references[digest] == nil else { continue }
                guard let found = try FileIO.contentAddress(of: blobs + "/" + prefix + "/" + name) else { continue }
                report.checkedBlobs += 1
                if found.sha256 != digest {
                    report.damages.append(
                        StoreDamage(
                            kind: .blob, skinID: "-", version: 0, location: "blobs/\(prefix)/\(name)",
                            reason: "the blob hashes to \(found.sha256)"))
                }
            }
        }
        return report
    }
}
