import Testing

@testable import LiveryServer

@Suite struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-99", ByteRange.Outcome.partial(ByteRange(first: 0, last: 99))),
        ("bytes=100-", .partial(ByteRange(first: 100, last: 999))),
        ("bytes=-10", .partial(ByteRange(first: 990, last: 999))),
        ("bytes=-5000", .partial(ByteRange(first: 0, last: 999))),
        ("bytes=990-5000", .partial(ByteRange(first: 990, last: 999))),
        ("bytes=999-999", .partial(ByteRange(first: 999, last: 999))),
        ("BYTES=1-2", .partial(ByteRange(first: 1, last: 2))),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=5000-6000", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=0-1,5-6", .full),
        ("bytes=5-1", .full),
        ("bytes=a-b", .full),
        ("bytes=-", .full),
        ("items=0-1", .full),
        ("bytes=99999999999999999999-", .full),
        ("bytes=+1-2", .full)
    ])
    func evaluatesRangeHeaders(header: String, expected: ByteRange.Outcome) {
        #expect(ByteRange.evaluate(header, length: 1000) == expected)
    }

    @Test func noHeaderMeansFullBody() {
        #expect(ByteRange.evaluate(nil, length: 10) == .full)
    }

    @Test func anyRangeOfAnEmptyBodyIsUnsatisfiable() {
        #expect(ByteRange.evaluate("bytes=0-", length: 0) == .unsatisfiable)
        #expect(ByteRange.evaluate("bytes=-1", length: 0) == .unsatisfiable)
    }
}

@Suite struct EntityTagTests {
    @Test func ifNoneMatchUsesWeakComparisonAndLists() {
        #expect(EntityTag.matches("\"abc\"", "\"abc\""))
        #expect(EntityTag.matches("W/\"abc\"", "\"abc\""))
        #expect(EntityTag.matches("\"x\", \"abc\"", "\"abc\""))
        #expect(EntityTag.matches("*", "\"abc\""))
        #expect(!EntityTag.matches("\"abd\"", "\"abc\""))
    }

    @Test func ifRangeNeedsAnIdenticalStrongTag() {
        #expect(EntityTag.ifRangeMatches("\"abc\"", "\"abc\""))
        #expect(!EntityTag.ifRangeMatches("W/\"abc\"", "\"abc\""))
        #expect(!EntityTag.ifRangeMatches("Sat, 01 Jan 2000 00:00:00 GMT", "\"abc\""))
    }
}
