import CoreMetrics
import Logging
import SkinServing

/// The serving core's durable writes (`DurableWrite`: package build records, the import marker), made by
/// `DurableFile`, which stays here until the system-call layer takes it.
extension DurableFile {
    /// `replace(_:with:)` as a `DurableWrite`.
    static let writer: DurableWrite = { path, bytes in try replace(path, with: bytes) }
}

extension PackageCache {
    /// A package cache whose build records are written with `DurableFile`.
    public init(
        directory: String, maxParallelBuilds: Int = 2, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        fileChanged: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(PackageCacheError) {
        try self.init(
            directory: directory, maxParallelBuilds: maxParallelBuilds, logger: logger, metricsFactory: metricsFactory,
            fileChanged: fileChanged, writeDurably: DurableFile.writer)
    }
}
