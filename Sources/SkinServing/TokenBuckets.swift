import Synchronization

/// Token buckets by key, in memory (one process's view: each replica limits what reaches it).
///
/// A bucket holds at most `capacity` tokens and gains `refillPerSecond` a second; each request takes one. A request
/// finding its bucket empty is refused, told how many seconds until a token is back. A key seen for the first time
/// starts full. When more than `maximumKeys` buckets are held, the ones full again are forgotten (a full bucket is
/// what a new key gets anyway), so memory stays bounded by the keys active in the last `capacity / refillPerSecond`
/// seconds.
public final class TokenBuckets<Key: Hashable & Sendable>: Sendable {
    public let capacity: Double
    public let refillPerSecond: Double
    public let maximumKeys: Int
    private let buckets = Mutex<[Key: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public init(capacity: Double, refillPerSecond: Double, maximumKeys: Int = 100_000) {
        self.capacity = max(1, capacity)
        self.refillPerSecond = max(refillPerSecond, 1e-9)
        self.maximumKeys = maximumKeys
    }

    /// Takes a token from `key`'s bucket at `now` (seconds on a monotonic clock).
    ///
    /// - Returns: nil when taken; otherwise the whole seconds (at least 1) until the bucket holds a token.
    public func take(_ key: Key, now: Double) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updated) * refillPerSecond)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= maximumKeys { forgetFull(&buckets, now: now) }
            buckets[key] = bucket
            return nil
        }
    }

    private func forgetFull(_ buckets: inout [Key: Bucket], now: Double) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + (now - bucket.updated) * refillPerSecond < capacity
        }
    }
}
