import Foundation
import LiveryCrypto
import PostgresClient
import SkinStore
import Synchronization

/// `PostgresSkinStore`'s `ReportLedger`: counted reports in `livery_reports`, one row per sign, device hash and
/// outcome (the primary key, so a device counts once across every replica), the secret in `livery_report_secret`
/// (the first replica that needs it inserts one; every replica then reads the same).
///
/// Reports go through a connection of their own, so a burst of reports never queues behind the store's changes
/// (and the reverse); an insert touches neither `livery_store` nor `NOTIFY`, so no replica rebuilds its catalog.
/// A batch is one `INSERT … ON CONFLICT DO NOTHING RETURNING`: committed (as durable as PostgreSQL makes commits)
/// before `record` returns, and what it returns is exactly what that insert counted.
public final class PostgresReportLedger: ReportLedger {
    private let configuration: PostgresConfiguration
    private let clock: @Sendable () -> Date
    private let connection = Mutex<PostgresConnection?>(nil)
    private let secret = Mutex<[UInt8]?>(nil)
    private let isClosed = Atomic<Bool>(false)

    init(_ configuration: PostgresConfiguration, clock: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.clock = clock
    }

    func close() async {
        isClosed.store(true, ordering: .releasing)
        let open = connection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        await open?.close()
    }

    public func record(_ reports: [LedgerReport]) async throws(StoreError) -> [LedgerReport] {
        let reports = ReportLedgers.firstOfEach(reports)
        if reports.isEmpty { return [] }
        let secret = try await deviceSecret()
        let recorded = StoreTime.millis(clock())
        let stored = reports.map { report in
            StoredReport(
                sign: report.sign, device: ReportLedgers.deviceHash(report.deviceID, secret: secret),
                outcome: report.outcome, stage: report.stage, skinID: report.skinID, version: report.version,
                variant: report.variant, platform: report.platform, appVersion: report.appVersion,
                reportedAt: StoreTime.millis(report.at), recordedAt: recorded)
        }
        let (sql, parameters) = Self.insertion(stored, returning: "sign, device, outcome")
        let inserted = try await run { session in
            try session.query(sql, parameters).rows.map { row in
                try ReportLedgers.dedupKey(
                    sign: row.string(0), device: row.string(1),
                    outcome: ReportOutcome(rawValue: row.string(2)) ?? .applied)
            }
        }
        let counted = Set(inserted)
        return zip(reports, stored).filter { _, row in
            counted.contains(ReportLedgers.dedupKey(sign: row.sign, device: row.device, outcome: row.outcome))
        }.map(\.0)
    }

    /// One `INSERT … ON CONFLICT DO NOTHING RETURNING returning` of `reports` (at most 5,000: 11 parameters each),
    /// and its parameters.
    static func insertion(_ reports: [StoredReport], returning: String) -> (String, [PostgresValue]) {
        var rows: [String] = []
        var parameters: [PostgresValue] = []
        for report in reports {
            let base = parameters.count
            rows.append(
                "("
                    + (1...11).map { index in
                        let cast = index == 6 ? "::integer" : index >= 10 ? "::bigint" : ""
                        return "$\(base + index)\(cast)"
                    }.joined(separator: ",") + ")")
            parameters += [
                .text(report.sign), .text(report.device), .text(report.outcome.rawValue),
                .optional(report.stage?.rawValue), .text(report.skinID), .int(report.version), .text(report.variant),
                .text(report.platform), .text(report.appVersion), .int(report.reportedAt), .int(report.recordedAt)
            ]
        }
        let sql = """
            INSERT INTO livery_reports (sign, device, outcome, stage, skin_id, version, variant, platform, app_version,
                reported_at, recorded_at)
            VALUES \(rows.joined(separator: ","))
            ON CONFLICT DO NOTHING
            RETURNING \(returning)
            """
        return (sql, parameters)
    }

    /// Writes `export` into the ledger's tables within the caller's transaction (`livery migrate --from-data-dir`):
    /// its secret unless the target has one, then every report not there yet.
    ///
    /// - Returns: the reports inserted; nil when the target already has another secret (its replicas hashed devices
    ///   under their own key, so the exported hashes would not match theirs): then nothing is written.
    static func importReports(_ export: ReportExport, into session: PostgresSession) throws(StoreError) -> Int? {
        guard let secret = export.secret, !export.reports.isEmpty else { return 0 }
        do throws(PostgresError) {
            try session.query(
                "INSERT INTO livery_report_secret (secret) VALUES ($1) ON CONFLICT DO NOTHING", [.bytes(secret)])
            guard try session.query("SELECT secret FROM livery_report_secret").singleRow().bytes(0) == secret else {
                return nil
            }
            var inserted = 0
            var start = 0
            while start < export.reports.count {
                let chunk = Array(export.reports[start..<min(start + 5_000, export.reports.count)])
                let (sql, parameters) = insertion(chunk, returning: "1")
                inserted += try session.query(sql, parameters).rows.count
                start += chunk.count
            }
            return inserted
        } catch {
            throw PostgresSkinStore.storeError(error)
        }
    }

