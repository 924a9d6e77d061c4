import Foundation
import SkinServing
import SkinStore
import Testing

/// The admin API's reads without HTTP: what `Queries` refuses, and how it reads a `since` cursor.
@Suite struct QueriesTests {
    @Test func aSinceParameterIsASequenceNumberOrAnInstant() throws {
        #expect(try Queries.auditCursor(since: nil) == nil)
        #expect(try Queries.auditCursor(since: "") == nil)
        #expect(try Queries.auditCursor(since: "42") == .afterSequence(42))
        #expect(
            try Queries.auditCursor(since: "2027-02-05T00:00:00+08:00")
                == .time(Date(timeIntervalSince1970: 1_801_756_800)))
        for text in ["-1", "yesterday", "2027-02-05T00:00:00Zjunk"] {
            #expect(ChangeRulesTests.refusal { _ = try Queries.auditCursor(since: text) } == "invalidField", "\(text)")
        }
    }

    @Test func aVersionIsReadOnlyWhenItExistsAndIsSound() throws {
        let state = ChangeRulesTests.state(versions: 2)
        let skin = try #require(state.skins["tiny"])
        #expect(try Queries.version(2, of: skin).number == 2)
        #expect(ChangeRulesTests.refusal { _ = try Queries.version(3, of: skin) } == "unknownVersion")
        let damaged = SkinState(
            id: "tiny", revision: 1,
            versions: [
                SkinVersion.loaded(
                    skinID: "tiny", number: 1, createdAt: ChangeRulesTests.now, actor: "ops", files: [], metadata: nil,
                    metadataDigest: "m", metadataSize: 0, digest: "d", scrubDamage: nil)
            ], release: nil)
        #expect(ChangeRulesTests.refusal { _ = try Queries.version(1, of: damaged) } == "versionDamaged")
    }
}
