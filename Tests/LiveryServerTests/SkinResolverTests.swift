import Foundation
import LiveryJSON
import SkinModel
import Testing

@testable import LiveryServer
@testable import SkinServing

@Suite struct SkinResolverTests {
    typealias F = Fixtures

    func winner(_ catalog: Catalog, _ request: SkinRequest = F.request(), at offset: TimeInterval = 0) -> String? {
        SkinResolver.resolve(request, in: catalog, at: F.t0.addingTimeInterval(offset)).current?.skinID.rawValue
    }

    @Test(
        arguments: [(-1.0, nil), (0.0, "xmas"), (1.0, "xmas"), (3599.0, "xmas"), (3600.0, nil), (3601.0, nil)]
            as [(Double, String?)])
    func windowIsHalfOpen(offset: Double, expected: String?) {
        let catalog = F.catalog(F.skin("xmas", from: 0, to: 3600))
        #expect(winner(catalog, at: offset) == expected)
    }

    /// The poll resolves holiday skins only: a theme, even one that would outrank every holiday, is never its
    /// answer, while its packages stay in the catalog (also under another kill switch).
    @Test func themesAreNeverThePollsAnswerButKeepTheirPackages() {
        let holiday = F.skin("xmas")
        let outranking = F.skin("ink", priority: 99)
        var plan = outranking.release
        plan.kind = .theme
        let theme = ReleasedSkin(skinID: outranking.skinID, app: "demo", release: plan, packages: outranking.packages)
        #expect(winner(F.catalog(theme, holiday)) == "xmas")
        #expect(winner(F.catalog(theme)) == nil)
        let catalog = F.catalog(theme, holiday)
        #expect(catalog.releases["demo"]?.map(\.skinID.rawValue) == ["xmas"])
        for record in theme.packages.values {
            #expect(catalog.packages[record.sign] == record)
            #expect(catalog.with(killSwitch: KillSwitch(apps: ["other"])).packages[record.sign] == record)
        }
    }

    @Test func highestPriorityWinsOverlaps() {
        let catalog = F.catalog(F.skin("low", priority: 1), F.skin("high", priority: 9), F.skin("mid", priority: 5))
        #expect(winner(catalog) == "high")
    }

    @Test func latestStartWinsAtEqualPriority() {
        let catalog = F.catalog(F.skin("early", from: -7200), F.skin("late", from: -60), F.skin("middle", from: -600))
        #expect(winner(catalog) == "late")
    }

    @Test func platformTargeting() {
        let catalog = F.catalog(F.skin("ios-only", platforms: [.ios]))
        #expect(winner(catalog, F.request(platform: .ios)) == "ios-only")
        #expect(winner(catalog, F.request(platform: .android)) == nil)
        #expect(winner(catalog, F.request(platform: .harmony)) == nil)
    }

    @Test(arguments: [
        ("6.9.9", false), ("7.0", true), ("7.0.0", true), ("7.5.1", true), ("7.9.99", true), ("8.0", false),
        ("8.0.1", false)
    ])
    func versionRangeIsMinInclusiveMaxExclusive(version: String, included: Bool) {
        let catalog = F.catalog(F.skin("ranged", min: "7.0.0", max: "8.0"))
        #expect((winner(catalog, F.request(version: version)) != nil) == included)
    }

    @Test func killSwitchesEmptyEveryAnswer() {
        let skins = [F.skin("a", app: "demo"), F.skin("b", app: "other")]
        let global = Catalog(releases: skins, killSwitch: KillSwitch(global: true))
        #expect(winner(global, F.request(app: "demo")) == nil)
        #expect(winner(global, F.request(app: "other")) == nil)
        let perApp = Catalog(releases: skins, killSwitch: KillSwitch(apps: ["demo"]))
        #expect(winner(perApp, F.request(app: "demo")) == nil)
        #expect(winner(perApp, F.request(app: "other")) == "b")
    }

    @Test func unknownAppGetsNoSkin() {
        #expect(winner(F.catalog(F.skin("a")), F.request(app: "brand-new")) == nil)
    }

    @Test func lowerPrioritySkinShowsWhereTheHigherOneDoesNotTarget() {
        let catalog = F.catalog(
            F.skin("android-promo", priority: 9, platforms: [.android]), F.skin("general", priority: 1))
        #expect(winner(catalog, F.request(platform: .ios)) == "general")
        #expect(winner(catalog, F.request(platform: .android)) == "android-promo")
    }

