import LiveryJSON
import Testing

/// RFC 6901 pointers: tokens escaped on output and unescaped on input, `~1` before `~0` so `~01` stays `~1`.
@Suite struct JSONPointerTests {
    @Test(
        arguments: [
            ([], ""), (["a/b", "c~d", "0"], "/a~1b/c~0d/0"), (["~1"], "/~01"), (["", "/"], "//~1"),
            (["春节~/"], "/春节~0~1")
        ] as [([String], String)])
    func escapesTokensAndReadsThemBack(_ tokens: [String], _ text: String) throws {
        #expect(JSONPointer(tokens: tokens).description == text)
        #expect(try #require(JSONPointer(parsing: text)).tokens == tokens)
    }

    @Test func refusesTextThatDoesNotStartWithASlash() {
        #expect(JSONPointer(parsing: "a/b") == nil)
    }
}
