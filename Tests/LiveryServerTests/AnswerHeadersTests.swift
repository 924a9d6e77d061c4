import LiveryHTTP
import SkinModel
import Testing

@testable import LiveryServer
@testable import SkinServing

/// The header fields of poll answers are encoded by the adapter, once per precomputed answer, and describe exactly
/// the answer at the same position.
@Suite struct AnswerHeadersTests {
    typealias F = Fixtures

    @Test func eachPrecomputedAnswersHeadersCarryItsETagAndTheLongestMaxAge() throws {
        let catalog = F.catalog(F.skin("now", from: -3600, to: 3600), F.skin("next", from: 3600, to: 7200))
        let fragments = AnswerFragments(catalog: catalog, maxAge: 45)
        for offset in [-7200.0, 0, 5000] {
            let decision = SkinResolver.resolve(F.request(), in: catalog, at: F.t0.addingTimeInterval(offset))
            let index = try #require(fragments.precomputedIndex(for: decision))
            let answer = fragments.precomputed[index]
            #expect(
                answer == fragments.answer(for: decision)
                    && answer == SkinAnswer(decision: decision, fragments: fragments))
            let headers = AnswerHeaders(answer, maxAge: fragments.maxAge)
            #expect(headers.ok["Content-Type"] == "application/json")
            #expect(headers.ok["ETag"] == answer.etag)
            #expect(headers.ok["Cache-Control"] == "public, max-age=45")
            #expect(headers.notModified["Content-Type"] == nil)
            #expect(
                headers.notModified["ETag"] == answer.etag
                    && headers.notModified["Cache-Control"] == "public, max-age=45")
        }
    }
}
