import Crypto
import Foundation

/// A skin or theme chosen from a catalog, with its package for the variant asked for (nil when the entry has no
/// package of that variant).
public struct CatalogChoice: Sendable, Equatable {
    public let entry: CatalogEntry
    public let package: CatalogPackage?
}

/// What a device gets from a catalog: what the poll (`/api/v1/skin`) and the theme list (`/api/v1/themes`) would
/// answer it at the same instant.
public struct CatalogAnswer: Sendable, Equatable {
    /// The holiday skin to show, or nil for the app's default look. Set only when the winning skin has a package of
    /// the variant (a winner without one is answered as no skin, as the poll answers `"skinSign": ""`).
    public var current: CatalogChoice?
    /// The next different holiday skin within `CatalogDecision.nextHorizon`, to download ahead; only with a package
    /// of the variant.
    public var next: CatalogChoice?
    /// The themes the user may pick, in list order, each with a package of the variant.
    public var themes: [CatalogChoice] = []
    /// The earliest window start or end after the instant decided, if any: the answer cannot change before it.
    public var nextBoundary: Date?

    /// The poll's `skinSign`: the current package's sign, `""` for none.
    public var skinSign: String { current?.package?.skinSign ?? "" }

    public init() {}
}

/// The decision a device makes from a catalog document (docs/PROTOCOL.md): pure, no clock, no I/O.
///
/// It is the server's decision (`SkinResolver` for the poll, `SkinResolver.themes` for the theme list) restated on
/// the document, and the agreement test checks the two on the same catalog. Valid for instants before the
/// document's `horizonEndsAt`; at or past it (and for a document that is not `complete`) the caller must fetch a new
/// document or poll.
public enum CatalogDecision {
    /// How far ahead `next` looks, as the server's poll does: 7 days.
    public static let nextHorizon: TimeInterval = 7 * 24 * 3600

    /// Decides what `document` gives a device at `now`.
    ///
    /// - Parameters:
    ///   - deviceId: the stable device or install id used for rollout buckets; nil or empty falls inside only 100 %
    ///     rollouts.
    ///   - appVersion: the app's version.
    ///   - variant: the package variant asked for (`CatalogVariant.requested` applies the poll's defaults).
    public static func decide(
        _ document: CatalogDocument, deviceId: String?, appVersion: CatalogAppVersion, at now: Date,
        variant: CatalogVariant = .standard, nextHorizon: TimeInterval = nextHorizon
    ) -> CatalogAnswer {
        var answer = CatalogAnswer()
        let holidays = document.skins.filter { $0.kind == .holiday }.sorted(by: precedes)
        let themes = document.skins.filter { $0.kind == .theme }.sorted(by: listedBefore)
        let boundaries = Array(Set(holidays.flatMap { [$0.startsAt, $0.endsAt] })).sorted()
        let themeBoundaries = Array(
            Set(themes.flatMap { [$0.startsAt, $0.endsAt] }.filter { $0 != .distantPast && $0 != .distantFuture })
        ).sorted()
        answer.nextBoundary = (boundaries + themeBoundaries).filter { $0 > now }.min()
        if document.killed { return answer }

        func applies(_ entry: CatalogEntry) -> Bool {
            targets(entry, platform: document.platform, appVersion: appVersion, deviceId: deviceId)
        }
        let eligible = holidays.filter(applies)
        let winner = eligible.first { $0.isActive(at: now) }
        if let winner, let package = winner.packages[variant.key] {
            answer.current = CatalogChoice(entry: winner, package: package)
        }
        let limit = now.addingTimeInterval(nextHorizon)
        for instant in boundaries where instant > now {
            if instant > limit { break }
            guard let upcoming = eligible.first(where: { $0.isActive(at: instant) }) else { continue }
            if upcoming.skinId == winner?.skinId { continue }
            if let package = upcoming.packages[variant.key] {
                answer.next = CatalogChoice(entry: upcoming, package: package)
            }
            break
        }
        answer.themes = themes.filter { $0.isActive(at: now) && applies($0) }.compactMap { theme in
            theme.packages[variant.key].map { CatalogChoice(entry: theme, package: $0) }
        }
        return answer
    }

    /// Whether targeting lets `entry` through, whatever the time: the platform is listed, `minAppVersion <=
    /// appVersion < maxAppVersion` (each bound only when set), and the device is inside the rollout.
    public static func targets(
        _ entry: CatalogEntry, platform: String, appVersion: CatalogAppVersion, deviceId: String?
    ) -> Bool {
        guard entry.platforms.contains(platform) else { return false }
        if let min = entry.minAppVersion, appVersion < min { return false }
        if let max = entry.maxAppVersion, appVersion >= max { return false }
        return includes(deviceId: deviceId, skinId: entry.skinId, rollout: entry.rollout)
    }

    /// Precedence among holiday skins: higher `priority` first, then the later `startsAt`, then the smaller
    /// `skinId` (compared byte by byte).
    public static func precedes(_ a: CatalogEntry, _ b: CatalogEntry) -> Bool {
        if a.priority != b.priority { return a.priority > b.priority }
        if a.startsAt != b.startsAt { return a.startsAt > b.startsAt }
        return a.skinId.utf8.lexicographicallyPrecedes(b.skinId.utf8)
    }

    /// Theme list order: `order` ascending, themes without one after every ordered theme, then `skinId`.
    public static func listedBefore(_ a: CatalogEntry, _ b: CatalogEntry) -> Bool {
        switch (a.order, b.order) {
        case (let x?, let y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return a.skinId.utf8.lexicographicallyPrecedes(b.skinId.utf8)
        }
    }

    /// The device's rollout bucket for a skin, in 0..<100: the first 8 bytes of `SHA-256(skinId ":" deviceId)`
    /// (UTF-8) as a big-endian unsigned integer, modulo 100. Stable across calls, apps and servers.
    public static func bucket(deviceId: String, skinId: String) -> Int {
        let digest = SHA256.hash(data: Array("\(skinId):\(deviceId)".utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int(value % 100)
    }

    /// Whether a device is inside a rollout: always at 100 or more, never at 0 or less, otherwise only with a
    /// non-empty `deviceId` whose bucket is below `rollout`.
    public static func includes(deviceId: String?, skinId: String, rollout: Int) -> Bool {
        if rollout >= 100 { return true }
        if rollout <= 0 { return false }
        guard let deviceId, !deviceId.isEmpty else { return false }
        return bucket(deviceId: deviceId, skinId: skinId) < rollout
    }
}
