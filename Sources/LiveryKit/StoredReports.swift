import Foundation
import LiveryJSON
import SkinModel

/// One skin's outcome on this install, as `POST /api/v1/reports` carries it.
struct OutcomeReport: Sendable, Equatable {
    /// Where a skin failed: the package's download (a refused request, a wrong size), its check (SHA-256), its
    /// unpacking (a hostile or corrupt zip), its `config.json`, or a crash before `markApplied()`.
    enum Stage: String, Sendable, CaseIterable {
        case download, verify, unpack, config, crash
    }

    var skinSign: String
    /// nil: applied (confirmed by `markApplied()`); otherwise failed at this stage.
    var stage: Stage?
    var at: Date

    /// What the queue holds once: a sign's applied outcome, or its failure at one stage.
    var key: String { skinSign + " " + (stage.map { "failed " + $0.rawValue } ?? "applied") }

    var json: JSONValue {
        var members: [JSONObject.Member] = [
            .init(key: "skinSign", value: .string(skinSign)),
            .init(key: "outcome", value: .string(stage == nil ? "applied" : "failed"))
        ]
        if let stage { members.append(.init(key: "stage", value: .string(stage.rawValue))) }
        members.append(.init(key: "at", value: .string(ISO8601Instant.format(at))))
        return .object(JSONObject(members))
    }

    static func read(_ value: JSONValue) -> OutcomeReport? {
        guard let object = value.objectValue, let sign = object["skinSign"]?.stringValue,
            let at = object["at"]?.stringValue.flatMap(ISO8601Instant.parse)
        else { return nil }
        switch object["outcome"]?.stringValue {
        case "applied": return OutcomeReport(skinSign: sign, stage: nil, at: at)
        case "failed":
            guard let stage = object["stage"]?.stringValue.flatMap(Stage.init(rawValue:)) else { return nil }
            return OutcomeReport(skinSign: sign, stage: stage, at: at)
        default: return nil
        }
    }
}

/// The outcome queue, kept in `reports.json` and replaced atomically as a whole (like `state.json`): the reports not
/// yet delivered, oldest first, the install id they are sent under, and the server's `Retry-After`.
///
/// Invariants: at most `pendingLimit` reports (the oldest are dropped), each key at most once, and never a key the
/// server already took (`delivered`, the last `deliveredLimit` keys), so a skin that fails at every refresh is
/// reported once.
struct StoredReports: Sendable, Equatable {
    /// Most reports kept waiting; past it the oldest are dropped.
    static let pendingLimit = 256
    /// How many delivered keys are remembered against reporting them again.
    static let deliveredLimit = 256
    /// The server's limits for one request: reports, and bytes of body.
    static let batchLimit = 64
    static let bodyLimit = 16 * 1024

    /// A random id for this install, made once: the `deviceId` reports are sent under. Never the app's device id
    /// (which an app may fill with its own user's id), so reports carry nothing personal.
    var installID: String
    var pending: [OutcomeReport] = []
    var delivered: [String] = []
    /// No report is sent before this instant (429 or 503 with `Retry-After`).
    var retryAfter: Date?

    init(installID: String = UUID().uuidString.lowercased()) { self.installID = installID }

    /// Queues `report` unless the same outcome of the same sign is queued or was delivered; drops the oldest past the
    /// limit. Returns whether the queue changed.
    mutating func record(_ report: OutcomeReport) -> Bool {
        let key = report.key
        guard !delivered.contains(key), !pending.contains(where: { $0.key == key }) else { return false }
        pending.append(report)
        if pending.count > Self.pendingLimit { pending.removeFirst(pending.count - Self.pendingLimit) }
        return true
    }

    /// Takes `sent` out of the queue (the server took or refused them) and remembers their keys.
    mutating func settle(_ sent: [OutcomeReport]) {
        let keys = Set(sent.map(\.key))
        pending.removeAll { keys.contains($0.key) }
        delivered.append(contentsOf: sent.map(\.key).filter { !delivered.contains($0) })
        if delivered.count > Self.deliveredLimit { delivered.removeFirst(delivered.count - Self.deliveredLimit) }
    }

    /// The request body for the oldest reports: as many as fit in `batchLimit` reports and `bodyLimit` bytes, and
    /// the reports it carries; nil when the queue is empty or not even one report fits.
    func batch(app: String, platform: String, appVersion: String) -> (body: [UInt8], reports: [OutcomeReport])? {
        var reports = Array(pending.prefix(Self.batchLimit))
        while !reports.isEmpty {
            let body = JSONValue.object(
                JSONObject([
                    .init(key: "app", value: .string(app)),
                    .init(key: "platform", value: .string(platform)),
                    .init(key: "appVersion", value: .string(appVersion)),
                    .init(key: "deviceId", value: .string(installID)),
                    .init(key: "reports", value: .array(reports.map(\.json)))
                ])
            ).serialized(.compact)
            if body.count <= Self.bodyLimit { return (body, reports) }
            // Each report is about a hundred bytes: a body over the limit loses one report per pass, at most 64.
            reports.removeLast()
        }
        return nil
    }

    // MARK: JSON

    func serialized() -> [UInt8] {
        var members: [JSONObject.Member] = [
            .init(key: "version", value: 1),
            .init(key: "installId", value: .string(installID)),
            .init(key: "pending", value: .array(pending.map(\.json))),
            .init(key: "delivered", value: .array(delivered.map { .string($0) }))
        ]
        if let retryAfter {
            members.append(.init(key: "retryAfter", value: .string(ISO8601Instant.format(retryAfter))))
        }
        return JSONValue.object(JSONObject(members)).serialized(.compact)
    }

    /// Reads `reports.json`; nil when it is not a queue this version wrote (the SDK then starts a new one).
    static func read(_ bytes: [UInt8]) -> StoredReports? {
        guard let object = (try? JSONValue.parse(bytes))?.objectValue, object["version"]?.intValue == 1,
            let installID = object["installId"]?.stringValue, !installID.isEmpty
        else { return nil }
        var reports = StoredReports(installID: installID)
        reports.pending = Array(
            (object["pending"]?.arrayValue ?? []).compactMap(OutcomeReport.read).suffix(pendingLimit))
        reports.delivered = Array(
            (object["delivered"]?.arrayValue ?? []).compactMap(\.stringValue).suffix(deliveredLimit))
        reports.retryAfter = object["retryAfter"]?.stringValue.flatMap(ISO8601Instant.parse)
        return reports
    }
}