    @Test func rolloutLandsNearItsPercentageAndIsSticky() {
        let catalog = F.catalog(F.skin("partial", rollout: 30))
        var generator = SystemRandomNumberGenerator()
        var included = 0
        let devices = (0..<10_000).map { _ in
            String(generator.next(), radix: 36) + "-" + String(generator.next(), radix: 36)
        }
        for device in devices where winner(catalog, F.request(device: device)) != nil { included += 1 }
        #expect((2800...3200).contains(included), "30 % rollout included \(included) of 10,000")
        for device in devices.prefix(500) {
            let first = winner(catalog, F.request(device: device))
            #expect(winner(catalog, F.request(device: device)) == first)
        }
    }

    @Test func raisingARolloutOnlyAddsDevices() {
        let devices = (0..<2000).map { "device-\($0)" }
        let at30 = Set(devices.filter { RolloutBucket.includes(deviceID: $0, skinID: F.id("s"), rollout: 30) })
        let at60 = Set(devices.filter { RolloutBucket.includes(deviceID: $0, skinID: F.id("s"), rollout: 60) })
        #expect(at30.isSubset(of: at60) && at30.count < at60.count)
    }

    @Test func withoutDeviceIDOnlyFullRolloutsApply() {
        #expect(winner(F.catalog(F.skin("full", rollout: 100))) == "full")
        #expect(winner(F.catalog(F.skin("partial", rollout: 99))) == nil)
        #expect(winner(F.catalog(F.skin("zero", rollout: 0)), F.request(device: "d")) == nil)
    }

    @Test func nextIsTheUpcomingSkinWithinTheHorizon() {
        let catalog = F.catalog(
            F.skin("now", from: -3600, to: 3600),
            F.skin("soon", from: 3600, to: 7200),
            F.skin("far", from: 8 * 86400, to: 9 * 86400))
        let decision = SkinResolver.resolve(F.request(), in: catalog, at: F.t0)
        #expect(decision.current?.skinID.rawValue == "now")
        #expect(decision.next?.skinID.rawValue == "soon")
        #expect(decision.nextBoundary == F.t0.addingTimeInterval(3600))
        let later = SkinResolver.resolve(F.request(), in: catalog, at: F.t0.addingTimeInterval(7200))
        #expect(later.current == nil && later.next == nil, "'far' starts beyond the 7-day horizon")
    }

    @Test func nextSkipsSkinsThatWouldNotWin() {
        let catalog = F.catalog(
            F.skin("big", from: -3600, to: 86400, priority: 9), F.skin("small", from: 600, to: 1200))
        let decision = SkinResolver.resolve(F.request(), in: catalog, at: F.t0)
        #expect(decision.current?.skinID.rawValue == "big" && decision.next == nil)
    }

    @Test func packageFollowsTheRequestedVariant() throws {
        let variant = try #require(PackageVariant(scale: 2, appearance: .dark))
        let decision = SkinResolver.resolve(F.request(variant: variant), in: F.catalog(F.skin("s")), at: F.t0)
        #expect(decision.currentPackage?.variant == variant)
    }

    @Test func exclusionExplainsEachRule() {
        let request = F.request(platform: .android, version: "5.0")
        let check = { (skin: ReleasedSkin, kill: KillSwitch) in
            SkinResolver.exclusion(of: skin, for: request, at: F.t0, killSwitch: kill)
        }
        #expect(check(F.skin("k"), KillSwitch(global: true)) == .killSwitch)
        #expect(check(F.skin("p", platforms: [.ios]), KillSwitch()) == .platform)
        #expect(check(F.skin("v", min: "6.0"), KillSwitch()) == .belowMinAppVersion)
        #expect(check(F.skin("m", max: "5.0"), KillSwitch()) == .atOrAboveMaxAppVersion)
        #expect(check(F.skin("f", from: 10, to: 20), KillSwitch()) == .notStarted)
        #expect(check(F.skin("e", from: -20, to: -10), KillSwitch()) == .ended)
        #expect(check(F.skin("r", rollout: 50), KillSwitch()) == .rollout)
        #expect(check(F.skin("ok"), KillSwitch()) == nil)
    }
}

@Suite struct SkinAnswerTests {
    typealias F = Fixtures

