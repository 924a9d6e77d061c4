import Foundation
import Logging
import SkinModel
import SkinPackage

/// A skin version that should be served: the validated skin, how to pack it, and its release.
public struct ReleaseInput: Sendable {
    public let packager: SkinPackager
    public let release: ReleasePlan

    public init(packager: SkinPackager, release: ReleasePlan) {
        self.packager = packager
        self.release = release
    }

    public var skinID: SkinID { packager.skin.manifest.id }
    public var app: String { packager.skin.manifest.app }
}

/// Builds catalogs: packs (or reuses) every variant of every released skin before the catalog is published, so a
/// client is never told about a package that cannot be downloaded.
public struct CatalogBuilder: Sendable {
    public let cache: PackageCache

    public init(cache: PackageCache) {
        self.cache = cache
    }

    /// A catalog serving `inputs` with `killSwitch`, plus how to rebuild each of its packages.
    ///
    /// - Throws: the first packaging failure; the caller keeps serving its previous catalog.
    public func build(_ inputs: [ReleaseInput], killSwitch: KillSwitch) async throws -> CatalogState {
        var released: [ReleasedSkin] = []
        var packagers: [String: PackageOrigin] = [:]
        for input in inputs {
            var packages: [PackageVariant: PackageRecord] = [:]
            for variant in PackageVariant.all {
                let sign = input.packager.sign(for: variant)
                packages[variant] = try await cache.record(
                    sign: sign, variant: variant, packager: input.packager)
                packagers[sign] = PackageOrigin(packager: input.packager, variant: variant)
            }
            released.append(ReleasedSkin(skinID: input.skinID, app: input.app, release: input.release, packages: packages))
        }
        let catalog = Catalog(releases: released, killSwitch: killSwitch)
        return CatalogState(catalog: catalog, origins: packagers)
    }
}

/// How a package was made, so it can be rebuilt if its file disappears from the cache.
public struct PackageOrigin: Sendable {
    public let packager: SkinPackager
    public let variant: PackageVariant
}

/// A catalog together with everything derived from it that requests need: precomputed answer fragments and
/// package origins. Swapped as one value.
public struct CatalogState: Sendable {
    public let catalog: Catalog
    public let origins: [String: PackageOrigin]

    public init(catalog: Catalog, origins: [String: PackageOrigin]) {
        self.catalog = catalog
        self.origins = origins
    }

    public static let empty = CatalogState(catalog: .empty, origins: [:])

    /// The same packages under another kill switch.
    public func with(killSwitch: KillSwitch) -> CatalogState {
        CatalogState(catalog: catalog.with(killSwitch: killSwitch), origins: origins)
    }
}
