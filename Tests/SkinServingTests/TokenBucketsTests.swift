import SkinServing
import Testing

/// The rate limits' buckets, on a clock the test moves.
@Suite struct TokenBucketsTests {
    @Test func aBucketLendsItsCapacityThenRefillsAtItsRate() {
        let buckets = TokenBuckets<String>(capacity: 3, refillPerSecond: 0.5)
        #expect((0..<3).map { _ in buckets.take("phone", now: 0) } == [nil, nil, nil])
        #expect(buckets.take("phone", now: 0) == 2, "one token is two seconds away")
        #expect(buckets.take("other", now: 0) == nil, "each key has its own bucket")
        #expect(buckets.take("phone", now: 1.5) == 1)
        #expect(buckets.take("phone", now: 2.1) == nil)
        #expect(buckets.take("phone", now: 100) == nil, "a bucket never holds more than its capacity")
        #expect(buckets.take("phone", now: 100) == nil && buckets.take("phone", now: 100) == nil)
        #expect(buckets.take("phone", now: 100) != nil)
    }

    @Test func pastItsKeyLimitItForgetsOnlyFullBuckets() {
        let buckets = TokenBuckets<Int>(capacity: 1, refillPerSecond: 1, maximumKeys: 4)
        for key in 0..<4 { #expect(buckets.take(key, now: 0) == nil) }
        // Key 0 is still empty at 0.5 s, so forgetting the full ones must not hand it a fresh bucket.
        #expect(buckets.take(4, now: 0.5) == nil)
        #expect(buckets.take(0, now: 0.5) == 1)
    }
}
