import Foundation
import SkinModel
import ZipReading

/// Turns a verified download into `packages/<sign>/`, hostile-first: the shared zip reader checks the whole
/// archive's structure (names escaping the folder, links, duplicates, absurd sizes and ratios) before it hands over
/// the first file; files go into a staging folder, `config.json` is validated, and only then is the folder renamed
/// into place. Any failure removes the staging folder, so no partial package is ever visible.
struct PackageInstaller: Sendable {
    let storage: SkinStorage

    /// The limits a phone applies to a package (the server builds far smaller ones).
    static let limits: ZipArchiveReader.Limits = {
        var limits = ZipArchiveReader.Limits()
        limits.maxEntries = 10_000
        limits.maxTotalUncompressed = 512 << 20
        limits.maxEntryUncompressed = 128 << 20
        return limits
    }()

    /// - Throws: `zip` (a hostile or corrupt archive), `config` (missing or invalid `config.json`), `disk`.
    func install(_ entry: PackageEntry, from part: URL) throws(LiveryError) {
        let staging = storage.staging.appendingPathComponent("\(entry.sign)-\(UUID().uuidString)", isDirectory: true)
        let files = FileManager.default
        do {
            try files.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw LiveryError.disk("cannot create", staging.path, error)
        }
        do throws(LiveryError) {
            try unpack(part, into: staging)
            _ = try PackageContents.configs(in: staging)
            let destination = storage.packageFolder(entry.sign)
            if files.fileExists(atPath: destination.path) {
                try? files.removeItem(at: staging)
            } else {
                do {
                    try files.moveItem(at: staging, to: destination)
                } catch {
                    throw LiveryError.disk("cannot move the package into", destination.path, error)
                }
            }
        } catch {
            try? files.removeItem(at: staging)
            throw error
        }
        PackageDownloader.discard(part, storage.etagFile(entry.sign))
    }

    /// Unpacks `part` (memory-mapped by the reader, never read whole into memory) into `folder`, one verified
    /// file at a time.
    private func unpack(_ part: URL, into folder: URL) throws(LiveryError) {
        var diskError: LiveryError?
        do {
            try ZipArchiveReader.forEachFile(inArchiveAt: part, limits: Self.limits) { entry in
                guard diskError == nil else { return }
                let target = folder.appendingPathComponent(entry.name.rawValue)
                do {
                    try FileManager.default.createDirectory(
                        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(entry.bytes).write(to: target)
                } catch {
                    diskError = LiveryError.disk("cannot write", target.path, error)
                }
            }
        } catch {
            throw LiveryError(.zip, "\(error)")
        }
        if let diskError { throw diskError }
    }
}

/// The configs of an unpacked package, read back with the same parser the server validated them with
/// (`PackageConfig`): `config.json`, and `config-dark.json` in packages that hold both appearances.
enum PackageContents {
    /// - Throws: `config` when `config.json` is missing, not JSON, or invalid against the package's own files.
    static func configs(in folder: URL) throws(LiveryError) -> [Appearance: SkinConfig] {
        do {
            return try PackageConfig.read(folder: folder)
        } catch {
            throw LiveryError(.config, error.description)
        }
    }
}
