/// One piece of damage a scrub of a store found: a blob whose bytes no longer hash to their address, a version
/// record whose digest no longer matches its files, or a built package whose file no longer matches its build
/// record.
///
/// `line` is the form `livery store verify` prints and `serve`'s scrub logs:
/// `damaged <blob|version|package> <skin> v<n> <path or row>: <reason>` (`-` and `v0` when a damaged blob or
/// package belongs to no known version).
public struct StoreDamage: Sendable, Equatable, Hashable {
    /// What is damaged.
    public enum Kind: String, Sendable, CaseIterable, Hashable {
        /// Stored bytes (a version's file or metadata) that are missing or do not hash to their address.
        case blob
        /// A version record whose digest does not match its file list and metadata.
        case version
        /// A built package (under `<data-dir>/packages`) whose file does not match its build record.
        case package
    }

    public let kind: Kind
    /// The skin the damaged record belongs to; `-` when none is known.
    public let skinID: String
    /// The version it belongs to; 0 when none is known.
    public let version: Int
    /// Where: the file's path in the skin (blob), the version row, or the package file.
    public let location: String
    /// Why it is damaged, in words.
    public let reason: String

    public init(kind: Kind, skinID: String, version: Int, location: String, reason: String) {
        self.kind = kind
        self.skinID = skinID
        self.version = version
        self.location = location
        self.reason = reason
    }

    /// `damaged <kind> <skin> v<n> <location>: <reason>`.
    public var line: String { "damaged \(kind.rawValue) \(skinID) v\(version) \(location): \(reason)" }
}

/// What a scrub checked and what it found damaged.
public struct StoreScrubReport: Sendable, Equatable {
    /// Blobs read and rehashed.
    public var checkedBlobs = 0
    /// Version records whose digest was recomputed.
    public var checkedVersions = 0
    /// Built packages rehashed against their build records.
    public var checkedPackages = 0
    /// Everything found damaged, in the order found.
    public var damages: [StoreDamage] = []

    public init() {}

    /// Who `SkinStore.recordScrub` names in the audit log.
    public static let actor = "scrub"

    /// True when nothing is damaged.
    public var isClean: Bool { damages.isEmpty }

    /// Adds another report's counts and damages to this one.
    public mutating func merge(_ other: StoreScrubReport) {
        checkedBlobs += other.checkedBlobs
        checkedVersions += other.checkedVersions
        checkedPackages += other.checkedPackages
        damages += other.damages
    }
}

extension StoreScrubReport {
    /// The versions this report finds unusable, by skin id then number, with why: each version that uses a blob
    /// found missing or damaged (its file or its metadata). What `SkinStore.recordScrub` marks. A damaged version
    /// record (`version`) is not among them: it is damage found at load wherever the record is loaded (every
    /// replica's reload on PostgreSQL; the file store refuses a `state.json` whose digests do not match, while the
    /// running server keeps the record as it wrote it and writes it back whole at its next change). Nor is a
    /// damaged package: it is checked against its build record and rebuilt
    /// from the blobs after a restart.
    public var damagedVersions: [String: [Int: String]] {
        var found: [String: [Int: [StoreDamage]]] = [:]
        for damage in damages where damage.kind == .blob && damage.skinID != "-" && damage.version > 0 {
            found[damage.skinID, default: [:]][damage.version, default: []].append(damage)
        }
        return found.mapValues { versions in
            versions.mapValues { damages in
                let first = damages[0]
                let more = damages.count > 1 ? " (and \(damages.count - 1) more damaged file(s))" : ""
                return String("the scrub found \(first.location) damaged: \(first.reason)\(more)".prefix(1000))
            }
        }
    }
}
