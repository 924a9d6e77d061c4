import Foundation
import LiveryCrypto
import LiveryProtocol

/// One immutable, numbered version of a skin: its files (by content digest) and its metadata.
///
/// Numbers start at 1 per skin and are never reused, not even after the skin is deleted and uploaded again.
/// Nothing about a version changes after `SkinStore.addVersion` returns it.
public struct SkinVersion: Sendable, Equatable, Hashable {
    /// The skin this version belongs to.
    public let skinID: String
    /// 1, 2, 3… in upload order for this skin.
    public let number: Int
    /// When the version was added (store clock, millisecond precision).
    public let createdAt: Date
    /// Who added it (the admin token's name).
    public let actor: String
    /// The files, sorted by the UTF-8 bytes of their paths.
    public let files: [StoredFile]
    /// What Livery keeps with the version (where it came from, its `skin.json`, its report); empty for a version
    /// damaged at load.
    public let metadata: VersionMetadata
    /// Lowercase hex SHA-256 of the metadata's bytes (`VersionMetadata.encoded()` when the version was added); the
    /// metadata is stored as a blob under this digest.
    public let metadataDigest: String
    /// Lowercase hex SHA-256 identifying the whole version; see `SkinVersion.digest(files:metadataDigest:)`.
    public let digest: String
    /// Why the version cannot be used: what the store found when it loaded it (`loadDamage`), else what the last
    /// scrub found (`scrubDamage`); nil for a sound version. A damaged version stays in its skin (its number is
    /// used, a release may name it) but is never served nor read. Damage stays with its version: the rest of the
    /// store works as before.
    public var damage: String? { loadDamage ?? scrubDamage }
    /// Why the version cannot be used as the store found when it loaded it: its metadata blob is missing or does
    /// not match its digest or is not version metadata, or its file list does not match `digest` (rows or records
    /// changed behind the store's back). Its `metadata` is empty then. Found again at every load, never stored.
    package let loadDamage: String?
    /// What the last scrub that found this version damaged said (a blob it uses is missing or no longer hashes to
    /// its address; `SkinStore.recordScrub`), kept in the store, so every replica and a restart see it, until a
    /// scrub finds the version sound again; nil when none. Its `metadata` is kept (it was checked at load).
    public let scrubDamage: String?
    /// The size of the metadata blob as recorded (the size of `metadataBytes`, except for a damaged version).
    package let metadataSize: Int
    /// The metadata's bytes as stored (empty for a version damaged at load): what a store writes as its blob.
    package let metadataBytes: [UInt8]

    /// A version value. The store builds these from bytes it hashed itself; this initializer is for code (and
    /// tests) that consumes snapshots, and checks nothing.
    public init(
        skinID: String, number: Int, createdAt: Date, actor: String, files: [StoredFile], metadata: VersionMetadata,
        metadataDigest: String, digest: String
    ) {
        let bytes = metadata.encoded()
        self.init(
            skinID: skinID, number: number, createdAt: createdAt, actor: actor, files: files, metadata: metadata,
            metadataBytes: bytes, metadataDigest: metadataDigest, digest: digest, damage: nil,
            metadataSize: bytes.count)
    }

    /// A version with its metadata's stored bytes: `damage` says why it cannot be used (then `metadata` is empty
    /// and `metadataSize` the recorded size), nil when it is sound; `scrubDamage` is the scrub's stored mark.
    package init(
        skinID: String, number: Int, createdAt: Date, actor: String, files: [StoredFile], metadata: VersionMetadata,
        metadataBytes: [UInt8], metadataDigest: String, digest: String, damage: String?, metadataSize: Int,
        scrubDamage: String? = nil
    ) {
        self.skinID = skinID
        self.number = number
        self.createdAt = createdAt
        self.actor = actor
        self.files = files
        self.metadata = metadata
        self.metadataBytes = metadataBytes
        self.metadataDigest = metadataDigest
        self.digest = digest
        self.loadDamage = damage
        self.scrubDamage = scrubDamage
        self.metadataSize = metadataSize
    }

