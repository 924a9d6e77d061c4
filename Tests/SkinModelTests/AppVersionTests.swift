import Testing

@testable import SkinModel

@Suite struct AppVersionTests {
    @Test(arguments: ["7", "7.0", "7.10.2", "7.0.0.1234", "0", "999999999.999999999.999999999.999999999"])
    func acceptsOneToFourDottedNumbers(text: String) throws {
        let version = try #require(AppVersion(text))
        #expect(version.text == text)
        #expect(version.parts.map(String.init).joined(separator: ".") == text)
    }

    @Test(arguments: ["", ".", "7.", ".7", "7..1", "1.2.3.4.5", "1234567890", "7.x", "v7", "7 .1", "-1", "７"])
    func rejectsAnythingElse(text: String) {
        #expect(AppVersion(text) == nil)
    }

    @Test func trailingZerosDoNotChangeTheVersion() throws {
        let short = try #require(AppVersion("7.1"))
        let long = try #require(AppVersion("7.1.0.0"))
        #expect(short == long)
        #expect(short.hashValue == long.hashValue)
        #expect(Set([short, long]).count == 1)
        #expect(short.parts == [7, 1] && long.parts == [7, 1, 0, 0])
    }

    @Test(arguments: [
        ("7.9", "7.10"), ("7", "7.0.1"), ("7.0.0.1234", "7.0.1"), ("6.999999999", "7"), ("1.2.3.4", "1.2.3.5"),
        ("999999999.999999999.999999999.999999998", "999999999.999999999.999999999.999999999")
    ])
    func comparesPartByPartNumerically(lower: String, higher: String) throws {
        let low = try #require(AppVersion(lower))
        let high = try #require(AppVersion(higher))
        #expect(low < high)
        #expect(!(high < low))
        #expect(low != high)
    }
}
