import Foundation
import HTTPTestSupport
import LiveryCatalog
import LiveryCrypto
import LiveryProtocol
import TestSupport
import Testing

@testable import LiveryServer
@testable import SkinModel
@testable import SkinServing

/// One decision, two places: what a phone decides from the fetched catalog (`CatalogDecision`) is what the server
/// answers the same phone at the same instant on `/api/v1/skin` and `/api/v1/themes`, through the real router and
/// resolver, signed as with `--signing-key`.
@Suite(.serialized) struct CatalogAgreementTests {
    static let t0 = Fixtures.t0
    static let hour: TimeInterval = 3600
    static let day: TimeInterval = 86_400

    /// A released skin or theme with fake package records (no disk) for `variants`.
    static func release(
        _ name: String, kind: SkinKind = .holiday, order: Int? = nil, from start: TimeInterval?, to end: TimeInterval?,
        priority: Int = 0, platforms: Set<Platform> = [.ios, .android], min: String? = nil, max: String? = nil,
        rollout: Int = 100, variants: [PackageVariant] = PackageVariant.all + PackageVariant.bothAppearances
    ) -> ReleasedSkin {
        let startsAt = start.map { t0.addingTimeInterval($0) } ?? .distantPast
        let endsAt = end.map { t0.addingTimeInterval($0) } ?? .distantFuture
        let plan = ReleasePlan(
            startsAt: startsAt, endsAt: endsAt, startsAtText: start == nil ? "" : ISO8601DateTime.utcText(startsAt),
            endsAtText: end == nil ? "" : ISO8601DateTime.utcText(endsAt), timeZone: nil, priority: priority,
            platforms: platforms, minAppVersion: min.map(Fixtures.version), maxAppVersion: max.map(Fixtures.version),
            rollout: rollout, kind: kind, order: order)
        var packages: [PackageVariant: PackageRecord] = [:]
        for variant in variants {
            let sign = SHA256.hexHash(Array("\(name)\(variant)".utf8)).prefix(32)
            packages[variant] = PackageRecord(
                sign: String(sign), variant: variant, sha256: SHA256.hexHash(Array(sign.utf8)), size: 1000,
                path: "/dev/null")
        }
        return ReleasedSkin(
            skinID: Fixtures.id(name), app: "demo", release: plan, packages: packages, title: name.capitalized,
            description: "About \(name)")
    }

    /// Overlapping windows, equal priorities, partial rollouts, version ranges, platform targeting, a skin without
    /// the `any` packages, themes with and without windows and orders.
    static let catalog = Catalog(
        releases: [
            release("base", from: -day, to: 10 * day),
            release("eve", from: 1 * day, to: 3 * day, priority: 5, rollout: 60),
            release("eve-beta", from: 1 * day + 6 * hour, to: 2 * day, priority: 5, rollout: 30),
            release("legacy", from: 2 * day, to: 4 * day, priority: 8, min: "7.0.1", max: "7.2"),
            release("droid", from: 3 * day, to: 5 * day, priority: 9, platforms: [.android], rollout: 70),
            release("tie-b", from: 4 * day, to: 6 * day, priority: 4),
            release("tie-a", from: 4 * day, to: 6 * day, priority: 4, min: "8.0"),
            release("no-any", from: 5 * day, to: 5 * day + 12 * hour, priority: 6, variants: PackageVariant.all),
            release("late", from: 6 * day + hour, to: 9 * day, priority: 2, max: "9"),
            release("zero", from: 0, to: 8 * day, priority: 99, rollout: 0),
            release("gold", kind: .theme, order: 1, from: 2 * day, to: 4 * day, rollout: 40),
            release("classic", kind: .theme, order: 2, from: nil, to: nil),
            release("noir", kind: .theme, order: 2, from: nil, to: nil, platforms: [.android], min: "7.1"),
            release("mint", kind: .theme, from: 3 * day, to: 7 * day, max: "8.0.0.1"),
            release("aurora", kind: .theme, from: nil, to: nil, rollout: 80)
        ], killSwitch: KillSwitch(), revision: 7)

    static let versions = [
        "6.9", "7.0", "7.0.1", "7.1", "7.1.99", "7.2", "7.2.0", "7.10", "8.0", "8.0.0.1", "8.5", "9", "9.0.1"
    ]

