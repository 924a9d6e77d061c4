import LiveryJSON
import SkinModel
import Testing

@Suite struct CoverageTests {
    static let base = ##"""
        {"home": {"colors": {"color.background.viewcontroller": "#fff", "color.background.tableview": "#fff",
                             "color.text": "#333", "color.badge": "#f00"},
                  "images": {"image.logo": "logo"}},
         "tab": {"values": {"title": "Home"}}}
        """##

    static let config = ##"""
        {"home": {"colors": {"color.background": "#FFF7F2", "color.background.tableview": "0xFFFFFF",
                             "color.background.viewcontroll": "#000", "__default__": "#FF5000", "color.text": "#222"}},
         "promo": {"values": {"title": "Sale"}}}
        """##

    static func report() throws -> ValidationReport {
        validate(Fixture.make(config: config), base: try JSONValue.parse(base))
    }

    @Test func listsOverriddenKeysInBaseOrder() throws {
        let coverage = try #require(try Self.report().coverage)
        #expect(
            coverage.overridden.map(\.description) == [
                "home/colors/color.background.tableview", "home/colors/color.text"
            ])
    }

    @Test func listsKeysThatFallBackAndWhereTo() throws {
        let coverage = try #require(try Self.report().coverage)
        #expect(
            coverage.fallingBack.map(\.key.description) == [
                "home/colors/color.background.viewcontroller", "home/colors/color.badge", "home/images/image.logo",
                "tab/values/title"
            ])
        #expect(
            coverage.fallingBack.map { $0.resolvedBy?.description } == [
                "home/colors/color.background", "home/colors/__default__", nil, nil
            ])
    }

    @Test func flagsKeysTheBaseDoesNotKnowWithASuggestion() throws {
        let report = try Self.report()
        let coverage = try #require(report.coverage)
        #expect(
            coverage.unknownToBase.map(\.key.description) == [
                "home/colors/color.background.viewcontroll", "promo/values/title"
            ])
        #expect(coverage.unknownToBase[0].suggestion?.description == "home/colors/color.background.viewcontroller")
        #expect(coverage.unknownToBase[1].suggestion?.description == "tab/values/title")
        let warning = try #require(report.first(.coverageKeyUnknown))
        #expect(warning.severity == .warning)
        #expect(warning.pointer == "/home/colors/color.background.viewcontroll")
        #expect(warning.fix.hasPrefix(#"Did you mean "color.background.viewcontroller""#))
        #expect(report.isValid)
    }

    @Test func parentsOfBaseKeysAndDefaultAreKnown() throws {
        let coverage = try #require(try Self.report().coverage)
        let unknown = Set(coverage.unknownToBase.map(\.key.identifier))
        #expect(!unknown.contains("color.background") && !unknown.contains("__default__"))
    }

    @Test func withoutABaseThereIsNoCoverage() {
        #expect(validate(Fixture.make(config: Self.config)).coverage == nil)
    }

    @Test func coverageAppearsInTheJSONReport() throws {
        let json = try #require(try Self.report().jsonValue.objectValue)
        let coverage = try #require(json["coverage"]?.objectValue)
        #expect(coverage.keys == ["overridden", "fallingBack", "unknownToBase"])
        #expect(coverage["fallingBack"]?.arrayValue?.last == ["key": "tab/values/title", "resolvedBy": nil])
    }
}
