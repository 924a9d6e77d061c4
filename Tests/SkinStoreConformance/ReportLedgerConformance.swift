import Foundation
import SkinStore
import Testing

/// What every store's `ReportLedger` must do (issue 26), run against each store as `StoreConformance` is:
///
/// ```swift
/// @Test(arguments: ReportLedgerConformance.allCases)
/// func ledgerConforms(to check: ReportLedgerConformance) async throws { try await check.run(with: .myStore) }
/// ```
public enum ReportLedgerConformance: String, CaseIterable, Sendable, CustomStringConvertible {
    case aDeviceCountsOncePerSignAndOutcome
    case reportsSurviveCloseAndReopenAndStayDeduplicated
    case reportsNeverChangeTheRevisionTheAuditOrTheSnapshot
    case windowsAndHoursAreByRecordedTime
    case concurrentReportsOfOneDeviceCountOnce
    case expiredReportsAreGoneAfterReopenAndTheirDevicesCountAgain

    public var description: String { rawValue }

    public func run(with factory: StoreFactory) async throws {
        let storage = try await factory.makeStorage()
        let clock = ConformanceClock()
        let store = try await storage.open(clock: clock.read)
        switch self {
        case .aDeviceCountsOncePerSignAndOutcome: try await Self.dedup(store)
        case .reportsSurviveCloseAndReopenAndStayDeduplicated:
            try await Self.reopen(store, storage: storage, clock: clock)
        case .reportsNeverChangeTheRevisionTheAuditOrTheSnapshot: try await Self.apart(store)
        case .windowsAndHoursAreByRecordedTime: try await Self.windows(store, clock: clock)
        case .concurrentReportsOfOneDeviceCountOnce: try await Self.concurrent(store)
        case .expiredReportsAreGoneAfterReopenAndTheirDevicesCountAgain:
            try await Self.expiry(store, storage: storage, clock: clock)
        }
        await store.close()
    }

    /// A report of `device` about `sign` (version 1 of `spring` unless told otherwise).
    public static func report(
        _ device: String, sign: String = "sign-a", outcome: ReportOutcome = .applied, stage: ReportStage? = nil,
        version: Int = 1, platform: String = "ios", appVersion: String = "7.2.0", skinID: String = "spring"
    ) -> LedgerReport {
        LedgerReport(
            sign: sign, skinID: skinID, version: version, variant: "@3x-light", platform: platform,
            appVersion: appVersion, deviceID: device, outcome: outcome, stage: stage,
            at: Date(timeIntervalSince1970: 1_800_000_000))
    }

    static let longAgo = Date(timeIntervalSince1970: 0)

    static func dedup(_ store: any SkinStore) async throws {
        let ledger = store.reports
        let first = try await ledger.record([report("phone-1"), report("phone-1"), report("phone-2")])
        #expect(first.map(\.deviceID) == ["phone-1", "phone-2"], "a repeat within the batch counts once")
        let again = try await ledger.record([report("phone-1")])
        #expect(again.isEmpty, "a device counts once per sign and outcome")
        let failed = try await ledger.record([
            report("phone-1", outcome: .failed, stage: .crash), report("phone-1", sign: "sign-b")
        ])
        #expect(failed.count == 2, "another outcome, or another sign, counts")
        let counts = try await ledger.deviceCounts(skinID: "spring", version: 1, since: longAgo)
        #expect(counts == ReportDeviceCounts(reporting: 2, failed: 1, failedByStage: [.crash: 1]))
        let tallies = try await ledger.tallies(skinID: "spring")
        #expect(tallies.filter { $0.outcome == .applied }.map(\.count).reduce(0, +) == 3)
        #expect(tallies.filter { $0.outcome == .failed }.map(\.count).reduce(0, +) == 1)
        #expect(try await ledger.tallies(skinID: "autumn").isEmpty)
    }