    @Test func theCatalogsDecisionAgreesWithTheServersPollAndThemeListOn10000Draws() async throws {
        let key = try CountingKey(id: "agree")
        let harness = try await LiveryHarness(at: Self.t0) { $0.client.signingKey = key }
        defer { harness.removeFiles() }
        harness.service.client.publish(Self.catalog)

        // The phone's side: each platform's catalog, fetched once, verified and parsed.
        var documents: [Platform: CatalogDocument] = [:]
        for platform in [Platform.ios, .android] {
            let response = try await harness.get("/api/v1/catalog?app=demo&platform=\(platform.rawValue)")
            #expect(response.status == 200, "\(response.text)")
            _ = try key.ring.verify(body: response.body, headerValue: try #require(response.header("Livery-Signature")))
            documents[platform] = try CatalogDocument.parse(response.body)
        }

        // Instants around every boundary (exactly at, 1 ms and 1 s either side) and in between, within the 7 days
        // the poll's `next` looks ahead of the catalog's 14-day horizon.
        let boundaries = Array(
            Set(
                Self.catalog.allReleases.filter(\.release.hasWindow)
                    .flatMap { [$0.release.startsAt, $0.release.endsAt] })
        ).sorted()
        let offsets: [TimeInterval] = [0, -0.001, 0.001, -1, 1]
        var random = SplitMix64(seed: 0x5EED_CA7A)
        var disagreement: String?
        var skinsSeen = Set<String>()
        for draw in 0..<10_000 {
            // The in-memory requests below rarely suspend, so without this the loop would keep one of the
            // cooperative pool's two threads (on two cores) for its whole run, starving other suites' handlers.
            await Task.yield()
            let platform: Platform = random.below(2) == 0 ? .ios : .android
            let deviceID: String? = random.below(20) == 0 ? nil : "device-\(random.next() % 1_000_000)"
            let version = Self.versions[random.below(Self.versions.count)]
            let variant = (PackageVariant.all + PackageVariant.bothAppearances)[random.below(9)]
            var instant = boundaries[random.below(boundaries.count)].addingTimeInterval(
                offsets[random.below(offsets.count)])
            if random.below(4) == 0 {
                instant = Self.t0.addingTimeInterval(Double(random.below(7 * 86_400_000)) / 1000)
            }
            guard instant >= Self.t0, instant < Self.t0.addingTimeInterval(7 * Self.day) else { continue }

            harness.clock.set(instant)
            var query =
                "app=demo&platform=\(platform.rawValue)&appVersion=\(version)&scale=\(variant.scale)"
                + "&appearance=\(variant.appearance.rawValue)"
            if let deviceID { query += "&deviceId=\(deviceID)" }
            let poll = try LiveryHarness.object(try await harness.get("/api/v1/skin?" + query))
            let themes = try LiveryHarness.object(try await harness.get("/api/v1/themes?" + query))
            let serverNext = poll["next"] as? [String: Any]
            let server = Answer(
                skin: poll["skinId"] as? String, sign: poll["skinSign"] as? String ?? "?",
                next: serverNext?["skinId"] as? String, nextSign: serverNext?["skinSign"] as? String,
                themes: (themes["themes"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "?")=\($0["sign"] ?? "?")" })

            let document = try #require(documents[platform])
            let local = CatalogDecision.decide(
                document, deviceId: deviceID, appVersion: try #require(CatalogAppVersion(version)), at: instant,
                variant: try #require(
                    CatalogVariant.requested(scale: "\(variant.scale)", appearance: variant.appearance.rawValue)))
            let phone = Answer(
                skin: local.current?.entry.skinId, sign: local.skinSign, next: local.next?.entry.skinId,
                nextSign: local.next?.package?.skinSign,
                themes: local.themes.map { "\($0.entry.skinId)=\($0.package?.skinSign ?? "?")" })
            if let skin = server.skin { skinsSeen.insert(skin) }
            if phone != server {
                disagreement =
                    "draw \(draw): \(query) at \(ISO8601Instant.format(instant)):\n server \(server)\n phone  \(phone)"
                break
            }
        }
        #expect(disagreement == nil, "\(disagreement ?? "")")
        // The draws reach the rules: every holiday skin that can apply was some device's answer.
        #expect(
            skinsSeen.isSuperset(of: ["base", "eve", "eve-beta", "legacy", "droid", "tie-a", "tie-b", "late"]),
            "\(skinsSeen)")
        await harness.stop()
    }

    /// What one side answers, comparable.
    struct Answer: Equatable, CustomStringConvertible {
        let skin: String?
        let sign: String
        let next: String?
        let nextSign: String?
        let themes: [String]

        var description: String {
            "skin \(skin ?? "none") \(sign), next \(next ?? "none") \(nextSign ?? ""), themes \(themes)"
        }
    }
}
