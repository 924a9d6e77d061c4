import Prometheus
import Synchronization

/// The request-duration histogram of one route, kept by `HTTPMetricsObserver` when it is given its buckets: counts
/// per bucket, sum and count, added one event loop's batch at a time (one lock per batch, where a swift-prometheus
/// histogram takes its lock and compares against every bucket once per request).
///
/// Written as swift-prometheus writes a `DurationHistogram` with the label `route`: cumulative `_bucket` lines
/// whose `le` is `Duration.bucketRepresentation`, then `+Inf`, `_sum` and `_count`, so `/metrics` reads the same.
///
/// Invariant: `bounds` ascend; `Counts.buckets[i]` counts durations `d` with `bounds[i - 1] < d <= bounds[i]`
/// (Prometheus's `le`), and its last entry those above every bound.
final class RouteDurations: Sendable {
    /// One event loop's batch of durations, counted into buckets; `buckets` has one entry per bound and one for
    /// above them all. Counting one costs a few integer comparisons and additions (no `Duration` arithmetic, which
    /// is 128-bit): a batch is at most `HTTPMetricsObserver.batchSize` requests, so its sum of nanoseconds fits.
    struct Counts: Sendable {
        fileprivate(set) var buckets: [Int64]
        /// The durations' sum, in nanoseconds.
        fileprivate(set) var nanoseconds: Int64 = 0
        /// The bounds in nanoseconds (whole ones: a duration counts in a bucket when it is at most the bound).
        fileprivate let bounds: [Int64]

        /// Counts one duration.
        @inline(__always)
        mutating func add(_ nanoseconds: Int64) {
            var index = 0
            while index < bounds.count && nanoseconds > bounds[index] { index &+= 1 }
            buckets[index] &+= 1
            self.nanoseconds &+= nanoseconds
        }

        /// Forgets every duration counted.
        mutating func reset() {
            for index in buckets.indices { buckets[index] = 0 }
            nanoseconds = 0
        }
    }

    /// Every batch added so far: counts per bucket (as `Counts.buckets`) and the sum of the durations.
    private struct Totals {
        var buckets: [Int64]
        var sum: Duration = .zero
        var count: Int64 { buckets.reduce(0, +) }
    }

    /// The route pattern this histogram is labelled with.
    let route: String
    private let bounds: [Duration]
    private let totals: Mutex<Totals>
    /// Nothing counted, for a loop to count a batch into.
    let emptyCounts: Counts

    /// - Parameter bounds: the buckets' upper bounds, ascending (as given to swift-prometheus).
    init(route: String, bounds: [Duration]) {
        self.route = route
        self.bounds = bounds
        let nanoseconds = bounds.map { bound in
            let (seconds, attoseconds) = bound.components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
        emptyCounts = Counts(buckets: Array(repeating: 0, count: bounds.count + 1), bounds: nanoseconds)
        totals = Mutex(Totals(buckets: emptyCounts.buckets))
    }

    /// Adds a batch counted from `emptyCounts`.
    func add(_ counts: Counts) {
        totals.withLock { totals in
            for index in totals.buckets.indices { totals.buckets[index] += counts.buckets[index] }
            totals.sum += .nanoseconds(counts.nanoseconds)
        }
    }

    /// Appends this route's `_bucket`, `_sum` and `_count` lines of the family `name`.
    func render(name: String, into buffer: inout [UInt8]) {
        let totals = self.totals.withLock { $0 }
        var labels = Array(#"route=""#.utf8)
        for byte in route.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): labels.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\""): labels.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\n"): labels.append(contentsOf: #"\n"#.utf8)
            default: labels.append(byte)
            }
        }
        labels.append(UInt8(ascii: "\""))
        let label = String(decoding: labels, as: UTF8.self)
        var cumulative: Int64 = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += totals.buckets[index]
            buffer.append(
                contentsOf: "\(name)_bucket{\(label),le=\"\(bound.bucketRepresentation)\"} \(cumulative)\n".utf8)
        }
        let count = totals.count
        buffer.append(contentsOf: "\(name)_bucket{\(label),le=\"+Inf\"} \(count)\n".utf8)
        buffer.append(contentsOf: "\(name)_sum{\(label)} \(totals.sum.bucketRepresentation)\n".utf8)
        buffer.append(contentsOf: "\(name)_count{\(label)} \(count)\n".utf8)
    }
}
