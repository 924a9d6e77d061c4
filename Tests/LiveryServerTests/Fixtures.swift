import Foundation
import SkinModel

@testable import LiveryServer
@testable import SkinServing

/// Builders for resolver inputs: released skins with fake package records (no disk).
enum Fixtures {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    static func id(_ text: String) -> SkinID {
        guard let id = SkinID(text) else { preconditionFailure("bad test skin id \(text)") }
        return id
    }

    static func version(_ text: String) -> AppVersion {
        guard let version = AppVersion(text) else { preconditionFailure("bad test version \(text)") }
        return version
    }

    static func skin(
        _ name: String, app: String = "demo", from start: TimeInterval = -3600, to end: TimeInterval = 3600,
        priority: Int = 0, platforms: Set<Platform> = Set(Platform.allCases), min: String? = nil, max: String? = nil,
        rollout: Int = 100, content: String? = nil
    ) -> ReleasedSkin {
        let skinID = id(name)
        let plan = ReleasePlan(
            startsAt: t0.addingTimeInterval(start), endsAt: t0.addingTimeInterval(end), priority: priority,
            platforms: platforms, minAppVersion: min.map(version), maxAppVersion: max.map(version), rollout: rollout)
        var packages: [PackageVariant: PackageRecord] = [:]
        // Packages are named by their content: skins given the same `content` have identical bytes.
        let look = content ?? name
        for variant in PackageVariant.all {
            let sign =
                String(repeating: "0", count: 32 - look.count - variant.description.count)
                + look + variant.description
            packages[variant] = PackageRecord(
                sign: sign, variant: variant, sha256: "sha-\(sign)", size: 100, path: "/dev/null")
        }
        return ReleasedSkin(skinID: skinID, app: app, release: plan, packages: packages)
    }

    static func request(
        app: String = "demo", platform: Platform = .ios, version: String = "7.0.0", device: String? = nil,
        variant: PackageVariant = .standard
    ) -> SkinRequest {
        SkinRequest(app: app, platform: platform, appVersion: Self.version(version), deviceID: device, variant: variant)
    }

    static func catalog(_ skins: ReleasedSkin..., killSwitch: KillSwitch = KillSwitch()) -> Catalog {
        Catalog(releases: skins, killSwitch: killSwitch)
    }
}
