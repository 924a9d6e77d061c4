import SkinModel
import ZipArchive
import ZipReading

/// Turns an uploaded zip into the files of one skin, hostile-first.
///
/// 1. `ZipArchiveReader` checks the archive before anything is inflated and rejects zip slip (`..`), absolute
///    paths, symlinks, special files, duplicate names (also ignoring case), encrypted entries, too many entries,
///    entries or totals over the size limits and compression ratios over the limit (zip bombs), and truncated or
///    corrupt archives; each with its own `ZipReadError`.
/// 2. Junk that archivers add on their own is skipped and reported: everything under a top-level `__MACOSX/`
///    folder (macOS resource forks) and every file named `.DS_Store` (Finder metadata). Nothing else is skipped.
/// 3. When every remaining file sits in one top-level folder and there is no `skin.json` at the root (what
///    "compress folder" produces), that folder is stripped, so `spring/skin.json` becomes `skin.json`.
///
/// What remains is handed to the skin validator as an `InMemorySkinSource`; the reader itself judges no skin rule.
public struct UploadReader: Sendable {
    /// The bounds the archive is read with.
    public let limits: ZipArchiveReader.Limits

    public init(limits: ZipArchiveReader.Limits) {
        self.limits = limits
    }

    /// The files of an accepted upload.
    public struct Upload: Sendable {
        /// Skin-relative path → bytes.
        public let files: [String: [UInt8]]
        /// Entries left out as archiver junk (`__MACOSX/…`, `.DS_Store`), by their names in the archive.
        public let skipped: [String]
        /// The top-level folder that was stripped, if any.
        public let strippedFolder: String?

        /// The files as a skin source for the validator and packager.
        public var source: InMemorySkinSource { InMemorySkinSource(files: files) }
    }

    /// Reads `archive`.
    ///
    /// - Throws: `UploadError.archive` with the reader's error, or `.empty` when no file is left.
    public func read(_ archive: [UInt8]) throws(UploadError) -> Upload {
        let entries: [ExtractedEntry]
        do throws(ZipReadError) {
            entries = try ZipArchiveReader.extract(archive, limits: limits)
        } catch {
            throw .archive(error)
        }
        var kept: [ExtractedEntry] = []
        var skipped: [String] = []
        for entry in entries {
            let segments = entry.name.segments
            if segments.first == "__MACOSX" || segments.last == ".DS_Store" {
                skipped.append(entry.name.rawValue)
            } else {
                kept.append(entry)
            }
        }
        guard !kept.isEmpty else { throw .empty }

        var strip: String?
        let firstSegments = Set(kept.map { $0.name.segments.first.map(String.init) ?? "" })
        if firstSegments.count == 1, let folder = firstSegments.first,
            kept.allSatisfy({ $0.name.segments.count > 1 })
        {
            strip = folder
        }
        var files: [String: [UInt8]] = [:]
        for entry in kept {
            let name = entry.name.rawValue
            let path = strip.map { String(name.utf8.dropFirst($0.utf8.count + 1)) ?? name } ?? name
            files[path] = entry.bytes
        }
        return Upload(files: files, skipped: skipped, strippedFolder: strip)
    }
}

/// Why an upload could not be turned into skin files.
public enum UploadError: Error, Equatable, Sendable {
    /// The archive reader refused the archive.
    case archive(ZipReadError)
    /// The archive holds no files (or only archiver junk).
    case empty
}
