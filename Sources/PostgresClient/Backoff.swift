/// Delays between reconnection attempts: `initial`, then doubling up to `maximum`, each shortened by up to
/// `jitter` of itself so replicas that lost the same server do not come back in lockstep.
public struct Backoff: Sendable {
    /// The first delay. Default 100 ms.
    public var initial: Duration
    /// The longest delay. Default 5 s.
    public var maximum: Duration
    /// The largest fraction (0…1) taken off a delay at random. Default 0.2.
    public var jitter: Double
    private var attempt = 0

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5), jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before the next attempt, and counts that attempt.
    public mutating func next<R: RandomNumberGenerator>(using random: inout R) -> Duration {
        let doubled = initial * Int(1 << min(attempt, 30))
        attempt += 1
        let capped = min(doubled, maximum)
        return capped - capped * (jitter * Double.random(in: 0...1, using: &random))
    }

    /// `next(using:)` with the system's random numbers.
    public mutating func next() -> Duration {
        var random = SystemRandomNumberGenerator()
        return next(using: &random)
    }

    /// Starts over from `initial` (after a successful connection).
    public mutating func reset() { attempt = 0 }
}
