import LiveryProtocol
import Testing

@Suite struct PlainNameTests {
    @Test(arguments: ["a", "demo", "com.example.app", "A-Z_0.9", String(repeating: "x", count: 64)])
    func acceptsOneToSixtyFourLettersDigitsDotsUnderscoresAndHyphens(_ text: String) {
        #expect(PlainName.isValid(text))
        #expect(PlainName.isValid(Substring(text)))
        #expect(KeyID(text) != nil)
    }

    @Test(arguments: ["", String(repeating: "x", count: 65), "a b", "a/b", "a:b", "é", "a\u{0}", "a\"b", "a,b"])
    func refusesEverythingElse(_ text: String) {
        #expect(!PlainName.isValid(text))
        #expect(!PlainName.isValid(Substring(text)))
        #expect(KeyID(text) == nil)
    }

    @Test func keyIDsFollowTheSameRule() {
        #expect(KeyID.rule == PlainName.rule)
    }
}
