import LiveryCrypto
import LiveryProtocol
import SkinModel
import SystemCalls
import ZipArchive
import ZipReading

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
    /// - Throws: `SkinPackageError.unreadable` if a referenced file cannot be read, `.symbolicLink` if one has
    ///   been replaced by a symbolic link (never followed).
    public init(skin: ValidatedSkin, source: any SkinSource) throws(SkinPackageError) {
        self.skin = skin
        self.source = source
        var digests: [String: String] = [:]
        // Made at the first file read from disk: an upload's files are in memory and are hashed where they are.
        var buffer: [UInt8] = []
        for variant in PackageVariant.all {
            for path in skin.referencedFiles(for: variant) where digests[path.rawValue] == nil {
                digests[path.rawValue] = try Self.digest(of: path.rawValue, in: source, buffer: &buffer)
            }
        }
        self.digests = digests
    }

    /// The content-derived sign of `variant`'s package: 32 lowercase hex characters.
    public func sign(for variant: PackageVariant) -> String {
        var hasher = SHA256()
        hasher.update(Array("\(Self.formatVersion)\nzlib \(ZipArchiveWriter.zlibVersion)\n".utf8))
        skin.feedContentDigestInput(for: variant, fileIdentity: { path in Array((digests[path] ?? "").utf8) }) {
            hasher.update($0)
        }
        return String(Hex.encode(hasher.finalize()).prefix(32))
    }

    /// Builds `variant`'s package atomically at `path` (temp file, fsync, rename) and returns its summary.
    ///
    /// The archive holds exactly the entries of `skin.packagePlan(for: variant)`, so the same skin and variant
    /// always give the same bytes. Files are read again while writing (streamed from disk when the source has
    /// paths); they must not change after the packager was created, or ``sign(for:)`` no longer describes them.
    /// On failure nothing is left at `path` (an existing file there is untouched).
    ///
    /// - Throws: `.unreadable` (skin-relative path) when a source file cannot be read, `.symbolicLink` when one
    ///   has been replaced by a symbolic link (the writer opens sources with `O_NOFOLLOW`), `.invalidEntryName`,
    ///   or `.writeFailed` with the writer's log description (which names the output path and system error).
    public func build(_ variant: PackageVariant, to path: String) throws(SkinPackageError) -> ZipArchiveSummary {
        try Self.build(variant, of: skin, from: source, to: path)
    }

    /// ``build(_:to:)`` without a packager: building needs no digests, so a caller that also wants the sign can
    /// create the packager (which hashes every file) on another thread at the same time.
    public static func build(
        _ variant: PackageVariant, of skin: ValidatedSkin, from source: any SkinSource, to path: String
    ) throws(SkinPackageError) -> ZipArchiveSummary {
        var relativeByAbsolute: [String: String] = [:]
        let entries = try skin.packagePlan(for: variant).entries.map { entry throws(SkinPackageError) -> ZipEntry in
            let name: ZipEntryName
            do { name = try ZipEntryName(entry.name) } catch { throw .invalidEntryName(entry.name) }
            switch entry.content {
            case .bytes(let bytes):
                return ZipEntry(name: name, source: .bytes(bytes))
            case .sourceFile(let relative):
                guard let absolute = source.filePath(of: relative) else {
                    return ZipEntry(name: name, source: .bytes(try Self.read(relative, in: source)))
                }
                relativeByAbsolute[absolute] = relative
                return ZipEntry(name: name, source: .file(path: absolute))
            }
        }
        do {
            return try ZipArchiveWriter.write(entries, to: path)
        } catch {
            // A source the writer could not read is the skin's problem, named by its skin-relative path; the
            // writer's own `description` drops the reason, so the log description is kept for the rest.
            switch error {
            case .sourceUnreadable(let absolute, _), .sourceNotRegularFile(let absolute):
                throw .unreadable(relativeByAbsolute[absolute] ?? absolute)
            case .sourceIsSymbolicLink(let absolute):
                throw .symbolicLink(relativeByAbsolute[absolute] ?? absolute)
            default:
                throw .writeFailed(error.logDescription)
            }
        }
    }

    private static func read(_ path: String, in source: any SkinSource) throws(SkinPackageError) -> [UInt8] {
        do { return try source.read(path) } catch { throw .unreadable(path) }
    }

    /// SHA-256 of a source file, streamed from disk through `buffer` when the source has a path (bounded memory
    /// for big assets). The file is opened with `O_NOFOLLOW`: `filePath(of:)` checked it was not a link, and a
    /// link swapped in since then is refused rather than followed. A path that cannot be opened otherwise falls
    /// back to reading through the source, which stays the authority on the file's bytes.
    private static func digest(
        of path: String, in source: any SkinSource, buffer: inout [UInt8]
    ) throws(SkinPackageError) -> String {
        guard let absolute = source.filePath(of: path) else {
            return SHA256.hexHash(try read(path, in: source))
        }
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 1 << 20) }
        var hasher = SHA256()
        // false: not a regular file (a FIFO, device or folder planted since validation).
        let outcome = Result { () throws(SystemCallError) -> Bool in
            let file = try SystemFile.openForReading(absolute)
            guard try file.status().isRegular else { return false }
            while true {
                let count = try buffer.withUnsafeMutableBytes { bytes in
                    Result { () throws(SystemCallError) in try file.read(into: bytes) }
                }.get()
                if count == 0 { return true }
                buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
        }
        switch outcome {
        case .success(true):
            break
        case .success(false):
            // The source stays the authority on the file's bytes.
            return SHA256.hexHash(try read(path, in: source))
        case .failure(let error) where error.isSymbolicLinkRefusal:
            throw .symbolicLink(path)
        case .failure(let error) where error.operation == "open" || error.operation == "fstat":
            return SHA256.hexHash(try read(path, in: source))
        case .failure:
            throw .unreadable(path)
        }
        return Hex.encode(hasher.finalize())
    }
}
