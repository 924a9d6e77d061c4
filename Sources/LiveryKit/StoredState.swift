import Foundation
import LiveryJSON
import SkinModel

/// What the SDK remembers between launches, kept in `state.json` and replaced atomically as a whole.
///
/// Invariants: every sign named here that is not blocked has its package unpacked under `packages/<sign>` or is
/// about to (entries are only recorded once their package is in place); `applied` is `""` or one of those signs.
struct StoredState: Sendable, Equatable {
    /// The device id polls send (given by the app or generated once).
    var deviceID: String
    /// The query the stored poll answer answered, and its entity tag: `If-None-Match` is sent only for the same query.
    var pollQuery: String?
    var pollETag: String?
    /// The holiday skin the last poll named (nil: no skin or the kill switch), and the one before it.
    var holiday: PackageEntry?
    var previousHoliday: PackageEntry?
    /// The skin the last poll said comes next, prefetched.
    var next: PackageEntry?
    /// The theme the user chose (its package is stored), nil when none is chosen.
    var theme: PackageEntry?
    /// The sign applied at the last launch or refresh; `""` when no skin applies.
    var applied: String = ""
    /// A sign applied but not yet confirmed by `markApplied()`: found at launch, it is blocked.
    var unconfirmed: String?
    /// Signs the app confirmed with `markApplied()` (only those still kept).
    var confirmed: [String] = []
    /// Signs that crashed the app before confirmation: never applied again on this device.
    var blocked: [String] = []
    /// The server asked not to be polled before this instant (503 with `Retry-After`).
    var retryAfter: Date?
    /// What decides the holiday skin: the stored catalog (`catalog.json`) or the last poll answer (`holiday`, `next`).
    var source: DecisionSource = .poll
    /// The stored catalog is used without asking the server until this instant (its `max-age`); then it is
    /// revalidated with `If-None-Match`.
    var catalogFreshUntil: Date?
    /// The server has no catalog (404 `not_found`): poll per device, without asking for one, until this instant.
    var pollUntil: Date?
    /// The app has no released skin (404 `unknown_app`): no request at all before this instant.
    var unknownAppUntil: Date?

    init(deviceID: String) { self.deviceID = deviceID }

    /// The signs whose packages storage keeps: current, previous, next and the chosen theme.
    var keptSigns: Set<String> {
        Set([holiday, previousHoliday, next, theme].compactMap { $0?.sign }.filter { !blocked.contains($0) })
    }

    // MARK: JSON

    func serialized() -> [UInt8] {
        var members: [JSONObject.Member] = [
            .init(key: "version", value: 1),
            .init(key: "deviceId", value: .string(deviceID)),
            .init(key: "applied", value: .string(applied)),
            .init(key: "blocked", value: .array(blocked.map { .string($0) })),
            .init(key: "confirmed", value: .array(confirmed.map { .string($0) }))
        ]
        func add(_ key: String, _ value: JSONValue?) { if let value { members.append(.init(key: key, value: value)) } }
        add("pollQuery", pollQuery.map { .string($0) })
        add("pollETag", pollETag.map { .string($0) })
        add("holiday", holiday.map(Self.json))
        add("previousHoliday", previousHoliday.map(Self.json))
        add("next", next.map(Self.json))
        add("theme", theme.map(Self.json))
        add("unconfirmed", unconfirmed.map { .string($0) })
        add("retryAfter", retryAfter.map { .string(ISO8601Instant.format($0)) })
        add("source", .string(source.rawValue))
        add("catalogFreshUntil", catalogFreshUntil.map { .string(ISO8601Instant.format($0)) })
        add("pollUntil", pollUntil.map { .string(ISO8601Instant.format($0)) })
        add("unknownAppUntil", unknownAppUntil.map { .string(ISO8601Instant.format($0)) })
        return JSONValue.object(JSONObject(members)).serialized(.compact)
    }

    /// Reads `state.json`; nil when it is not a state this version wrote (the SDK then starts afresh).
    static func read(_ bytes: [UInt8]) -> StoredState? {
        guard let document = try? JSONValue.parse(bytes), let object = document.objectValue,
            object["version"]?.intValue == 1, let deviceID = object["deviceId"]?.stringValue
        else { return nil }
        var state = StoredState(deviceID: deviceID)
        state.pollQuery = object["pollQuery"]?.stringValue
        state.pollETag = object["pollETag"]?.stringValue
        state.applied = object["applied"]?.stringValue ?? ""
        state.blocked = object["blocked"]?.arrayValue?.compactMap { $0.stringValue } ?? []
        state.confirmed = object["confirmed"]?.arrayValue?.compactMap { $0.stringValue } ?? []
        state.unconfirmed = object["unconfirmed"]?.stringValue
        state.retryAfter = object["retryAfter"]?.stringValue.flatMap(ISO8601Instant.parse)
        // A state written before the catalog existed has no source: it was decided by polls.
        state.source = object["source"]?.stringValue.flatMap(DecisionSource.init(rawValue:)) ?? .poll
        state.catalogFreshUntil = object["catalogFreshUntil"]?.stringValue.flatMap(ISO8601Instant.parse)
        state.pollUntil = object["pollUntil"]?.stringValue.flatMap(ISO8601Instant.parse)
        state.unknownAppUntil = object["unknownAppUntil"]?.stringValue.flatMap(ISO8601Instant.parse)
        func entry(_ key: String) -> PackageEntry? { object[key]?.objectValue.flatMap(Self.entry) }
        state.holiday = entry("holiday")
        state.previousHoliday = entry("previousHoliday")
        state.next = entry("next")
        state.theme = entry("theme")
        return state
    }

    private static func json(_ entry: PackageEntry) -> JSONValue {
        var members: [JSONObject.Member] = [
            .init(key: "sign", value: .string(entry.sign)),
            .init(key: "skinId", value: .string(entry.skinID)),
            .init(key: "packageUrl", value: .string(entry.packageURL)),
            .init(key: "sha256", value: .string(entry.sha256)),
            .init(key: "size", value: .number(JSONNumber(Int(entry.size))))
        ]
        if let startsAt = entry.startsAt, let endsAt = entry.endsAt {
            members.append(.init(key: "startsAt", value: .string(ISO8601Instant.format(startsAt))))
            members.append(.init(key: "endsAt", value: .string(ISO8601Instant.format(endsAt))))
        }
        return .object(JSONObject(members))
    }

    private static func entry(_ object: JSONObject) -> PackageEntry? {
        let windowed = object["startsAt"] != nil
        guard let entry = try? PackageEntry.read(object, signKey: "sign", idKey: "skinId", windowed: windowed) else {
            return nil
        }
        return entry
    }
}
