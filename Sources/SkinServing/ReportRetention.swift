import CoreMetrics
import Foundation
import Logging
import SkinModel
import SkinStore

/// Keeps phones' reports for a bounded time (`--report-retention-days`): reports the store recorded longer ago than
/// `keep` are removed from its `ReportLedger`, on disk and in memory, so neither grows for ever.
///
/// Invariants:
/// - **Never shorter than a guard's window.** `keep` is at least the longest `windowMinutes` (30 days), so a guard
///   always decides on every report of its window; health figures count the reports of the last `keep`.
/// - **Off every request's path.** Expiry runs in its own task, once when the catalog is loaded and then once an
///   hour; a failure is logged and tried again at the next hour. With several replicas each one runs it; what one
///   removed the others find gone (idempotent).
public final class ReportRetention: Sendable {
    /// Removed reports: `livery_reports_expired_total`.
    public static let expiredMetric = "livery_reports_expired_total"
    /// The shortest retention: the longest guard window.
    public static let shortest: Duration = .seconds(Int64(ReleaseGuard.maximumWindowMinutes) * 60)

    /// How long a report is kept after the store recorded it.
    public let keep: Duration
    private let ledger: any ReportLedger
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let expired: Counter

    /// - Parameter keep: how long reports are kept; raised to `shortest` when below it.
    public init(
        ledger: any ReportLedger, keep: Duration, clock: @escaping @Sendable () -> Date, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.ledger = ledger
        self.keep = max(keep, Self.shortest)
        self.clock = clock
        self.logger = logger
        expired = Counter(label: Self.expiredMetric, dimensions: [], factory: metricsFactory)
    }

    /// The instant before which reports are removed now.
    public var cutoff: Date { clock().addingTimeInterval(-Double(keep.components.seconds)) }

    /// Removes the reports recorded before `cutoff` now; logs and counts what it removed.
    ///
    /// - Returns: how many were removed, or nil when the ledger failed (logged; the next run tries again).
    @discardableResult
    public func expireNow() async -> Int? {
        let cutoff = self.cutoff
        do throws(StoreError) {
            let removed = try await ledger.expire(recordedBefore: cutoff)
            if removed > 0 {
                expired.increment(by: removed)
                logger.info(
                    "reports past their retention removed",
                    metadata: [
                        "reports.removed": "\(removed)", "reports.cutoff": "\(ISO8601Instant.format(cutoff))"
                    ])
            }
            return removed
        } catch {
            logger.warning(
                "reports past their retention could not be removed; trying again in an hour",
                metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Runs `expireNow()` at once and then every `interval` until the returned task is cancelled.
    public func start(every interval: Duration = .seconds(3600)) -> Task<Void, Never> {
        Task { [self] in
            while !Task.isCancelled {
                await expireNow()
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}
