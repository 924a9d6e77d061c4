import Foundation

/// A live skin as of one snapshot: its versions, its release, and its revision.
public struct SkinState: Sendable, Equatable {
    /// The skin id.
    public let id: String
    /// The store revision of the last change to this skin (version added, release set or cleared).
    /// Strictly increases with every change to the skin and never repeats across deletion and re-upload,
    /// so it serves as the skin's ETag.
    public let revision: Int
    /// Every version, oldest first (ascending `number`). Never empty for a live skin.
    public let versions: [SkinVersion]
    /// What is released, or nil when the skin is not served.
    public let release: Release?

    /// A skin value, for code and tests that consume snapshots. `versions` must be in ascending order.
    public init(id: String, revision: Int, versions: [SkinVersion], release: Release?) {
        self.id = id
        self.revision = revision
        self.versions = versions
        self.release = release
    }

    /// The version numbered `number`, if it exists. O(log n).
    public func version(_ number: Int) -> SkinVersion? {
        var low = 0
        var high = versions.count
        while low < high {
            let middle = (low + high) / 2
            if versions[middle].number < number { low = middle + 1 } else { high = middle }
        }
        return low < versions.count && versions[low].number == number ? versions[low] : nil
    }

    /// The most recently added version.
    public var latestVersion: SkinVersion? { versions.last }
}
