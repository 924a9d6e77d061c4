import Foundation
import MetricsTestKit
import SkinServing
import SkinStore
import Synchronization
import TestSupport
import Testing

/// `ReportRetention`: phones' reports leave the store once they are older than the retention, and never sooner than
/// the longest guard window.
@Suite struct ReportRetentionTests {
    static let day: TimeInterval = 86_400
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A clock tests move by hand.
    final class Clock: Sendable {
        private let instant = Mutex(ReportRetentionTests.start)
        var now: Date { instant.withLock { $0 } }
        func advance(days: Double) { instant.withLock { $0 = $0.addingTimeInterval(days * ReportRetentionTests.day) } }
    }

    static func report(_ device: String) -> LedgerReport {
        LedgerReport(
            sign: "sign-a", skinID: "spring", version: 1, variant: "@3x-light", platform: "ios", appVersion: "7.2.0",
            deviceID: device, outcome: .applied, stage: nil, at: start)
    }

    @Test func reportsOlderThanTheRetentionAreRemovedCountedAndTheRestKept() async throws {
        let folder = try ScratchDirectory(prefix: "livery-retention")
        let clock = Clock()
        let store = try FileSkinStore(directory: folder.path("store"), clock: { clock.now })
        defer { store.close() }
        let metrics = TestMetrics()
        let retention = ReportRetention(
            ledger: store.reports, keep: .seconds(Int64(45 * Self.day)), clock: { clock.now },
            logger: ServingFixtures.quiet, metricsFactory: metrics)
        _ = try await store.reports.record([Self.report("old-1"), Self.report("old-2")])
        clock.advance(days: 20)
        _ = try await store.reports.record([Self.report("newer")])

        clock.advance(days: 20)
        #expect(await retention.expireNow() == 0, "40 days: nothing is past 45 days yet")
        clock.advance(days: 6)
        #expect(await retention.expireNow() == 2, "46 days: the first two are past")
        let left = try await store.reports.tallies(skinID: "spring").map(\.count).reduce(0, +)
        #expect(left == 1)
        #expect(try metrics.expectCounter(ReportRetention.expiredMetric).totalValue == 2)
        clock.advance(days: 20)
        #expect(await retention.expireNow() == 1)
        #expect(try await store.reports.tallies(skinID: "spring").isEmpty)
    }

    @Test func theRetentionIsNeverShorterThanTheLongestGuardWindow() throws {
        let folder = try ScratchDirectory(prefix: "livery-retention-short")
        let store = try FileSkinStore(directory: folder.path("store"))
        defer { store.close() }
        let retention = ReportRetention(
            ledger: store.reports, keep: .seconds(3600), clock: { Self.start }, logger: ServingFixtures.quiet)
        #expect(retention.keep == .seconds(30 * 86_400))
        #expect(retention.cutoff == Self.start.addingTimeInterval(-30 * Self.day))
    }

    @Test func startRemovesWhatIsAlreadyPastAtOnce() async throws {
        let folder = try ScratchDirectory(prefix: "livery-retention-start")
        let clock = Clock()
        let store = try FileSkinStore(directory: folder.path("store"), clock: { clock.now })
        defer { store.close() }
        _ = try await store.reports.record([Self.report("old")])
        clock.advance(days: 91)
        let retention = ReportRetention(
            ledger: store.reports, keep: .seconds(Int64(90 * Self.day)), clock: { clock.now },
            logger: ServingFixtures.quiet)
        let task = retention.start(every: .seconds(3600))
        defer { task.cancel() }
        var left = 1
        for _ in 0..<600 where left > 0 {
            left = try await store.reports.tallies(skinID: "spring").count
            if left > 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(left == 0, "the first run comes at once, not after the first hour")
    }
}