    /// A version a store loaded from its records: its metadata bytes (nil when the blob is missing) checked
    /// against their digest and size and parsed, its files against its digest. Damage stays with the version: a
    /// missing, damaged or unreadable metadata blob, or a file list that does not match, marks it (`loadDamage`,
    /// `metadata` empty) and nothing else.
    package static func loaded(
        skinID: String, number: Int, createdAt: Date, actor: String, files: [StoredFile], metadata: [UInt8]?,
        metadataDigest: String, metadataSize: Int, digest: String, scrubDamage: String?
    ) -> SkinVersion {
        var damage = Self.damage(
            skinID: skinID, number: number, files: files, metadata: metadata, metadataDigest: metadataDigest,
            metadataSize: metadataSize, digest: digest)
        var parsed = VersionMetadata()
        if damage == nil, let metadata {
            do throws(StoredObject.Fault) {
                parsed = try VersionMetadata.parse(metadata)
            } catch {
                damage = "the metadata of \(skinID) v\(number) is not version metadata: \(error.text)"
            }
        }
        return SkinVersion(
            skinID: skinID, number: number, createdAt: createdAt, actor: actor, files: files,
            metadata: damage == nil ? parsed : VersionMetadata(),
            metadataBytes: damage == nil ? metadata ?? [] : [], metadataDigest: metadataDigest, digest: digest,
            damage: damage, metadataSize: metadataSize, scrubDamage: scrubDamage)
    }

    /// This version with `scrubDamage` replaced by `mark` (nil clears it).
    package func marked(_ mark: String?) -> SkinVersion {
        SkinVersion(
            skinID: skinID, number: number, createdAt: createdAt, actor: actor, files: files, metadata: metadata,
            metadataBytes: metadataBytes, metadataDigest: metadataDigest, digest: digest, damage: loadDamage,
            metadataSize: metadataSize, scrubDamage: mark)
    }

    /// Why a version loaded with these records is damaged, or nil when its metadata bytes match their digest and
    /// size and its files match its digest. `metadata` is nil when its blob is missing.
    static func damage(
        skinID: String, number: Int, files: [StoredFile], metadata: [UInt8]?, metadataDigest: String,
        metadataSize: Int, digest: String
    ) -> String? {
        guard let metadata else { return "the metadata blob \(metadataDigest) of \(skinID) v\(number) is missing" }
        guard metadata.count == metadataSize, SHA256.hexHash(metadata) == metadataDigest else {
            return "the metadata of \(skinID) v\(number) does not match its digest \(metadataDigest)"
        }
        guard Self.digest(files: files, metadataDigest: metadataDigest) == digest else {
            return "the file list of \(skinID) v\(number) does not match the version's digest \(digest) "
                + "(changed behind Livery's back)"
        }
        return nil
    }

    /// The file at `path`, if the version has one. O(log n).
    public func file(at path: String) -> StoredFile? {
        let key = Array(path.utf8)
        var low = 0
        var high = files.count
        while low < high {
            let middle = (low + high) / 2
            if files[middle].path.utf8.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return low < files.count && files[low].path == path ? files[low] : nil
    }

    /// The sum of the file sizes, in bytes.
    public var totalSize: Int { files.reduce(0) { $0 + $1.size } }

    /// The version digest: SHA-256 over one line per file, in path order, `"<sha256> <size> <path>\n"`, followed
    /// by `"metadata <sha256>\n"`. Two versions have the same digest exactly when they hold the same files with
    /// the same bytes at the same paths and the same metadata bytes.
    public static func digest(files: [StoredFile], metadataDigest: String) -> String {
        var hasher = SHA256()
        for file in files {
            hasher.update("\(file.sha256) \(file.size) \(file.path)\n".utf8)
        }
        hasher.update("metadata \(metadataDigest)\n".utf8)
        return Hex.encode(hasher.finalize())
    }
}

/// One file of a version: where it sits in the skin folder and which blob holds its bytes.
public struct StoredFile: Sendable, Equatable, Hashable {
    /// Relative `/`-separated path inside the skin folder, as given to `addVersion`.
    public let path: String
    /// Size in bytes.
    public let size: Int
    /// Lowercase hex SHA-256 of the bytes; the blob's name.
    public let sha256: String

    /// A file record. The store only builds these from bytes it hashed itself.
    public init(path: String, size: Int, sha256: String) {
        self.path = path
        self.size = size
        self.sha256 = sha256
    }
}