    func json(_ answer: SkinAnswer) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    @Test func emptyAnswerIsAnEmptySign() throws {
        let catalog = F.catalog()
        let answer = SkinAnswer(
            decision: SkinResolver.resolve(F.request(), in: catalog, at: F.t0),
            fragments: AnswerFragments(catalog: catalog))
        #expect(try json(answer) as NSDictionary == ["skinSign": ""] as NSDictionary)
        #expect(answer.skinSign == "")
    }

    @Test func answerCarriesThePackageAndNext() throws {
        let catalog = F.catalog(F.skin("now", from: -60, to: 60), F.skin("next", from: 60, to: 120))
        let answer = SkinAnswer(
            decision: SkinResolver.resolve(F.request(), in: catalog, at: F.t0),
            fragments: AnswerFragments(catalog: catalog))
        let body = try json(answer)
        let record = try #require(catalog.releases["demo"]?.first { $0.skinID.rawValue == "now" }?.packages[.standard])
        #expect(body["skinSign"] as? String == record.sign)
        #expect(body["skinId"] as? String == "now")
        #expect(body["packageUrl"] as? String == "/api/v1/packages/\(record.sign).zip")
        #expect(body["sha256"] as? String == record.sha256)
        #expect(body["size"] as? Int == 100)
        #expect(body["startsAt"] as? String == "2027-01-15T07:59:00Z")
        let next = try #require(body["next"] as? [String: Any])
        #expect(next["skinId"] as? String == "next")
        #expect(answer.etag.hasPrefix("\"") && answer.etag.hasSuffix("\"") && answer.etag.count == 34)
    }

    /// The ETag is a digest of the body: moving only a window's end (same packages) must change it, or caches
    /// revalidate, get 304 and keep the old `endsAt`.
    @Test func theETagChangesWhenOnlyTheWindowMoves() throws {
        let before = F.catalog(F.skin("now", from: -60, to: 60))
        let after = F.catalog(F.skin("now", from: -60, to: 3600))
        let old = SkinAnswer(
            decision: SkinResolver.resolve(F.request(), in: before, at: F.t0),
            fragments: AnswerFragments(catalog: before))
        let moved = SkinAnswer(
            decision: SkinResolver.resolve(F.request(), in: after, at: F.t0), fragments: AnswerFragments(catalog: after)
        )
        #expect(old.skinSign == moved.skinSign)
        #expect(old.body != moved.body)
        #expect(old.etag != moved.etag)
    }

    /// Two releases whose packages have identical bytes share a sign; each answer names the release that was
    /// selected (its id and window), never the other one.
    @Test func releasesSharingAPackageEachAnswerWithTheirOwnIdAndWindow() throws {
        let first = F.skin("look-a", from: -3600, to: 60, content: "same")
        let second = F.skin("look-b", from: 60, to: 7200, content: "same")
        let otherApp = F.skin("look-c", app: "other", from: -3600, to: 7200, content: "same")
        let catalog = F.catalog(first, second, otherApp)
        let fragments = AnswerFragments(catalog: catalog)
        #expect(first.packages[.standard]?.sign == second.packages[.standard]?.sign)

        let inFirst = try json(fragments.answer(for: SkinResolver.resolve(F.request(), in: catalog, at: F.t0)))
        #expect(inFirst["skinId"] as? String == "look-a")
        #expect(inFirst["endsAt"] as? String == "2027-01-15T08:01:00Z")
        let upcoming = try #require(inFirst["next"] as? [String: Any])
        #expect(upcoming["skinId"] as? String == "look-b" && upcoming["endsAt"] as? String == "2027-01-15T10:00:00Z")

        let inSecond = try json(
            fragments.answer(for: SkinResolver.resolve(F.request(), in: catalog, at: F.t0.addingTimeInterval(120))))
        #expect(inSecond["skinId"] as? String == "look-b")
        #expect(inSecond["startsAt"] as? String == "2027-01-15T08:01:00Z")
        #expect(inSecond["endsAt"] as? String == "2027-01-15T10:00:00Z")

        let forOther = try json(
            fragments.answer(for: SkinResolver.resolve(F.request(app: "other"), in: catalog, at: F.t0)))
        #expect(forOther["skinId"] as? String == "look-c")
        #expect(forOther["skinSign"] as? String == first.packages[.standard]?.sign)
    }

