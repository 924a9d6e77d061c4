import Foundation
import SkinModel
import SkinPackage

/// One built skin package variant that can be served: a package's identity, which is its bytes.
///
/// Invariant: the file at `path` holds exactly `size` bytes whose SHA-256 is `sha256`; it is immutable once
/// recorded (packages are named by `sign`, and a sign names one set of bytes).
///
/// A record says nothing about releases: two releases (two apps, or two skin ids in two windows) whose packages
/// have identical bytes share one record, and every release-specific value of an answer (`skinId`, the window)
/// comes from the `ReleasedSkin` that was selected, never from the package.
///
/// An immutable class rather than a struct so that passing a record around (every poll does) costs one
/// reference count instead of one per field; equality and hashing are by value, over every field.
public final class PackageRecord: Sendable, Hashable {
    /// Content-derived identity of the variant (32 hex characters); also the package's URL name.
    public let sign: String
    public let variant: PackageVariant
    /// Lowercase hex SHA-256 of the archive.
    public let sha256: String
    /// Archive size in bytes.
    public let size: UInt64
    /// Absolute path of the archive in the package cache.
    public let path: String

    public init(sign: String, variant: PackageVariant, sha256: String, size: UInt64, path: String) {
        self.sign = sign
        self.variant = variant
        self.sha256 = sha256
        self.size = size
        self.path = path
    }

    public static func == (lhs: PackageRecord, rhs: PackageRecord) -> Bool {
        lhs === rhs
            || (lhs.sign == rhs.sign && lhs.variant == rhs.variant
                && lhs.sha256 == rhs.sha256 && lhs.size == rhs.size && lhs.path == rhs.path)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sign)
        hasher.combine(variant)
        hasher.combine(sha256)
        hasher.combine(size)
        hasher.combine(path)
    }
}

/// A skin released for an app: its schedule and targeting, and a package for every variant.
///
/// Immutable; a class so that resolution, which walks an app's skins on every poll, passes references instead of
/// copying the release plan's fields.
public final class ReleasedSkin: Sendable {
    public let skinID: SkinID
    public let app: String
    public let release: ReleasePlan
    /// One record per variant in `PackageVariant.all` and `PackageVariant.bothAppearances`.
    public let packages: [PackageVariant: PackageRecord]
    /// The skin's title and description from `skin.json` (what a theme list shows).
    public let title: String
    public let description: String
    /// The preview images `skin.json` names, if any.
    public let previews: SkinPreviews?
    /// The stored version released (0 for skins made without a store), which phones' reports are counted against.
    public let version: Int

    /// `packages` by `PackageVariant.slot`, so a poll finds its variant's record by index, without hashing.
    private let packageSlots: [PackageRecord?]
    /// `release.platforms` as bits of `Platform.bit`.
    private let platformBits: UInt8

    public init(
        skinID: SkinID, app: String, release: ReleasePlan, packages: [PackageVariant: PackageRecord],
        title: String = "", description: String = "", previews: SkinPreviews? = nil, version: Int = 0
    ) {
        self.version = version
        self.skinID = skinID
        self.app = app
        self.release = release
        self.packages = packages
        self.title = title
        self.description = description
        self.previews = previews
        var slots = [PackageRecord?](repeating: nil, count: PackageVariant.slotCount)
        for (variant, record) in packages { slots[variant.slot] = record }
        self.packageSlots = slots
        self.platformBits = release.platforms.reduce(0) { $0 | $1.bit }
    }

    /// This skin with another plan (one occurrence of a recurring release), sharing its packages.
    public func with(release plan: ReleasePlan) -> ReleasedSkin {
        ReleasedSkin(
            skinID: skinID, app: app, release: plan, packages: packages, title: title, description: description,
            previews: previews, version: version)
    }

    /// The package of `variant`, if this skin has one.
    public func package(for variant: PackageVariant) -> PackageRecord? { packageSlots[variant.slot] }

    /// Whether the release targets `platform`.
    public func targets(_ platform: Platform) -> Bool { platformBits & platform.bit != 0 }
}

extension PackageVariant {
    /// Number of distinct `slot` values.
    static let slotCount = 9

    /// A dense index in `0..<slotCount`: scale-major, then light, dark, any.
    var slot: Int {
        switch appearance {
        case .light: (scale - 1) * 3
        case .dark: (scale - 1) * 3 + 1
        case .any: (scale - 1) * 3 + 2
        }
    }
}

extension Platform {
    /// A distinct bit per platform, for targeting masks.
    var bit: UInt8 {
        switch self {
        case .ios: 1
        case .android: 2
        case .harmony: 4
        case .macos: 8
        }
    }
}

/// The kill switch: globally, or for single apps, every answer becomes "no skin" at once.
public struct KillSwitch: Sendable, Equatable, Codable {
    /// Turns skins off for every app.
    public var global: Bool
    /// Apps whose skins are turned off.
    public var apps: Set<String>

    public init(global: Bool = false, apps: Set<String> = []) {
        self.global = global
        self.apps = apps
    }

