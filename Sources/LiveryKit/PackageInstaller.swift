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
    func install(_ entry: PackageEntry, from part: URL, contents: PackageAppearance) throws(LiveryError) {
        let staging = storage.staging.appendingPathComponent("\(entry.sign)-\(UUID().uuidString)", isDirectory: true)
        let files = FileManager.default
        do {
            try files.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw LiveryError.disk("cannot create", staging.path, error)
        }
        do throws(LiveryError) {
            try unpack(part, into: staging)
            _ = try PackageContents.configs(in: staging, contents: contents)
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
            // A package that fails here failed with the right hash: downloading it again would fail the same way.
            try? files.removeItem(at: staging)
            PackageDownloader.discard(part, storage.etagFile(entry.sign))
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
            throw LiveryError(.zip, (error as? ZipReadError)?.description ?? "\(error)")
        }
        if let diskError { throw diskError }
    }
}

/// The configs of an unpacked package, read back with the same parser the server validated them with
/// (`PackageConfig`): `config.json`, and `config-dark.json` in packages that hold both appearances.
enum PackageContents {
    /// - Throws: `config` when a config is missing, not JSON, or invalid against the package's own files.
    static func configs(in folder: URL, contents: PackageAppearance) throws(LiveryError) -> [Appearance: SkinConfig] {
        do {
            return try PackageConfig.read(PackageFolder(root: folder), contents: contents).configs
        } catch {
            throw LiveryError(.config, error.description)
        }
    }
}

/// An unpacked package folder as the shared `SkinSource` role, on Foundation alone. The folder is the SDK's own
/// (written from a checked zip, which holds no links), so listing it needs no guard against links beyond not
/// following them: a link found is listed as one, and `PackageConfig` refuses it.
struct PackageFolder: SkinSource {
    let root: URL

    func listFiles() throws(SkinSourceError) -> [SkinFile] {
        let base = root.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: base) else { throw .rootNotFound }
        var files: [SkinFile] = []
        while let relative = walker.nextObject() as? String {
            guard let attributes = walker.fileAttributes, let type = attributes[.type] as? FileAttributeType else {
                continue
            }
            switch type {
            case .typeRegular:
                files.append(SkinFile(path: relative, size: (attributes[.size] as? NSNumber)?.intValue ?? 0))
            case .typeSymbolicLink:
                files.append(SkinFile(path: relative, size: 0, kind: .symlink))
            default:
                continue
            }
        }
        return files.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
    }

    func read(_ path: String) throws(SkinSourceError) -> [UInt8] {
        guard !path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }), !path.hasPrefix("/") else {
            throw .refusedPath(path)
        }
        do {
            return [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
        } catch {
            throw .unreadable(path, reason: LiveryError.reason(error))
        }
    }

    func filePath(of path: String) -> String? { root.appendingPathComponent(path).path }
}
