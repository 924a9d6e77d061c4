import Foundation
import SkinModel
import TestSupport
import Testing

@testable import LiveryKit

/// Reading an unpacked package with the shared skin-format target: every colour spelling, the fallback chain, and
/// which stored package applies when. No server.
@Suite struct SkinReadingTests {
    /// An unpacked package folder holding `config` (and `files`), read as LiveryKit reads one.
    static func skin(
        _ config: String, files: [String: [UInt8]] = [:], dark: String? = nil, scale: Int = 3
    ) throws -> (Skin, ScratchDirectory) {
        let scratch = try ScratchDirectory(prefix: "livery-kit-read")
        var all = files
        all["config.json"] = Array(config.utf8)
        if let dark { all["config-dark.json"] = Array(dark.utf8) }
        for (name, bytes) in all { _ = try scratch.write(name, bytes) }
        let folder = URL(fileURLWithPath: scratch.path, isDirectory: true)
        let configs = try PackageContents.configs(in: folder, contents: dark == nil ? .light : .any)
        let entry = PackageEntry(
            sign: "s", skinID: "id", packageURL: "/p", sha256: String(repeating: "0", count: 64), size: 1)
        return (Skin(entry: entry, kind: .holiday, folder: folder, scale: scale, configs: configs), scratch)
    }

