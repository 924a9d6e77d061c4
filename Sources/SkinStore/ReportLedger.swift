import Foundation
import LiveryCrypto
import LiveryProtocol

/// What a device said happened to one skin package: it was applied, or it failed.
public enum ReportOutcome: String, Sendable, Hashable, CaseIterable {
    case applied
    case failed
}

/// Where a failed skin failed on the phone, in the order a phone meets the stages.
public enum ReportStage: String, Sendable, Hashable, CaseIterable {
    case download
    case verify
    case unpack
    case config
    case crash
}

/// One report to record: the outcome of one package on one device, its sign already mapped to the skin version it
/// was built from.
public struct LedgerReport: Sendable, Hashable {
    /// The package's sign, as the phone sent it.
    public var sign: String
    public var skinID: String
    public var version: Int
    /// The package variant of `sign` (such as `@3x-light`), for the record.
    public var variant: String
    /// The platform the app said it runs on (`ios`, `android`, …), lowercase.
    public var platform: String
    /// The app version as the app sent it (checked dotted numbers).
    public var appVersion: String
    /// The app's device id as the phone sent it. Never stored: the ledger keeps only its keyed hash.
    public var deviceID: String
    public var outcome: ReportOutcome
    /// The stage of a failure; nil for `applied`.
    public var stage: ReportStage?
    /// When the phone says it happened (the device's clock: kept, never trusted for windows).
    public var at: Date

    public init(
        sign: String, skinID: String, version: Int, variant: String, platform: String, appVersion: String,
        deviceID: String, outcome: ReportOutcome, stage: ReportStage?, at: Date
    ) {
        self.sign = sign
        self.skinID = skinID
        self.version = version
        self.variant = variant
        self.platform = platform
        self.appVersion = appVersion
        self.deviceID = deviceID
        self.outcome = outcome
        self.stage = outcome == .failed ? stage : nil
        self.at = at
    }
}

/// Counted reports of one skin sharing version, platform, app version, outcome, stage and the hour they arrived.
public struct ReportTally: Sendable, Hashable {
    public var version: Int
    public var platform: String
    public var appVersion: String
    public var outcome: ReportOutcome
    /// nil for `applied`.
    public var stage: ReportStage?
    /// The hour the reports were recorded (the ledger's clock), as the start of that UTC hour.
    public var hour: Date
    /// How many were counted: one per device, sign and outcome.
    public var count: Int

    public init(
        version: Int, platform: String, appVersion: String, outcome: ReportOutcome, stage: ReportStage?, hour: Date,
        count: Int
    ) {
        self.version = version
        self.platform = platform
        self.appVersion = appVersion
        self.outcome = outcome
        self.stage = stage
        self.hour = hour
        self.count = count
    }
}

/// Distinct devices that reported about one skin version within a window.
public struct ReportDeviceCounts: Sendable, Equatable {
    /// Devices that reported applied or failed (each once).
    public var reporting: Int
    /// Devices that reported failed, at any stage (each once).
    public var failed: Int
    /// Devices that reported failed at each stage (a device failing at two stages counts under both).
    public var failedByStage: [ReportStage: Int]

    public init(reporting: Int = 0, failed: Int = 0, failedByStage: [ReportStage: Int] = [:]) {
        self.reporting = reporting
        self.failed = failed
        self.failedByStage = failedByStage
    }
}

/// One counted report as a ledger keeps it: the device only as its keyed hash. What moves between stores
/// (`livery migrate --from-data-dir`), with the secret the hashes were made under.
public struct StoredReport: Sendable, Hashable {
    public var sign: String
    /// Hex of the device id's HMAC under the store's secret (`ReportLedgers.deviceHash`).
    public var device: String
    public var outcome: ReportOutcome
    public var stage: ReportStage?
    public var skinID: String
    public var version: Int
    public var variant: String
    public var platform: String
    public var appVersion: String
    /// When the phone says it happened, ms since 1970.
    public var reportedAt: Int64
    /// When the store recorded it, ms since 1970.
    public var recordedAt: Int64

    public init(
        sign: String, device: String, outcome: ReportOutcome, stage: ReportStage?, skinID: String, version: Int,
        variant: String, platform: String, appVersion: String, reportedAt: Int64, recordedAt: Int64
    ) {
        self.sign = sign
        self.device = device
        self.outcome = outcome
        self.stage = outcome == .failed ? stage : nil
        self.skinID = skinID
        self.version = version
        self.variant = variant
        self.platform = platform
        self.appVersion = appVersion
        self.reportedAt = reportedAt
        self.recordedAt = recordedAt
    }
}