    @Test func precomputedAnswersEqualAnswersAssembledPerPoll() {
        let catalog = F.catalog(
            F.skin("now", from: -60, to: 60), F.skin("next", from: 60, to: 120),
            F.skin("ios", priority: 5, platforms: [.ios]))
        let fragments = AnswerFragments(catalog: catalog)
        var seen = Set<String>()
        for offset in [-120.0, 0, 59, 60, 90, 200] {
            for platform in [Platform.ios, .android] {
                for variant in PackageVariant.all {
                    var request = F.request(platform: platform)
                    request.variant = variant
                    let decision = SkinResolver.resolve(request, in: catalog, at: F.t0.addingTimeInterval(offset))
                    let answer = fragments.answer(for: decision)
                    #expect(answer == SkinAnswer(decision: decision, fragments: fragments))
                    seen.insert(answer.etag)
                }
            }
        }
        #expect(seen.count > 6, "the polls above should reach several different answers")
    }

    @Test func catalogsTooBigToPrecomputeStillAnswerEveryPoll() {
        // One app with enough skins that (n + 1)² × 6 answers exceed the precomputed limit.
        let count = Int(Double(AnswerFragments.precomputedLimit / PackageVariant.slotCount).squareRoot()) + 1
        let skins = (0..<count).map { F.skin("s\($0)", from: -60, to: 60, priority: $0) }
        let catalog = Catalog(releases: skins, killSwitch: KillSwitch())
        let fragments = AnswerFragments(catalog: catalog)
        let decision = SkinResolver.resolve(F.request(), in: catalog, at: F.t0)
        #expect(decision.current?.skinID.rawValue == "s\(count - 1)")
        let answer = fragments.answer(for: decision)
        #expect(answer.skinSign == decision.currentPackage?.sign && !answer.skinSign.isEmpty)
        #expect(answer == SkinAnswer(decision: decision, fragments: fragments))
    }

    @Test func localTimesAreRenderedWithTheirZoneOffset() throws {
        let document = try JSONValue.parse(
            #"{"startsAt": "2027-02-05T00:00:00", "endsAt": "2027-02-20T00:00:00", "timeZone": "Asia/Shanghai"}"#)
        let plan = try #require(ReleasePlan.parse(document, file: nil, pointer: .root).value)
        #expect(
            AnswerFragments.instantText(plan.startsAt, written: plan.startsAtText, plan.timeZone)
                == "2027-02-05T00:00:00+08:00")
        #expect(plan.startsAt == ISO8601DateFormatter().date(from: "2027-02-04T16:00:00Z"))
    }

    /// A recurring release reaches the catalog as its occurrences in concrete instants (issue 27): a poll a few days
    /// before Spring Festival 2027 is told of it as `next`, during it gets that year's window, and after it the next
    /// year's occurrence (2028-01-26, minus 7 days) is prefetched across the year boundary.
    @Test func aRecurringReleaseIsResolvedOccurrenceByOccurrence() throws {
        let document = try JSONValue.parse(
            #"{"recurs": {"calendar": "chinese", "month": 1, "day": 1, "startOffsetDays": -7, "endOffsetDays": 15}, "timeZone": "Asia/Shanghai"}"#
        )
        let plan = try #require(ReleasePlan.parse(document, file: nil, pointer: .root, now: F.t0).value)
        let base = F.skin("spring")
        let catalog = Catalog(
            releases: plan.concreteWindows(from: F.t0, count: CatalogBuilder.servedOccurrences).map(
                base.with(release:)),
            killSwitch: KillSwitch())
        func at(_ text: String) throws -> SkinDecision {
            SkinResolver.resolve(F.request(), in: catalog, at: try #require(ISO8601Instant.parse(text)))
        }
        let before = try at("2027-01-25T00:00:00Z")
        #expect(before.current == nil && before.next?.skinID.rawValue == "spring")
        #expect(before.next?.release.startsAt == ISO8601Instant.parse("2027-01-29T16:00:00Z"), "2027-01-30 in Shanghai")
        let during = try at("2027-02-06T00:00:00Z")
        #expect(during.current?.skinID.rawValue == "spring")
        #expect(during.current?.release.endsAt == ISO8601Instant.parse("2027-02-21T15:59:59Z"))
        let after = try at("2028-01-15T00:00:00Z")
        #expect(after.current == nil && after.next?.release.startsAt == ISO8601Instant.parse("2028-01-18T16:00:00Z"))
    }
}
