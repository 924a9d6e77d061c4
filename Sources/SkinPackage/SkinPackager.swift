import CZlib
import Foundation
import LiveryCrypto
import SkinModel
import ZipArchive

/// Packs a validated skin into deterministic zip packages and names each package by its content.
///
/// A package's *sign* is derived from what the archive will contain (entry names, the SHA-256 of every entry's
/// bytes, the compression chosen) plus the archive format version and the zlib version, so it changes if and
/// only if the bytes the app would download change; it can be computed without building the archive.
/// Source files are hashed once per packager and shared by every variant.
public final class SkinPackager: Sendable {
    /// Bumped whenever the writer's output for the same entries could change (layout, compression settings).
    public static let formatVersion = "livery-zip-1"

    /// The skin being packed.
    public let skin: ValidatedSkin
    /// Where the skin's files are read from.
    public let source: any SkinSource
    private let digests: [String: String]

    /// Creates a packager, hashing every file the skin's variants can reference.
    ///
    /// - Throws: `SkinPackageError.unreadable` if a referenced file cannot be read.
    public init(skin: ValidatedSkin, source: any SkinSource) throws(SkinPackageError) {
        self.skin = skin
        self.source = source
        var digests: [String: String] = [:]
        for variant in PackageVariant.all {
            for entry in skin.packagePlan(for: variant).entries {
                guard case .sourceFile(let path) = entry.content, digests[path] == nil else { continue }
                digests[path] = try Self.digest(of: path, in: source)
            }
        }
        self.digests = digests
    }

    /// The content-derived sign of `variant`'s package: 32 lowercase hex characters.
    public func sign(for variant: PackageVariant) -> String {
        var hasher = SHA256()
        hasher.update(Array("\(Self.formatVersion)\nzlib \(Self.zlibVersion)\n".utf8))
        for entry in skin.packagePlan(for: variant).entries {
            let contentDigest: String
            switch entry.content {
            case .sourceFile(let path): contentDigest = digests[path] ?? ""
            case .bytes(let bytes): contentDigest = SHA256.hexHash(bytes)
            }
            hasher.update(Array("\(entry.name)\u{0}\(contentDigest)\n".utf8))
        }
        return String(Hex.encode(hasher.finalize()).prefix(32))
    }

    /// Builds `variant`'s package atomically at `path` (temp file, fsync, rename) and returns its summary.
    public func build(_ variant: PackageVariant, to path: String) throws(SkinPackageError) -> ZipArchiveSummary {
        let entries = try skin.packagePlan(for: variant).entries.map { entry throws(SkinPackageError) -> ZipEntry in
            let name: ZipEntryName
            do { name = try ZipEntryName(entry.name) } catch { throw .invalidEntryName(entry.name) }
            switch entry.content {
            case .bytes(let bytes):
                return ZipEntry(name: name, source: .bytes(bytes))
            case .sourceFile(let relative):
                guard let absolute = source.absolutePath(of: relative) else {
                    return ZipEntry(name: name, source: .bytes(try Self.read(relative, in: source)))
                }
                return ZipEntry(name: name, source: .file(path: absolute))
            }
        }
        do {
            return try ZipArchiveWriter.write(entries, to: path)
        } catch {
            throw .writeFailed(String(describing: error))
        }
    }

    static var zlibVersion: String { String(cString: zlibVersion()) }

    private static func read(_ path: String, in source: any SkinSource) throws(SkinPackageError) -> [UInt8] {
        do { return try source.read(path) } catch { throw .unreadable(path) }
    }

    private static func digest(of path: String, in source: any SkinSource) throws(SkinPackageError) -> String {
        SHA256.hexHash(try read(path, in: source))
    }
}

/// Failures while packing a skin.
public enum SkinPackageError: Error, Equatable, CustomStringConvertible {
    /// A file the plan references could not be read (relative path inside the skin).
    case unreadable(String)
    /// A planned entry name was rejected by the zip writer.
    case invalidEntryName(String)
    /// The archive could not be written; the message comes from the zip writer.
    case writeFailed(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read skin file '\(path)'"
        case .invalidEntryName(let name): "invalid entry name '\(name)'"
        case .writeFailed(let message): "cannot write package: \(message)"
        }
    }
}
