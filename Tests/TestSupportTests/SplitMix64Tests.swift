import TestSupport
import Testing

@Suite struct SplitMix64Tests {
    @Test func matchesTheReferenceSequenceForSeedZero() {
        // The first outputs of Vigna's reference splitmix64.c started from 0.
        var random = SplitMix64(seed: 0)
        let expected: [UInt64] = [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F]
        #expect([random.next(), random.next(), random.next()] == expected)
    }

    @Test func bytesAreTheDrawsInLittleEndianOrderCutToLength() {
        var draws = SplitMix64(seed: 42)
        let first = draws.next()
        let second = draws.next()
        var random = SplitMix64(seed: 42)
        let expected =
            (0..<8).map { UInt8(truncatingIfNeeded: first >> (8 * $0)) }
            + (0..<3).map { UInt8(truncatingIfNeeded: second >> (8 * $0)) }
        #expect(random.bytes(11) == expected)
        #expect(random.bytes(0) == [])
    }

    @Test func belowStaysInRangeAndASeedReplaysItsChoices() {
        var first = SplitMix64(seed: 7)
        var second = SplitMix64(seed: 7)
        let choices = (0..<1000).map { _ in first.below(6) }
        #expect(choices.allSatisfy { (0..<6).contains($0) })
        #expect(Set(choices).count == 6)
        #expect(choices == (0..<1000).map { _ in second.below(6) })
    }
}
