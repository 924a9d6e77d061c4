import PostgresClient
import TestSupport
import Testing

struct BackoffTests {
    @Test func doublesFromTheInitialDelayUpToTheMaximum() {
        var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1), jitter: 0)
        let delays = (0..<6).map { _ in backoff.next() }
        #expect(
            delays == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)
            ])
        backoff.reset()
        #expect(backoff.next() == .milliseconds(100))
    }

    @Test func shortensEachDelayByAtMostTheJitter() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(1), jitter: 0.2)
        var random = SplitMix64(seed: 3)
        let delays = (0..<200).map { _ in backoff.next(using: &random) }
        #expect(delays.allSatisfy { $0 >= .milliseconds(800) && $0 <= .seconds(1) })
        #expect(Set(delays).count > 100, "replicas do not retry in lockstep")
    }
}