/// Everything a ledger holds: its secret (nil before the first report) and every counted report.
public struct ReportExport: Sendable, Equatable {
    public var secret: [UInt8]?
    public var reports: [StoredReport]

    public init(secret: [UInt8]?, reports: [StoredReport]) {
        self.secret = secret
        self.reports = reports
    }
}

/// The role of the store that keeps what phones reported about skins (issue 26): durable, shared by every replica of
/// a shared store, and apart from everything else the store keeps.
///
/// `FileSkinStore` appends to an fsynced log in its folder (`FileReportLedger`); `PostgresSkinStore` keeps a table.
/// Every implementation passes `ReportLedgerConformance` in `Tests/SkinStoreConformance`.
///
/// ## Promises every implementation keeps
/// - **Durable before acknowledged.** `record` returns only once its reports survive a crash (`kill -9`) and a
///   reopen; a torn tail of the storage is never read back as reports.
/// - **Counted once.** A device counts once per sign and outcome, however often and through whichever replica it
///   reports: `record` returns only the reports it counted for the first time.
/// - **No device ids kept.** Devices are stored as HMAC-SHA256 under a secret kept in the store (created once, the
///   same for every replica), so the same device hashes alike everywhere and the id cannot be read back.
/// - **Apart from the catalog.** Recording never changes the store's revision, its audit log, its snapshot, or
///   notifies replicas: reports never rebuild a catalog.
/// - **Recorded time.** Windows and hours are by the store's clock when a report was recorded, not the device's.
/// - **Bounded.** `expire(recordedBefore:)` removes what is older than the retention, in memory and on disk alike.
public protocol ReportLedger: AnyObject, Sendable {
    /// Records `reports` durably, each counted unless its device already counted for its sign and outcome (also
    /// within `reports`).
    ///
    /// - Returns: the reports counted by this call, in the order given.
    /// - Throws: `closed`, `io`, `unavailable`: the batch is not acknowledged (a failure after the commit may have
    ///   counted it all the same; sending it again then counts nothing twice).
    func record(_ reports: [LedgerReport]) async throws(StoreError) -> [LedgerReport]

    /// Every counted report of `skinID`, grouped (see `ReportTally`); order unspecified.
    func tallies(skinID: String) async throws(StoreError) -> [ReportTally]

    /// Distinct devices that reported about version `version` of `skinID` in reports recorded at or after `since`.
    func deviceCounts(skinID: String, version: Int, since: Date) async throws(StoreError) -> ReportDeviceCounts

    /// Removes, durably, every report recorded before `cutoff` (the store's retention): they no longer count in
    /// tallies or windows, and a device whose report was removed counts again if it reports once more. Reports
    /// being recorded meanwhile are not lost.
    ///
    /// - Returns: how many reports were removed.
    func expire(recordedBefore cutoff: Date) async throws(StoreError) -> Int

    /// Every counted report and the secret their devices were hashed under, for moving the ledger to another
    /// store; order unspecified.
    func exportAll() async throws(StoreError) -> ReportExport
}

/// What both ledgers share.
package enum ReportLedgers {
    /// Bytes of the per-store secret device ids are hashed under.
    package static let secretLength = 32

    /// Hex of the first 16 bytes of HMAC-SHA256(`secret`, `deviceID`).
    package static func deviceHash(_ deviceID: String, secret: [UInt8]) -> String {
        let code = HMACSHA256.code(key: secret, message: Array(deviceID.utf8))
        return Hex.encode(Array(code.prefix(16)))
    }

    /// The start of the UTC hour holding `millis` (ms since 1970), in hours since 1970.
    package static func hour(ofMillis millis: Int64) -> Int64 {
        millis >= 0 ? millis / 3_600_000 : (millis - 3_599_999) / 3_600_000
    }

    /// The key a report is deduplicated by: sign, device hash and outcome.
    package static func dedupKey(sign: String, device: String, outcome: ReportOutcome) -> String {
        sign + " " + device + " " + outcome.rawValue
    }

    /// `reports` with later duplicates (same sign, device id and outcome) left out.
    package static func firstOfEach(_ reports: [LedgerReport]) -> [LedgerReport] {
        var seen = Set<String>()
        return reports.filter { seen.insert($0.sign + " " + $0.deviceID + " " + $0.outcome.rawValue).inserted }
    }
}
