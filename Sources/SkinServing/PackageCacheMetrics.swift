import CoreMetrics

/// The `livery_package_*` series, fed by `PackageCache`.
///
/// A *hit* is a request answered from a package file this process already knows; a *miss* is one that had to wait
/// for a build, join a build already running, or read a file left on disk by an earlier run. Builds count archives
/// actually written, with their duration and size.
public struct PackageCacheMetrics: Sendable {
    /// Archives written.
    public static let buildsName = "livery_package_builds_total"
    /// Builds that failed.
    public static let buildFailuresName = "livery_package_build_failures_total"
    /// Time to write one archive (histogram, seconds).
    public static let buildDurationName = "livery_package_build_duration_seconds"
    /// Bytes of archives written.
    public static let buildBytesName = "livery_package_build_bytes_total"
    /// Package lookups answered from a known file.
    public static let hitsName = "livery_package_cache_hits_total"
    /// Package lookups that were not.
    public static let missesName = "livery_package_cache_misses_total"

    private let builds: Counter
    private let failures: Counter
    private let duration: Timer
    private let bytes: Counter
    private let hits: Counter
    private let misses: Counter

    /// Creates (or finds) the series in `factory`, each at zero if new.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        builds = Counter(label: Self.buildsName, factory: factory)
        failures = Counter(label: Self.buildFailuresName, factory: factory)
        duration = Timer(label: Self.buildDurationName, factory: factory)
        bytes = Counter(label: Self.buildBytesName, factory: factory)
        hits = Counter(label: Self.hitsName, factory: factory)
        misses = Counter(label: Self.missesName, factory: factory)
        for counter in [builds, failures, bytes, hits, misses] { counter.increment(by: 0) }
    }

    func countHit() { hits.increment() }
    func countMiss() { misses.increment() }
    func countFailure() { failures.increment() }

    func countBuild(bytes size: UInt64, duration elapsed: Duration) {
        builds.increment()
        bytes.increment(by: Int64(clamping: size))
        let (seconds, attoseconds) = elapsed.components
        duration.recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}