    static func reopen(_ store: any SkinStore, storage: any StoreStorage, clock: ConformanceClock) async throws {
        let batch = (0..<40).map { report("phone-\($0)", outcome: $0 % 4 == 0 ? .failed : .applied, stage: .unpack) }
        #expect(try await store.reports.record(batch).count == 40)
        let before = try await store.reports.tallies(skinID: "spring")
        await store.close()
        let reopened = try await storage.open(clock: clock.read)
        #expect(Set(try await reopened.reports.tallies(skinID: "spring")) == Set(before))
        #expect(try await reopened.reports.record(batch).isEmpty, "what was counted before stays counted")
        let counts = try await reopened.reports.deviceCounts(skinID: "spring", version: 1, since: longAgo)
        #expect(counts == ReportDeviceCounts(reporting: 40, failed: 10, failedByStage: [.unpack: 10]))
        await reopened.close()
    }

    static func apart(_ store: any SkinStore) async throws {
        try await StoreConformance.add(store)
        let revision = store.snapshot.revision
        let audit = try await store.audit(since: nil, limit: 100)
        _ = try await store.reports.record((0..<10).map { report("phone-\($0)") })
        #expect(store.snapshot.revision == revision)
        #expect(try await store.currentSnapshot().revision == revision)
        #expect(try await store.audit(since: nil, limit: 100) == audit)
    }

    static func windows(_ store: any SkinStore, clock: ConformanceClock) async throws {
        _ = try await store.reports.record([report("early", outcome: .failed, stage: .download)])
        clock.advance(seconds: 7200)
        let later = clock.current
        _ = try await store.reports.record([
            report("late-1", outcome: .failed, stage: .config), report("late-2"), report("late-3", version: 2)
        ])
        let window = try await store.reports.deviceCounts(skinID: "spring", version: 1, since: later)
        #expect(window == ReportDeviceCounts(reporting: 2, failed: 1, failedByStage: [.config: 1]))
        let all = try await store.reports.deviceCounts(skinID: "spring", version: 1, since: longAgo)
        #expect(all.reporting == 3 && all.failed == 2)
        let hours = Set(try await store.reports.tallies(skinID: "spring").map(\.hour))
        #expect(hours.count == 2, "two hours apart: \(hours)")
        for hour in hours {
            #expect(hour.timeIntervalSince1970.truncatingRemainder(dividingBy: 3600) == 0, "hours start on the hour")
        }
    }

    static func concurrent(_ store: any SkinStore) async throws {
        let ledger = store.reports
        let counted = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await ledger.record([report("same-phone"), report("phone-\(index)")]).count
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(counted == 17, "sixteen devices, and the shared one once")
        let counts = try await ledger.deviceCounts(skinID: "spring", version: 1, since: longAgo)
        #expect(counts.reporting == 17)
    }

    static func expiry(_ store: any SkinStore, storage: any StoreStorage, clock: ConformanceClock) async throws {
        _ = try await store.reports.record([
            report("old-1", outcome: .failed, stage: .crash), report("old-2"), report("old-3", skinID: "autumn")
        ])
        clock.advance(seconds: 3 * 86_400)
        let cutoff = clock.current
        _ = try await store.reports.record([report("new-1"), report("new-2", outcome: .failed, stage: .verify)])
        #expect(try await store.reports.expire(recordedBefore: cutoff) == 3)
        #expect(try await store.reports.expire(recordedBefore: cutoff) == 0, "nothing left to remove")
        let counts = try await store.reports.deviceCounts(skinID: "spring", version: 1, since: longAgo)
        #expect(counts == ReportDeviceCounts(reporting: 2, failed: 1, failedByStage: [.verify: 1]))
        #expect(try await store.reports.tallies(skinID: "autumn").isEmpty)
        #expect(try await store.reports.tallies(skinID: "spring").map(\.count).reduce(0, +) == 2)

        await store.close()
        let reopened = try await storage.open(clock: clock.read)
        #expect(try await reopened.reports.tallies(skinID: "spring").map(\.count).reduce(0, +) == 2, "gone for good")
        #expect(try await reopened.reports.record([report("new-1")]).isEmpty, "what was kept stays counted")
        let again = try await reopened.reports.record([report("old-2"), report("old-3", skinID: "autumn")])
        #expect(again.count == 2, "a device whose report expired counts again")
        #expect(try await reopened.reports.tallies(skinID: "autumn").map(\.count) == [1])
        await reopened.close()
    }
}
