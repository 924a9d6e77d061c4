import CoreMetrics
import Foundation
import SkinStore
import Synchronization

/// Takes phones' reports (`POST /api/v1/reports`) into the store's `ReportLedger`: the rate limits, the sign of
/// each report mapped to the skin version it was built from, and `livery_skin_reports_total`.
///
/// Signs are known from every catalog published in this process (`learn`), so a report about a version released
/// earlier since this start (rolled back, paused, replaced) still counts; a sign this process never served is
/// ignored, as is a sign of another app than the report's.
public final class ReportIntake: Sendable {
    /// Settings of report intake; the defaults let an app report on every launch.
    public struct Configuration: Sendable {
        /// Report requests one device may send per hour (a bucket holding that many, refilled evenly); more get
        /// 429. Default 12.
        public var deviceRequestsPerHour: Int = 12
        /// Report requests one address may send per second (a bucket holding 10 seconds' worth); more get 429.
        /// A rate, never a cap on distinct devices: thousands of phones behind one carrier NAT each count. Default
        /// 50.
        public var addressRequestsPerSecond: Int = 50

        public init() {}
    }

    /// Where a sign's package came from.
    public struct SignOrigin: Sendable, Equatable {
        public let app: String
        public let skinID: String
        public let version: Int
        public let variant: String
    }

    /// What became of a batch.
    public struct Receipt: Sendable, Equatable {
        /// Reports about known signs of the batch's app (duplicates included: they are accepted, counted once).
        public let accepted: Int
        /// Reports about signs this server does not know.
        public let ignored: Int
        /// The reports counted for the first time.
        public let counted: [LedgerReport]
    }

    /// The series name.
    public static let reportsName = "livery_skin_reports_total"

    public let configuration: Configuration
    private let ledger: any ReportLedger
    private let signs = Mutex<[String: SignOrigin]>([:])
    private let devices: TokenBuckets<Int>
    private let addresses: TokenBuckets<String>
    private let started = ContinuousClock.now
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let factory: any MetricsFactory

    public init(
        configuration: Configuration = Configuration(), ledger: any ReportLedger,
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.ledger = ledger
        self.clock = clock
        self.factory = metricsFactory
        let perHour = Double(max(1, configuration.deviceRequestsPerHour))
        devices = TokenBuckets(capacity: perHour, refillPerSecond: perHour / 3600)
        let perSecond = Double(max(1, configuration.addressRequestsPerSecond))
        addresses = TokenBuckets(capacity: perSecond * 10, refillPerSecond: perSecond)
    }

    /// Learns the signs of every package `catalog` serves (kept for the life of the process).
    public func learn(_ catalog: Catalog) {
        var learned: [String: SignOrigin] = [:]
        for skin in catalog.allReleases {
            for (variant, record) in skin.packages where learned[record.sign] == nil {
                learned[record.sign] = SignOrigin(
                    app: skin.app, skinID: skin.skinID.rawValue, version: skin.version, variant: variant.description)
            }
        }
        signs.withLock { signs in signs.merge(learned) { known, _ in known } }
        for origin in Set(learned.values.map(\.skinID)) { declare(skinID: origin) }
    }

    /// The skin version `sign` was built from, if this process served it.
    public func origin(of sign: String) -> SignOrigin? { signs.withLock { $0[sign] } }

    /// Takes a token for a request from `address`; nil when taken, else seconds to wait (`Retry-After`).
    public func admitAddress(_ address: String) -> Int? {
        addresses.take(Self.host(of: address), now: seconds())
    }

    /// Takes a token for a request from the device `deviceID`; nil when taken, else seconds to wait.
    public func admitDevice(_ deviceID: String) -> Int? {
        // Keyed by the process's randomly seeded hash: the id itself is not kept, even in memory.
        devices.take(deviceID.hashValue, now: seconds())
    }

    /// Records `batch`'s reports about known signs of its app durably, and counts the new ones in the metrics.
    ///
    /// - Throws: what the ledger throws (`unavailable`, `io`, `closed`): nothing was acknowledged.
    public func record(_ batch: ReportBatch) async throws(StoreError) -> Receipt {
        let known = signs.withLock { $0 }
        var reports: [LedgerReport] = []
        for item in batch.reports {
            guard let origin = known[item.sign], origin.app == batch.app else { continue }
            reports.append(
                LedgerReport(
                    sign: item.sign, skinID: origin.skinID, version: origin.version, variant: origin.variant,
                    platform: batch.platform.rawValue, appVersion: batch.appVersion, deviceID: batch.deviceID,
                    outcome: item.outcome, stage: item.stage, at: item.at))
        }
        let counted = reports.isEmpty ? [] : try await ledger.record(reports)
        for report in counted {
            Counter(
                label: Self.reportsName,
                dimensions: [
                    ("skin", report.skinID), ("outcome", report.outcome.rawValue),
                    ("stage", report.stage?.rawValue ?? "none")
                ],
                factory: factory
            ).increment()
        }
        return Receipt(accepted: reports.count, ignored: batch.reports.count - reports.count, counted: counted)
    }

    /// Makes the series of `skinID` exist at zero.
    private func declare(skinID: String) {
        var labels: [(String, String)] = [("applied", "none")]
        labels += ReportStage.allCases.map { ("failed", $0.rawValue) }
        for (outcome, stage) in labels {
            Counter(
                label: Self.reportsName, dimensions: [("skin", skinID), ("outcome", outcome), ("stage", stage)],
                factory: factory
            ).increment(by: 0)
        }
    }

    private func seconds() -> Double {
        let elapsed = clock() - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The host part of a peer address as `SocketAddress` prints it (`127.0.0.1:5000`, `[::1]:5000`): one bucket
    /// per address, whatever the port.
    static func host(of address: String) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        if let colon = address.lastIndex(of: ":"), address.firstIndex(of: ":") == colon {
            return String(address[..<colon])
        }
        return address
    }
}
