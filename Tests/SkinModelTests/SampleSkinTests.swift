import Foundation
import LiveryJSON
import SkinDirectory
import SkinModel
import Testing

@Suite struct SampleSkinTests {
    static let skinsFolder = Fixture.packageRoot + "/skins"
    static let names = ["christmas-2026", "double-11-2026", "spring-festival-2027"]

    @Test func theSamplesAreTheOnesShipped() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.skinsFolder)
            .filter { FileManager.default.fileExists(atPath: Self.skinsFolder + "/\($0)/skin.json") }
        #expect(folders.sorted() == Self.names)
    }

    @Test(arguments: names)
    func validatesWithoutErrorsOrWarnings(_ name: String) throws {
        let report = validate(DirectorySkinSource(path: Self.skinsFolder + "/" + name))
        #expect(report.issues.isEmpty, "\(report.issues)")
        let skin = try #require(report.skin)
        #expect(skin.manifest.id.rawValue == name)
        #expect(skin.manifest.app == "demo")
        #expect(skin.manifest.release != nil)
    }

    @Test(arguments: names)
    func everyVariantPlanIsCompleteAndSmaller(_ name: String) throws {
        let source = DirectorySkinSource(path: Self.skinsFolder + "/" + name)
        let skin = try #require(validate(source).skin)
        let listed = Set(try source.listFiles().map(\.path))
        for variant in PackageVariant.all {
            let plan = skin.packagePlan(for: variant)
            #expect(plan.names.contains("config.json"))
            for case .sourceFile(let path) in plan.entries.map(\.content) { #expect(listed.contains(path)) }
            // A file of another scale ships only when the requested scale does not exist.
            for name in plan.names {
                for other in [2, 3] where other != variant.scale && name.contains("@\(other)x.") {
                    let wanted = name.replacingOccurrences(
                        of: "@\(other)x.", with: variant.scale == 1 ? "." : "@\(variant.scale)x.")
                    #expect(!listed.contains(wanted), "\(name) shipped for \(variant) although \(wanted) exists")
                }
            }
            #expect(plan.entries.count < listed.count)
        }
    }

    @Test func releaseWindowsMatchTheHolidays() throws {
        func release(_ name: String) throws -> ReleasePlan {
            try #require(validate(DirectorySkinSource(path: Self.skinsFolder + "/" + name)).skin?.manifest.release)
        }
        // Both recur (issue 27): Spring Festival by the Chinese calendar, Christmas yearly.
        let before2027 = try #require(ISO8601Instant.parse("2026-12-01T00:00:00Z"))
        let spring = try release("spring-festival-2027")
        #expect(spring.timeZone == "Asia/Shanghai")
        let newYear = try #require(spring.occurrences(notEndedAt: before2027, count: 1).first)
        #expect(newYear.year == 2027 && newYear.startsAt == ISO8601Instant.parse("2027-01-30T00:00:00+08:00"))
        #expect(newYear.endsAt == ISO8601Instant.parse("2027-02-21T23:59:59+08:00"))
        let christmas = try release("christmas-2026")
        #expect(
            christmas.recurrence
                == RecurrenceRule(calendar: .gregorian, month: 12, day: 25, startOffsetDays: -5, endOffsetDays: 2))
        let xmas = try #require(christmas.occurrences(notEndedAt: before2027, count: 1).first)
        #expect(xmas.startsAt == ISO8601Instant.parse("2026-12-20T00:00:00+08:00"))
        #expect(christmas.platforms == [.ios, .android])
        #expect(try release("double-11-2026").maxAppVersion == AppVersion("99"))
    }

    @Test func christmasHasDarkOverridesThatChangeThePackage() throws {
        let skin = try #require(validate(DirectorySkinSource(path: Self.skinsFolder + "/christmas-2026")).skin)
        #expect(skin.config.hasDarkOverrides)
        let light = skin.packagePlan(for: PackageVariant.standard)
        let dark = skin.packagePlan(for: try #require(PackageVariant(scale: 3, appearance: .dark)))
        #expect(light.names.contains("xmas/banner@3x.png") && !light.names.contains("xmas/banner_dark@3x.png"))
        #expect(dark.names.contains("xmas/banner_dark@3x.png") && !dark.names.contains("xmas/banner@3x.png"))
    }

    @Test func imageScalesHaveProportionalPixelSizes() throws {
        for name in Self.names {
            let source = DirectorySkinSource(path: Self.skinsFolder + "/" + name)
            let pngs = try source.listFiles().map(\.path).filter { $0.hasSuffix(".png") }
            for path in pngs where path.hasSuffix("@3x.png") {
                let two = path.replacingOccurrences(of: "@3x.png", with: "@2x.png")
                guard pngs.contains(two) else { continue }
                let (w3, h3) = try Self.pngSize(try source.read(path))
                let (w2, h2) = try Self.pngSize(try source.read(two))
                #expect(w3 * 2 == w2 * 3 && h3 * 2 == h2 * 3, "\(path)")
            }
        }
    }

    @Test func theDemoBaseConfigIsFullyKnownToTheSpringSkin() throws {
        let base = try JSONValue.parse(
            try DirectorySkinSource(path: Self.skinsFolder + "/tools").read("demo-base-config.json"))
        let report = validate(DirectorySkinSource(path: Self.skinsFolder + "/spring-festival-2027"), base: base)
        let coverage = try #require(report.coverage)
        #expect(coverage.unknownToBase.isEmpty)
        #expect(coverage.fallingBack.map(\.key.description) == ["home_tabbar/colors/color_badge"])
    }

    @Test func skinsFolderStaysUnderTwoMegabytes() throws {
        var total = 0
        for name in Self.names + ["tools"] {
            total += try DirectorySkinSource(path: Self.skinsFolder + "/" + name).listFiles().reduce(0) { $0 + $1.size }
        }
        #expect(total < 2_000_000)
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ bytes: [UInt8]) throws -> (Int, Int) {
        try #require(bytes.count > 24 && Array(bytes[12..<16]) == Array("IHDR".utf8))
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}
