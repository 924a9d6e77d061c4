import CoreMetrics
import Foundation
import LiveryCrypto
import LiveryProtocol
import Logging
import SkinModel
import SkinPackage
import Synchronization
import SystemCalls
import ZipArchive

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Built packages on disk under `<data-dir>/packages/<sign>.zip`, with single-flight builds.
///
/// Guarantees:
/// - A package file appears whole or not at all (the zip writer writes a temp file, fsyncs and renames).
/// - Concurrent requests for the same missing sign trigger exactly one build; the others wait for it.
/// - At most `maxParallelBuilds` builds run at once; builds run on their own threads, never the cooperative pool.
/// - A file already present is reused across restarts only if it is what was built: each build records the
///   package's SHA-256 and size next to it (`<sign>.zip.sha256`, written durably after the zip), and a file found
///   on disk is rehashed and compared with that record when first needed. A file that differs (flipped, truncated,
///   swapped for another package) or has no record is logged, removed and rebuilt; a rebuild that does not give
///   the recorded bytes is refused (the sign would no longer describe the bytes), so a sign is never advertised
///   with bytes other than those it was first built with, across restarts.
/// - Temporary files a killed build left behind (`.tmp-<sign>.zip-*`, `.tmp-<sign>.zip.sha256-*`) are removed when
///   the cache is opened.
public actor PackageCache {
    /// The folder holding packages.
    public nonisolated let directory: String
    /// The most builds run at once.
    public nonisolated let maxParallelBuilds: Int
    private var inFlight: [String: Task<PackageRecord, any Error>] = [:]
    /// Packages recorded in this process (by any catalog), by sign; read without the actor, so a download of a
    /// built package can be answered on an event-loop thread.
    private nonisolated let known = Mutex<[String: PackageRecord]>([:])
    /// Told the path of every package file this cache removes or (re)writes, so files kept open for downloads
    /// (the server's `OpenFileCache`) are never served stale.
    private nonisolated let fileChanged: @Sendable (String) -> Void
    /// Writes each build record (`DurableWrite`).
    private nonisolated let writeDurably: DurableWrite
    private let builds: AsyncSemaphore
    /// How many archives this cache has written (not counting files reused from disk).
    public private(set) var buildCount = 0
    private let logger: Logger
    private let metrics: PackageCacheMetrics

    /// Creates the cache folder if needed.
    ///
    /// - Parameters:
    ///   - metricsFactory: where the `livery_package_*` series go (the process-wide factory by default).
    ///   - fileChanged: told the path of each package file the cache removes or writes (to invalidate files kept
    ///     open for downloads).
    ///   - writeDurably: writes each build record so a crash leaves the old record or the new one
    ///     (`DurableFile.replace` by default).
    public init(
        directory: String, maxParallelBuilds: Int = 2, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        fileChanged: @escaping @Sendable (String) -> Void = { _ in },
        writeDurably: @escaping DurableWrite = DurableFile.writer
    ) throws(PackageCacheError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .directoryUnusable(directory)
        }
        let removed = Self.removeTemporaryFiles(in: directory, logger: logger)
        if removed > 0 {
            logger.notice(
                "removed temporary package files left by an interrupted build",
                metadata: ["package.dir": "\(directory)", "files": "\(removed)"])
        }
        self.directory = directory
        self.maxParallelBuilds = max(1, maxParallelBuilds)
        self.builds = AsyncSemaphore(limit: maxParallelBuilds)
        self.logger = logger
        self.fileChanged = fileChanged
        self.writeDurably = writeDurably
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
        guard let record = knownRecord(sign: sign), isReady(record) else { return nil }
        return record
    }

    /// Whether the file of `record` (one this cache returned) is still in place, counted as a cache hit when it is:
    /// the check `readyRecord(sign:)` makes, for a caller that kept the record. With `held`, the file as
    /// `verifiedContent(of:limit:)` opened it, the check is one `fstat` of that descriptor; without, one `access` of
    /// the path. Either way a removed or replaced file is noticed at once.
    public nonisolated func isReady(_ record: PackageRecord, held: HeldFile? = nil) -> Bool {
        guard held?.isLinked ?? SystemPath.exists(record.path) else { return false }
        metrics.countHit()
        return true
    }

    /// Counts a cache hit for a file `isReady(_:held:)` found in place a moment ago, for a caller that shares one
    /// check among requests read together (an event loop's turn) rather than making it again.
    public nonisolated func countHit() { metrics.countHit() }

    /// The content of `record`'s file (a record this cache returned) when it is at most `limit` bytes and exactly
    /// the recorded ones (size and SHA-256), with the file held open (for `isReady(_:held:)`); nil when it is
    /// larger, missing, not a regular file, unreadable or not what was built. For serving small packages from
    /// memory: bytes returned are the ones the record describes, whatever happens to the file afterwards. Blocks on
    /// disk (one small read); call once per package.
    public nonisolated func verifiedContent(of record: PackageRecord, limit: Int) -> (bytes: [UInt8], file: HeldFile)? {
        guard record.size <= UInt64(max(0, limit)) else { return nil }
        let held: HeldFile
        let bytes: [UInt8]
        do {
            let file = try SystemFile.openForReading(record.path)
            guard try file.status().isRegular else { return nil }
            bytes = try file.readAll(limit: limit + 1)
            held = HeldFile(file)
        } catch {
            return nil
        }
        guard UInt64(bytes.count) == record.size, SHA256.hexHash(bytes) == record.sha256 else { return nil }
        return (bytes, held)
    }

    /// Returns the package for `sign`, reusing the file on disk or building it with `packager` exactly once.
    ///
    /// - Parameter version: the skin version the package is built from, written into its build record so a scrub
    ///   (`PackageCache.scrub(directory:)`) can name it; nil writes none.
    public func record(
        sign: String, variant: PackageVariant, packager: SkinPackager, version: BuiltFrom? = nil
    ) async throws -> PackageRecord {
        if let record = readyRecord(sign: sign) { return record }
        metrics.countMiss()
        if let task = inFlight[sign] { return try await task.value }
        let path = path(for: sign)
        let logger = logger
        let fileChanged = fileChanged
        let writeDurably = writeDurably
        let task = Task<PackageRecord, any Error> {
            let outcome: Result<BuildOutcome, any Error> = await self.builds.withPermit {
                await Self.onBuildThread {
                    try Self.reuseOrBuild(
                        sign: sign, at: path, logger: logger, fileChanged: fileChanged, writeDurably: writeDurably,
                        version: version
                    ) {
                        try packager.build(variant, to: path)
                    }
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

    /// The package at `path`: the file on disk if it matches its build record, otherwise a fresh build (`build`)
    /// whose digest is recorded, or compared with the record when there is one. Blocks on disk.
    ///
    /// - Throws: `PackageCacheError.rebuildDiffers` when the rebuilt bytes are not the recorded ones (the file is
    ///   removed: the sign must not be advertised with other bytes); whatever `build` or the disk throws.
    static func reuseOrBuild(
        sign: String, at path: String, logger: Logger, fileChanged: (String) -> Void = { _ in },
        writeDurably: DurableWrite, version: BuiltFrom? = nil, build: () throws -> ZipArchiveSummary
    ) throws -> BuildOutcome {
        let recordPath = path + ".sha256"
        let recorded = BuildRecord.read(recordPath, sign: sign)
        if let existing = try summarizeExisting(at: path) {
            if let recorded, recorded.sha256 == existing.sha256, recorded.size == existing.size { return existing }
            logger.error(
                "cached package does not match its build record; rebuilding it",
                metadata: [
                    "package.sign": "\(sign)", "package.path": "\(path)",
                    "package.recorded": "\(recorded.map { "\($0.sha256) \($0.size)" } ?? "none")",
                    "package.found": "\(existing.sha256) \(existing.size)"
                ])
            SystemPath.remove(path)
            fileChanged(path)
        }
        let started = ContinuousClock.now
        let summary: ZipArchiveSummary
        do {
            defer { fileChanged(path) }  // written (renamed into place) or not, the path may name a new file
            summary = try build()
        }
        let outcome = BuildOutcome(
            sha256: summary.sha256, size: summary.size, built: true, duration: ContinuousClock.now - started)
        if let recorded {
            guard recorded.sha256 == outcome.sha256, recorded.size == outcome.size else {
                SystemPath.remove(path)
                fileChanged(path)
                throw PackageCacheError.rebuildDiffers(
                    path: path, recorded: "\(recorded.sha256) \(recorded.size)",
                    rebuilt: "\(outcome.sha256) \(outcome.size)")
            }
        } else {
            let record = BuildRecord(sign: sign, sha256: outcome.sha256, size: outcome.size, builtFrom: version)
            do {
                try writeDurably(recordPath, record.encoded)
            } catch {
                // Without a record the package is rebuilt next time; serving it now is still right.
                logger.error(
                    "cannot record a package build", metadata: ["package.sign": "\(sign)", "error": "\(error)"])
            }
        }
        return outcome
    }

    /// Removes leftovers of builds interrupted by a crash (`.tmp-<sign>.zip-*` from the zip writer,
    /// `.tmp-<sign>.zip.sha256-*` from the record writer: `DurableFile`'s names); returns how many were removed.
    static func removeTemporaryFiles(in directory: String, logger: Logger) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for name in names where name.contains(".tmp-") {
            if SystemPath.remove(directory + "/" + name) {
                removed += 1
            } else {
                logger.warning("cannot remove a temporary package file", metadata: ["file": "\(directory)/\(name)"])
            }
        }
        return removed
    }

    /// The skin version a package was built from, as its build record names it.
    public struct BuiltFrom: Sendable, Equatable {
        public let skinID: String
        public let version: Int

        public init(skinID: String, version: Int) {
            self.skinID = skinID
            self.version = version
        }
    }

    /// What a build of a sign produced, kept next to the package so a later start can tell the file is intact:
    /// one line, `<sign> <sha256> <size>`, followed by ` <skin> v<n>` when the version it was built from is known
    /// (records written before that have three fields and still read).
    struct BuildRecord: Equatable {
        let sign: String
        let sha256: String
        let size: UInt64
        var builtFrom: BuiltFrom? = nil

        var encoded: [UInt8] {
            let origin = builtFrom.map { " \($0.skinID) v\($0.version)" } ?? ""
            return Array("\(sign) \(sha256) \(size)\(origin)\n".utf8)
        }

        /// The record at `path` for `sign`; nil when there is none or it does not parse or names another sign.
        static func read(_ path: String, sign: String) -> BuildRecord? {
            guard let data = FileManager.default.contents(atPath: path), data.count < 512 else { return nil }
            let fields = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
                .split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 3 || fields.count == 5, fields[0] == sign, fields[1].count == 64,
                let size = UInt64(fields[2])
            else { return nil }
            var builtFrom: BuiltFrom?
            if fields.count == 5 {
                guard fields[4].hasPrefix("v"), let number = Int(fields[4].dropFirst()) else { return nil }
                builtFrom = BuiltFrom(skinID: String(fields[3]), version: number)
            }
            return BuildRecord(sign: sign, sha256: String(fields[1]), size: size, builtFrom: builtFrom)
        }
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
    /// Rebuilding the package at `path` gave other bytes than its build record: its sources changed, so it is
    /// refused rather than advertised under the same sign.
    case rebuildDiffers(path: String, recorded: String, rebuilt: String)

    public var description: String {
        switch self {
        case .directoryUnusable(let path): "package cache folder '\(path)' cannot be created"
        case .rebuildDiffers(let path, let recorded, let rebuilt):
            "package '\(path)' rebuilt as \(rebuilt), but it was built as \(recorded): its sources changed; refused"
        }
    }
}
