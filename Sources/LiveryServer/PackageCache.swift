import CoreMetrics
import Foundation
import LiveryCrypto
import Logging
import SkinModel
import SkinPackage
import Synchronization

/// Built packages on disk under `<data-dir>/packages/<sign>.zip`, with single-flight builds.
///
/// Guarantees:
/// - A package file appears whole or not at all (the zip writer writes a temp file, fsyncs and renames).
/// - Concurrent requests for the same missing sign trigger exactly one build; the others wait for it.
/// - At most `maxParallelBuilds` builds run at once; builds run on their own threads, never the cooperative pool.
/// - A file already present is reused across restarts (its digest is recomputed once when first needed).
public actor PackageCache {
    /// The folder holding packages.
    public nonisolated let directory: String
    /// The most builds run at once.
    public nonisolated let maxParallelBuilds: Int
    private var inFlight: [String: Task<PackageRecord, any Error>] = [:]
    /// Packages recorded in this process (by any catalog), by sign; read without the actor, so a download of a
    /// built package can be answered on an event-loop thread.
    private nonisolated let known = Mutex<[String: PackageRecord]>([:])
    private let builds: AsyncSemaphore
    /// How many archives this cache has written (not counting files reused from disk).
    public private(set) var buildCount = 0
    private let logger: Logger
    private let metrics: PackageCacheMetrics

    /// Creates the cache folder if needed.
    ///
    /// - Parameter metricsFactory: where the `livery_package_*` series go (the process-wide factory by default).
    public init(
        directory: String, maxParallelBuilds: Int = 2, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) throws(PackageCacheError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .directoryUnusable(directory)
        }
        self.directory = directory
        self.maxParallelBuilds = max(1, maxParallelBuilds)
        self.builds = AsyncSemaphore(limit: maxParallelBuilds)
        self.logger = logger
        self.metrics = PackageCacheMetrics(factory: metricsFactory)
    }

    /// The file path a sign's package lives at.
    public nonisolated func path(for sign: String) -> String { directory + "/" + sign + ".zip" }

    /// A package recorded earlier in this process (by any catalog), if any.
    public nonisolated func knownRecord(sign: String) -> PackageRecord? { known.withLock { $0[sign] } }

    /// A package recorded earlier in this process whose file is still in place, without waiting for the actor:
    /// what a download of an already built package needs, answered on the calling thread. nil means "ask
    /// `record(…)`" (the package may need building, or its file was removed).
    public nonisolated func readyRecord(sign: String) -> PackageRecord? {
        guard let record = knownRecord(sign: sign), FileManager.default.fileExists(atPath: record.path) else {
            return nil
        }
        metrics.countHit()
        return record
    }

    /// Returns the package for `sign`, reusing the file on disk or building it with `packager` exactly once.
    public func record(
        sign: String, variant: PackageVariant, packager: SkinPackager
    ) async throws -> PackageRecord {
        if let record = readyRecord(sign: sign) { return record }
        metrics.countMiss()
        if let task = inFlight[sign] { return try await task.value }
        let path = path(for: sign)
        let task = Task<PackageRecord, any Error> {
            let outcome: Result<BuildOutcome, any Error> = await self.builds.withPermit {
                await Self.onBuildThread {
                    if let existing = try Self.summarizeExisting(at: path) { return existing }
                    let started = ContinuousClock.now
                    let summary = try packager.build(variant, to: path)
                    return BuildOutcome(
                        sha256: summary.sha256, size: summary.size, built: true, duration: ContinuousClock.now - started)
                }
            }
            let summary: BuildOutcome
            do {
                summary = try outcome.get()
            } catch {
                self.metrics.countFailure()
                throw error
            }
            if summary.built { self.countBuild(sign: sign, size: summary.size, duration: summary.duration) }
            return PackageRecord(
                sign: sign, variant: variant, sha256: summary.sha256, size: summary.size, path: path)
        }
        inFlight[sign] = task
        defer { inFlight[sign] = nil }
        let record = try await task.value
        known.withLock { $0[sign] = record }
        return record
    }

    private func countBuild(sign: String, size: UInt64, duration: Duration) {
        buildCount += 1
        metrics.countBuild(bytes: size, duration: duration)
        logger.info("built package", metadata: ["package.sign": "\(sign)", "package.bytes": "\(size)"])
    }

    /// Digest and size of a complete package file already on disk, or `nil` if there is none.
    static func summarizeExisting(at path: String) throws -> BuildOutcome? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: UInt64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { hasher.update($0) }
            size += UInt64(chunk.count)
        }
        return BuildOutcome(sha256: Hex.encode(hasher.finalize()), size: size, built: false, duration: .zero)
    }

    /// Runs blocking work (disk, deflate) on a thread of its own and resumes with its result.
    ///
    /// A dedicated thread, not a Dispatch global queue: those have as many threads as cores, and when they are all
    /// busy or blocked a build would wait behind them. Builds are rare and `maxParallelBuilds` bounds them.
    static func onBuildThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { try work() }) }
            thread.name = "livery.package-build"
            thread.start()
        }
    }

    struct BuildOutcome: Sendable {
        let sha256: String
        let size: UInt64
        let built: Bool
        /// Time spent writing the archive (zero when an existing file was reused).
        let duration: Duration
    }
}

/// Failures of the package cache.
public enum PackageCacheError: Error, Equatable, CustomStringConvertible {
    /// The cache folder cannot be created or written.
    case directoryUnusable(String)

    public var description: String {
        switch self {
        case .directoryUnusable(let path): "package cache folder '\(path)' cannot be created"
        }
    }
}
