import Foundation
import LiveryJSON
import LiveryProtocol
import SkinModel
import SkinStore

/// The body of `POST /api/v1/reports`, checked: what one app install says happened to the skins it was given.
///
/// ```json
/// {"app": "shop", "platform": "ios", "appVersion": "7.2.0", "deviceId": "…",
///  "reports": [{"skinSign": "…", "outcome": "failed", "stage": "unpack", "at": "2026-12-24T18:00:00Z"}]}
/// ```
/// Parsed hostile-first (LiveryJSON's strict parser, then every rule in a fixed order); members not named here are
/// ignored, so a newer app may send more.
public struct ReportBatch: Sendable, Equatable {
    public var app: String
    public var platform: Platform
    /// The app version as sent (dotted numbers, checked).
    public var appVersion: String
    public var deviceID: String
    public var reports: [Item]

    /// One report of the batch.
    public struct Item: Sendable, Equatable {
        public var sign: String
        public var outcome: ReportOutcome
        /// nil for `applied` (a stage sent with it is ignored).
        public var stage: ReportStage?
        public var at: Date

        public init(sign: String, outcome: ReportOutcome, stage: ReportStage?, at: Date) {
            self.sign = sign
            self.outcome = outcome
            self.stage = outcome == .failed ? stage : nil
            self.at = at
        }
    }

    /// Most reports in one batch.
    public static let maximumReports = 64
    /// Largest body, in bytes (413 above, before it is read).
    public static let maximumBytes = 16 * 1024

    /// The batch `body` holds.
    ///
    /// - Throws: `ReportBatchError` naming the first bad member (`reports[3].stage`) and why: `.syntax` for a body
    ///   that is not JSON, `.invalid` for JSON that breaks a rule.
    public static func parse(_ body: [UInt8]) throws(ReportBatchError) -> ReportBatch {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw ReportBatchError(.syntax, "body", "is not valid JSON: \(error.message)")
        }
        guard let object = value.objectValue else {
            throw ReportBatchError(.invalid, "body", "must be a JSON object, not \(value.kindName)")
        }
        let app = try string(object, "app", "app")
        guard PlainName.isValid(app) else {
            throw ReportBatchError(.invalid, "app", "must be 1–64 characters of letters, digits, '.', '_' or '-'")
        }
        let platformName = try string(object, "platform", "platform")
        guard let platform = Platform(rawValue: platformName.lowercased()) else {
            throw ReportBatchError(.invalid, "platform", "must be one of ios, android, harmony, macos")
        }
        let appVersion = try string(object, "appVersion", "appVersion")
        guard AppVersion(appVersion) != nil else {
            throw ReportBatchError(.invalid, "appVersion", "must be dotted numbers such as 7.2.0")
        }
        let deviceID = try string(object, "deviceId", "deviceId")
        guard (1...128).contains(deviceID.utf8.count), deviceID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ReportBatchError(.invalid, "deviceId", "must be 1–128 printable ASCII characters without spaces")
        }
        guard let member = object["reports"] else { throw ReportBatchError(.invalid, "reports", "is required") }
        guard let elements = member.arrayValue else {
            throw ReportBatchError(.invalid, "reports", "must be an array, not \(member.kindName)")
        }
        guard (1...maximumReports).contains(elements.count) else {
            throw ReportBatchError(.invalid, "reports", "must hold 1–\(maximumReports) reports, not \(elements.count)")
        }
        var items: [Item] = []
        for (index, element) in elements.enumerated() {
            items.append(try item(element, field: "reports[\(index)]"))
        }
        return ReportBatch(app: app, platform: platform, appVersion: appVersion, deviceID: deviceID, reports: items)
    }

    public init(app: String, platform: Platform, appVersion: String, deviceID: String, reports: [Item]) {
        self.app = app
        self.platform = platform
        self.appVersion = appVersion
        self.deviceID = deviceID
        self.reports = reports
    }

    private static func item(_ value: JSONValue, field: String) throws(ReportBatchError) -> Item {
        guard let object = value.objectValue else {
            throw ReportBatchError(.invalid, field, "must be an object, not \(value.kindName)")
        }
        let sign = try string(object, "skinSign", field + ".skinSign")
        guard (1...128).contains(sign.utf8.count), sign.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ReportBatchError(.invalid, field + ".skinSign", "must be 1–128 printable ASCII characters")
        }
        let outcomeName = try string(object, "outcome", field + ".outcome")
        guard let outcome = ReportOutcome(rawValue: outcomeName) else {
            throw ReportBatchError(.invalid, field + ".outcome", "must be applied or failed")
        }
        var stage: ReportStage?
        if outcome == .failed {
            let stageName = try string(
                object, "stage", field + ".stage", requirement: "is required when outcome is failed")
            guard let named = ReportStage(rawValue: stageName) else {
                throw ReportBatchError(
                    .invalid, field + ".stage",
                    "must be one of \(ReportStage.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            stage = named
        }
        let atText = try string(object, "at", field + ".at")
        guard atText.hasSuffix("Z"), let at = ISO8601Instant.parse(atText) else {
            throw ReportBatchError(
                .invalid, field + ".at", "must be an RFC 3339 UTC instant such as 2026-12-24T18:00:00Z")
        }
        return Item(sign: sign, outcome: outcome, stage: stage, at: at)
    }

    private static func string(
        _ object: JSONObject, _ key: String, _ field: String, requirement: String = "is required"
    ) throws(ReportBatchError) -> String {
        guard let value = object[key] else { throw ReportBatchError(.invalid, field, requirement) }
        guard let text = value.stringValue else {
            throw ReportBatchError(.invalid, field, "must be a string, not \(value.kindName)")
        }
        return text
    }
}

/// Why a report body was refused: which member and why.
public struct ReportBatchError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Not JSON at all (400).
        case syntax
        /// JSON that breaks a rule (422).
        case invalid
    }

    public let kind: Kind
    /// The member, as a path such as `reports[3].stage` (`body` for the whole body).
    public let field: String
    /// Why, as a phrase following the field's name.
    public let reason: String

    public init(_ kind: Kind, _ field: String, _ reason: String) {
        self.kind = kind
        self.field = field
        self.reason = reason
    }

    public var message: String { "\(field) \(reason)" }
}