    public func exportAll() async throws(StoreError) -> ReportExport {
        try await run { session in
            let secret = try session.query("SELECT secret FROM livery_report_secret").rows.first?.bytes(0)
            let reports = try session.query(
                """
                SELECT sign, device, outcome, stage, skin_id, version, variant, platform, app_version, reported_at,
                    recorded_at
                FROM livery_reports
                """, []
            ).rows.compactMap { row -> StoredReport? in
                guard let outcome = ReportOutcome(rawValue: try row.string(2)) else { return nil }
                return StoredReport(
                    sign: try row.string(0), device: try row.string(1), outcome: outcome,
                    stage: try row.optionalString(3).flatMap(ReportStage.init(rawValue:)), skinID: try row.string(4),
                    version: try row.int(5), variant: try row.string(6), platform: try row.string(7),
                    appVersion: try row.string(8), reportedAt: Int64(try row.int(9)), recordedAt: Int64(try row.int(10))
                )
            }
            return ReportExport(secret: secret, reports: reports)
        }
    }

    public func tallies(skinID: String) async throws(StoreError) -> [ReportTally] {
        try await run { session in
            try session.query(
                """
                SELECT version, platform, app_version, outcome, stage, recorded_at / 3600000, count(*)
                FROM livery_reports WHERE skin_id = $1 GROUP BY 1, 2, 3, 4, 5, 6
                """, [.text(skinID)]
            ).rows.compactMap { row -> ReportTally? in
                guard let outcome = ReportOutcome(rawValue: try row.string(3)) else { return nil }
                return ReportTally(
                    version: try row.int(0), platform: try row.string(1), appVersion: try row.string(2),
                    outcome: outcome, stage: try row.optionalString(4).flatMap(ReportStage.init(rawValue:)),
                    hour: Date(timeIntervalSince1970: Double(try row.int(5)) * 3600), count: try row.int(6))
            }
        }
    }

    public func deviceCounts(skinID: String, version: Int, since: Date) async throws(StoreError) -> ReportDeviceCounts {
        let from = PostgresValue.int(StoreTime.millis(since))
        return try await run { session in
            let condition = "skin_id = $1 AND version = $2::integer AND recorded_at >= $3::bigint"
            let parameters: [PostgresValue] = [.text(skinID), .int(version), from]
            let totals = try session.query(
                "SELECT count(DISTINCT device), count(DISTINCT device) FILTER (WHERE outcome = 'failed') "
                    + "FROM livery_reports WHERE \(condition)", parameters
            ).singleRow()
            var counts = ReportDeviceCounts(reporting: try totals.int(0), failed: try totals.int(1))
            for row in try session.query(
                "SELECT stage, count(DISTINCT device) FROM livery_reports WHERE \(condition) AND outcome = 'failed' "
                    + "AND stage IS NOT NULL GROUP BY stage", parameters
            ).rows {
                if let stage = ReportStage(rawValue: try row.string(0)) { counts.failedByStage[stage] = try row.int(1) }
            }
            return counts
        }
    }

    /// One `DELETE` by `recorded_at` (a scan of the table; it runs once an hour on each replica and removes nothing
    /// on all but the first to get there).
    public func expire(recordedBefore cutoff: Date) async throws(StoreError) -> Int {
        let limit = PostgresValue.int(StoreTime.millis(cutoff))
        return try await run { session in
            try session.query(
                "WITH gone AS (DELETE FROM livery_reports WHERE recorded_at < $1::bigint RETURNING 1) "
                    + "SELECT count(*) FROM gone", [limit]
            ).singleRow().int(0)
        }
    }

    // MARK: The connection

    /// The store's secret: read once, inserted first by whichever replica needs it first.
    private func deviceSecret() async throws(StoreError) -> [UInt8] {
        if let known = secret.withLock({ $0 }) { return known }
        let candidate: [UInt8]
        do {
            candidate = try Secrets.randomBytes(count: ReportLedgers.secretLength)
        } catch {
            throw .unavailable(reason: "no random bytes for the report secret")
        }
        let stored = try await run { session in
            try session.query(
                "INSERT INTO livery_report_secret (secret) VALUES ($1) ON CONFLICT DO NOTHING", [.bytes(candidate)])
            return try session.query("SELECT secret FROM livery_report_secret").singleRow().bytes(0)
        }
        guard stored.count == ReportLedgers.secretLength else {
            throw .corruptFile(path: "livery_report_secret", reason: "the report secret must be 32 bytes")
        }
        secret.withLock { $0 = stored }
        return stored
    }

    /// Runs `work` on the ledger's connection (connecting first if it has none; a connection found broken is
    /// dropped, and the next call connects again).
    private func run<T: Sendable>(
        _ work: @escaping @Sendable (PostgresSession) throws -> T
    ) async throws(StoreError) -> T {
        if isClosed.load(ordering: .acquiring) { throw .closed }
        let live: PostgresConnection
        if let open = connection.withLock({ $0 }) {
            live = open
        } else {
            let made: PostgresConnection
            do {
                made = try await PostgresConnection.connect(configuration)
            } catch {
                throw .unavailable(reason: "PostgreSQL is unreachable: \(error.description)")
            }
            let kept = connection.withLock { connection in
                if let other = connection { return other }
                connection = made
                return made
            }
            if kept !== made { await made.close() }
            live = kept
        }
        do {
            return try await live.withSession(work)
        } catch {
            if !(await live.isConnected) {
                connection.withLock { if $0 === live { $0 = nil } }
            }
            throw PostgresSkinStore.storeError(error)
        }
    }
}
