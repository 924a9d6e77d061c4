import Foundation
import SkinStore

extension ReportLedger {
    /// What reporting devices said about version `version` of `skinID` in reports recorded at or after `since`
    /// (the guard's window).
    public func figures(skinID: String, version: Int, since: Date) async throws(StoreError) -> VersionFigures {
        let counts = try await deviceCounts(skinID: skinID, version: version, since: since)
        return VersionFigures(
            skinID: skinID, version: version, reportingDevices: counts.reporting, failedDevices: counts.failed,
            failedByStage: Dictionary(uniqueKeysWithValues: counts.failedByStage.map { ($0.key.rawValue, $0.value) }))
    }

    /// The whole history of `skinID`'s reports, per version (`GET /admin/v1/skins/{id}/health`).
    public func health(skinID: String) async throws(StoreError) -> [SkinHealth.Version] {
        SkinHealth.versions(from: try await tallies(skinID: skinID))
    }
}

/// What phones reported about a skin, per version: counted reports (one per device, sign and outcome), by platform
/// and app version, and hour by hour (the console's adoption curve).
public enum SkinHealth {
    /// Counts of one slice of reports.
    public struct Counts: Sendable, Equatable {
        public var applied = 0
        public var failed = 0
        /// Failed reports by stage name.
        public var failedByStage: [String: Int] = [:]

        public init() {}

        mutating func add(_ tally: ReportTally) {
            switch tally.outcome {
            case .applied: applied += tally.count
            case .failed:
                failed += tally.count
                failedByStage[tally.stage?.rawValue ?? "unknown", default: 0] += tally.count
            }
        }
    }

    /// One platform's counts, with its app versions'.
    public struct Platform: Sendable, Equatable {
        public var counts = Counts()
        public var byAppVersion: [String: Counts] = [:]
    }

    /// One hour of reports.
    public struct Hour: Sendable, Equatable {
        /// The start of the UTC hour.
        public var at: Date
        public var applied: Int
        public var failed: Int
    }

    /// One version's history.
    public struct Version: Sendable, Equatable {
        public var version: Int
        public var counts = Counts()
        public var byPlatform: [String: Platform] = [:]
        /// Hours with reports, oldest first.
        public var series: [Hour] = []

        public init(version: Int) { self.version = version }
    }

    /// The versions `tallies` speak of, newest first.
    public static func versions(from tallies: [ReportTally]) -> [Version] {
        var versions: [Int: Version] = [:]
        var hours: [Int: [Date: (applied: Int, failed: Int)]] = [:]
        for tally in tallies {
            var version = versions[tally.version] ?? Version(version: tally.version)
            version.counts.add(tally)
            var platform = version.byPlatform[tally.platform] ?? Platform()
            platform.counts.add(tally)
            platform.byAppVersion[tally.appVersion, default: Counts()].add(tally)
            version.byPlatform[tally.platform] = platform
            versions[tally.version] = version
            var hour = hours[tally.version, default: [:]][tally.hour] ?? (0, 0)
            if tally.outcome == .applied { hour.applied += tally.count } else { hour.failed += tally.count }
            hours[tally.version, default: [:]][tally.hour] = hour
        }
        return versions.values.map { version in
            var version = version
            version.series = (hours[version.version] ?? [:]).sorted { $0.key < $1.key }.map {
                Hour(at: $0.key, applied: $0.value.applied, failed: $0.value.failed)
            }
            return version
        }.sorted { $0.version > $1.version }
    }
}