    /// Whether answers for `app` must be empty.
    public func blocks(app: String) -> Bool { global || apps.contains(app) }
}

/// How a package was made, so it can be rebuilt if its file disappears from the cache.
public struct PackageOrigin: Sendable {
    public let packager: SkinPackager
    public let variant: PackageVariant

    public init(packager: SkinPackager, variant: PackageVariant) {
        self.packager = packager
        self.variant = variant
    }
}

/// The snapshot of what is served: an immutable view of everything the client API answers. Requests read one
/// catalog from start to end; changes build a new catalog (`CatalogBuilder`) and publish it whole
/// (`CatalogPublisher`).
public struct Catalog: Sendable {
    /// Released holiday skins per app, in precedence order: priority descending, then latest start, then id.
    /// Themes are never among them, so the poll never answers with a theme.
    public let releases: [String: [ReleasedSkin]]
    /// Released themes per app, in list order: `order` ascending (themes without one last), then id. Holiday
    /// skins are never among them, so a theme list never holds one.
    public let themes: [String: [ReleasedSkin]]
    /// Per app, every window start and end of its themes that have a window, sorted ascending without repeats.
    public let themeBoundaries: [String: [Date]]
    /// Every preview image of a released skin, by its file name (`<sha256>.<ext>`).
    public let previews: [String: PreviewImage]
    /// Every released skin the catalog was made from, themes included (their packages stay downloadable).
    public let allReleases: [ReleasedSkin]
    /// Every servable package by sign.
    public let packages: [String: PackageRecord]
    public let killSwitch: KillSwitch
    /// Per app, every window start and end of its skins, sorted ascending without repeats: the instants at which an
    /// answer for that app can change.
    public let boundaries: [String: [Date]]
    /// How each package of `packages` was made, by sign, so a download can rebuild a file that disappeared.
    public let origins: [String: PackageOrigin]
    /// The store revision the catalog was built from (0 for catalogs made without a store).
    public let revision: Int

    /// An empty catalog: every answer is "no skin".
    public static let empty = Catalog(releases: [], killSwitch: KillSwitch())

    public init(
        releases: [ReleasedSkin], killSwitch: KillSwitch, origins: [String: PackageOrigin] = [:], revision: Int = 0
    ) {
        self.revision = revision
        var byApp: [String: [ReleasedSkin]] = [:]
        var themes: [String: [ReleasedSkin]] = [:]
        var packages: [String: PackageRecord] = [:]
        var previews: [String: PreviewImage] = [:]
        for skin in releases {
            for record in skin.packages.values { packages[record.sign] = record }
            for image in skin.previews?.images ?? [] { previews[image.fileName] = image }
            switch skin.release.kind {
            case .holiday: byApp[skin.app, default: []].append(skin)
            case .theme: themes[skin.app, default: []].append(skin)
            }
        }
        self.themes = themes.mapValues { $0.sorted(by: Self.listedBefore) }
        self.themeBoundaries = themes.mapValues { skins in
            Array(Set(skins.filter(\.release.hasWindow).flatMap { [$0.release.startsAt, $0.release.endsAt] })).sorted()
        }
        self.previews = previews
        self.allReleases = releases
        self.releases = byApp.mapValues { $0.sorted(by: Self.precedes) }
        self.packages = packages
        self.killSwitch = killSwitch
        self.origins = origins
        self.boundaries = byApp.mapValues { skins in
            Array(Set(skins.flatMap { [$0.release.startsAt, $0.release.endsAt] })).sorted()
        }
    }

    /// This catalog with another kill switch, as of store revision `revision` (by default its own).
    public func with(killSwitch: KillSwitch, revision: Int? = nil) -> Catalog {
        Catalog(releases: allReleases, killSwitch: killSwitch, origins: origins, revision: revision ?? self.revision)
    }

    /// Whether `other` holds the very same released skins (the same objects, in the same order) as this catalog, as
    /// `with(killSwitch:revision:)` keeps them: whatever is rendered from the releases alone holds for both.
    public func hasSameReleases(as other: Catalog) -> Bool {
        allReleases.count == other.allReleases.count && zip(allReleases, other.allReleases).allSatisfy { $0 === $1 }
    }

    /// Theme list order: `order` ascending, themes without one after every ordered theme; the id makes the
    /// order total.
    static func listedBefore(_ a: ReleasedSkin, _ b: ReleasedSkin) -> Bool {
        switch (a.release.order, b.release.order) {
        case (let x?, let y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return a.skinID < b.skinID
        }
    }

    /// Overlapping windows: highest priority wins, then the latest start; the id makes the order total.
    static func precedes(_ a: ReleasedSkin, _ b: ReleasedSkin) -> Bool {
        if a.release.priority != b.release.priority { return a.release.priority > b.release.priority }
        if a.release.startsAt != b.release.startsAt { return a.release.startsAt > b.release.startsAt }
        return a.skinID < b.skinID
    }
}