    @Test(arguments: [
        ("#1E90FF", "#1E90FFFF"), ("1e90ff", "#1E90FFFF"), ("0x1E90FF", "#1E90FFFF"), ("#1E90FF80", "#1E90FF80"),
        ("fff", "#FFFFFFFF"), ("#0f0", "#00FF00FF"), ("B17936 0.9", "#B17936E6"), ("#B17936 0.5", "#B1793680"),
        ("rgba<254,220,189,0.9>", "#FEDCBDE6"), ("rgba<254,220,189>", "#FEDCBDFF"), ("hex<B2D235 0.9>", "#B2D235E6"),
        ("hex<B2D235>", "#B2D235FF"), ("random", "random")
    ])
    func everyColourSpellingReadsAsRGBA(spelling: String, expected: String) throws {
        let (skin, _) = try Self.skin(#"{"m":{"colors":{"c":"\#(spelling)"}}}"#)
        let color = try #require(skin.color("m", "c"))
        #expect(color.description == expected)
        if spelling == "random" { #expect(color == .random) }
    }

    @Test func dottedIdentifiersFallBackToTheirParentsThenDefault() throws {
        let (skin, _) = try Self.skin(
            #"{"m":{"colors":{"a.b":"111111","a":"222222","__default__":"333333"},"values":{"x":1}}}"#)
        #expect(skin.color("m", "a.b.c")?.description == "#111111FF")
        #expect(skin.color("m", "a.b")?.description == "#111111FF")
        #expect(skin.color("m", "a.z")?.description == "#222222FF")
        #expect(skin.color("m", "other")?.description == "#333333FF")
        #expect(skin.value("m", "y") == nil, "__default__ of colors does not leak into values")
        #expect(skin.color("n", "a") == nil, "nor into other modules")
        #expect(
            IdentifierResolver.fallbackChain(for: try #require(ConfigKey(parsing: "m/colors/a.b.c"))).map(\.identifier)
                == ["a.b.c", "a.b", "a", "__default__"])
    }

    @Test func imagesResolveToTheFileAtTheDeviceScaleAColourOrAURL() throws {
        let png = TestImages.png(width: 2, height: 2)
        let config =
            ##"{"m":{"images":{"byName":"tab","asFile":"file://pics/banner.png","obj":{"type":0,"name":"tab"},"solid":{"type":2,"color":"#FF000080"},"remote":"https://cdn.example.com/a.png"}}}"##
        let (skin, scratch) = try Self.skin(
            config, files: ["tab@2x.png": png, "tab@3x.png": png, "pics/banner@3x.png": png], scale: 3)
        #expect(skin.image("m", "byName") == .imageFile(URL(fileURLWithPath: scratch.path + "/tab@3x.png")))
        #expect(skin.image("m", "obj") == .imageFile(URL(fileURLWithPath: scratch.path + "/tab@3x.png")))
        #expect(skin.image("m", "asFile") == .imageFile(URL(fileURLWithPath: scratch.path + "/pics/banner@3x.png")))
        guard case .imageColor(let solid) = skin.image("m", "solid") else {
            Issue.record("a solid-colour image")
            return
        }
        #expect(solid.description == "#FF000080")
        #expect(skin.image("m", "remote") == .remoteImage("https://cdn.example.com/a.png"))
        // A file-path package (imageReferences "file-path") names the exact file.
        let (exact, exactFolder) = try Self.skin(
            #"{"m":{"images":{"i":"tab@2x.png"}}}"#, files: ["tab@2x.png": png], scale: 2)
        #expect(exact.image("m", "i") == .imageFile(URL(fileURLWithPath: exactFolder.path + "/tab@2x.png")))
    }

    @Test func aPackageHoldingBothAppearancesAnswersEachFromItsOwnConfig() throws {
        let (skin, _) = try Self.skin(
            #"{"m":{"colors":{"bg":"FFFFFF"}}}"#, dark: #"{"m":{"colors":{"bg":"000000"}}}"#)
        #expect(skin.holdsBothAppearances)
        #expect(skin.color("m", "bg", appearance: .light)?.description == "#FFFFFFFF")
        #expect(skin.color("m", "bg", appearance: .dark)?.description == "#000000FF")
        let (single, _) = try Self.skin(#"{"m":{"colors":{"bg":"FFFFFF"}}}"#)
        #expect(single.color("m", "bg", appearance: .dark)?.description == "#FFFFFFFF", "one config answers both")
    }

    @Test func theHolidaySkinWinsInItsWindowThenNextThenTheChosenTheme() {
        let hour: TimeInterval = 3600
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        func entry(_ sign: String, _ from: Double?, _ to: Double?) -> PackageEntry {
            PackageEntry(
                sign: sign, skinID: sign, packageURL: "/", sha256: String(repeating: "0", count: 64), size: 1,
                startsAt: from.map { t0.addingTimeInterval($0 * hour) },
                endsAt: to.map { t0.addingTimeInterval($0 * hour) })
        }
        var state = StoredState(deviceID: "d")
        state.holiday = entry("h", 0, 2)
        state.next = entry("n", 2, 4)
        state.theme = entry("t", nil, nil)
        let all: (String) -> Bool = { _ in true }
        #expect(SkinSelection.choose(state, at: t0, isStored: all)?.entry.sign == "h")
        #expect(SkinSelection.choose(state, at: t0.addingTimeInterval(2 * hour - 1), isStored: all)?.entry.sign == "h")
        #expect(
            SkinSelection.choose(state, at: t0.addingTimeInterval(2 * hour), isStored: all)?.entry.sign == "n",
            "half-open windows")
        #expect(SkinSelection.choose(state, at: t0.addingTimeInterval(4 * hour), isStored: all)?.kind == .theme)
        #expect(SkinSelection.choose(state, at: t0.addingTimeInterval(-1), isStored: all)?.entry.sign == "t")
        #expect(
            SkinSelection.choose(state, at: t0, isStored: { $0 != "h" })?.entry.sign == "t",
            "a missing package never applies")
        state.blocked = ["h"]
        #expect(SkinSelection.choose(state, at: t0, isStored: all)?.entry.sign == "t", "a blocked sign never applies")
        state.theme = nil
        #expect(SkinSelection.choose(state, at: t0, isStored: all) == nil)
    }

    @Test func theStateFileRoundTripsAndAnUnreadableOneStartsAfresh() {
        var state = StoredState(deviceID: "dev")
        state.holiday = PackageEntry(
            sign: "abc", skinID: "x", packageURL: "/api/v1/packages/abc.zip", sha256: String(repeating: "a", count: 64),
            size: 42, startsAt: Date(timeIntervalSince1970: 1_800_000_000),
            endsAt: Date(timeIntervalSince1970: 1_800_003_600))
        state.blocked = ["bad"]
        state.confirmed = ["abc"]
        state.applied = "abc"
        state.pollETag = "\"e\""
        state.source = .catalog
        state.catalogFreshUntil = Date(timeIntervalSince1970: 1_800_000_060)
        state.pollUntil = Date(timeIntervalSince1970: 1_800_086_400)
        state.unknownAppUntil = Date(timeIntervalSince1970: 1_800_003_600)
        #expect(StoredState.read(state.serialized()) == state)
        #expect(
            StoredState.read(Array(#"{"version":1,"deviceId":"d"}"#.utf8))?.source == .poll,
            "written before the catalog")
        #expect(StoredState.read(Array("{not json".utf8)) == nil)
        #expect(StoredState.read(Array(#"{"version":2,"deviceId":"d"}"#.utf8)) == nil)
    }

    @Test func signsThatCannotNameAFolderAreRefused() {
        #expect(PackageEntry.isSafeSign("1a2b-c_d.e"))
        for bad in ["", ".hidden", "a/b", "..", "a b", String(repeating: "a", count: 129), "é"] {
            #expect(!PackageEntry.isSafeSign(bad), "\(bad)")
        }
    }

    @Test func aCatalogIsFreshForItsMaxAgeAtMostADayAndNotAtAllWithoutOne() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(
            LiveryClient.freshUntil("public, max-age=60, stale-while-revalidate=240", now: now)
                == now.addingTimeInterval(60))
        #expect(LiveryClient.freshUntil("Public,MAX-AGE=5", now: now) == now.addingTimeInterval(5))
        #expect(LiveryClient.freshUntil("public, max-age=999999", now: now) == now.addingTimeInterval(86_400))
        #expect(LiveryClient.freshUntil("public, s-maxage=600", now: now) == now)
        #expect(LiveryClient.freshUntil("max-age=60, no-cache", now: now) == now)
        #expect(LiveryClient.freshUntil("no-store", now: now) == now)
        #expect(LiveryClient.freshUntil("max-age=-1", now: now) == now)
        #expect(LiveryClient.freshUntil(nil, now: now) == now)
    }

    @Test func retryAfterIsReadAsSecondsOrAnHTTPDateAndCappedAtADay() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(LiveryClient.retryAfter("120", now: now) == now.addingTimeInterval(120))
        #expect(LiveryClient.retryAfter("999999", now: now) == now.addingTimeInterval(86_400))
        #expect(
            LiveryClient.retryAfter("Fri, 15 Jan 2027 08:00:30 GMT", now: now)
                == Date(timeIntervalSince1970: 1_800_000_030))
        #expect(LiveryClient.retryAfter("soon", now: now) == nil)
        #expect(LiveryClient.retryAfter(nil, now: now) == nil)
    }
}
