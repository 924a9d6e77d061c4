/// An immutable view of the whole store at one revision.
///
/// Snapshots are values: holding one never blocks writers, and a snapshot never changes. `SkinStore` swaps the
/// published snapshot atomically after each committed change, so a reader sees every change entirely or not at all.
/// Blobs are never deleted while a store is open, so the files of any snapshot stay readable through
/// `FileSkinStore.blobPath(digest:)` even after a later snapshot no longer lists them.
public struct StoreSnapshot: Sendable, Equatable {
    /// Number of changes committed since the store was created (0 for an empty store). Change number N is
    /// audit entry N.
    public let revision: Int
    /// Live skins by id; deleted skins are absent.
    public let skins: [String: SkinState]
    /// Kill switches.
    public let killSwitches: KillSwitches

    /// Deleted skins: id → (revision of the deletion, last version number used), kept so numbers and revisions
    /// keep increasing if the skin is uploaded again.
    package let tombstones: [String: Tombstone]

    /// A snapshot value without deleted-skin history, for code and tests that consume snapshots (the store
    /// builds its own).
    public init(revision: Int, skins: [String: SkinState], killSwitches: KillSwitches) {
        self.init(revision: revision, skins: skins, killSwitches: killSwitches, tombstones: [:])
    }

    package init(revision: Int, skins: [String: SkinState], killSwitches: KillSwitches, tombstones: [String: Tombstone])
    {
        self.revision = revision
        self.skins = skins
        self.killSwitches = killSwitches
        self.tombstones = tombstones
    }

    /// The empty store.
    package static let empty = StoreSnapshot(revision: 0, skins: [:], killSwitches: .none, tombstones: [:])

    /// The damaged versions of live skins (`SkinVersion.damage` set), by skin id then number.
    public var damagedVersions: [SkinVersion] {
        skinIDs.flatMap { id in skins[id]?.versions.filter { $0.damage != nil } ?? [] }
    }

    /// Live skin ids in ascending order.
    public var skinIDs: [String] { skins.keys.sorted() }

    /// Whether this snapshot holds the same skins (versions, releases, damage) and deleted skins as `other`, so
    /// that only the kill switches (and the revision) can differ: what a catalog is built from is then the same.
    public func differsOnlyInKillSwitches(from other: StoreSnapshot) -> Bool {
        skins == other.skins && tombstones == other.tombstones
    }

    /// The revision a writer must name to change `skinID`: its `SkinState.revision`, or for a deleted skin the
    /// revision of its deletion, or 0 for a skin that never existed.
    public func revision(ofSkin skinID: String) -> Int {
        skins[skinID]?.revision ?? tombstones[skinID]?.revision ?? 0
    }
}

/// What remains of a deleted skin in the state.
package struct Tombstone: Sendable, Equatable {
    package var revision: Int
    package var lastVersion: Int

    package init(revision: Int, lastVersion: Int) {
        self.revision = revision
        self.lastVersion = lastVersion
    }
}
