import Foundation
import LiveryJSON
import SkinModel

/// The release of a skin: which version is served, with which plan (schedule, priority, targeting, rollout, guard).
///
/// The plan is stored as its release document, `ReleasePlan.jsonValue` in compact JSON: encoded in one place, when
/// the release is set (`init(version:plan:releasedAt:actor:)`), and read in one, `loaded(version:document:releasedAt:actor:)`,
/// which parses it as of `releasedAt` when a store loads it (and when it is set, so the value a change publishes is
/// exactly the one every replica and every restart loads). A document that does not parse as a plan (changed
/// behind Livery's back) is kept as stored, with `damage` saying why: the skin is not served, and everything else
/// works as before until a new release of the skin replaces it.
public struct Release: Sendable, Equatable {
    /// The released version's number; always an existing version of the skin.
    public let version: Int
    /// What is released, as its document reads back (instants to the precision of their texts). A recurring
    /// plan's `startsAt`/`endsAt` are its occurrence in force at `releasedAt`; `ReleasePlan.resolved(at:)` gives
    /// the one in force at another instant. nil for a damaged release.
    public let plan: ReleasePlan?
    /// Why the stored document is not a release plan; nil for a sound release.
    public let damage: String?
    /// When it was set (store clock, millisecond precision).
    public let releasedAt: Date
    /// Who set it.
    public let actor: String
    /// The release document as stored: the plan encoded when it was set, else the bytes loaded.
    package let document: [UInt8]

    /// The release of `version` with `plan`, set at `releasedAt` by `actor`. A plan built without its invariants
    /// (one `ReleasePlan.parse` would refuse) makes a damaged release, as it would when loaded.
    public init(version: Int, plan: ReleasePlan, releasedAt: Date, actor: String) {
        self = Self.loaded(
            version: version, document: plan.jsonValue.serialized(.compact), releasedAt: releasedAt, actor: actor)
    }

    private init(
        version: Int, plan: ReleasePlan?, damage: String?, releasedAt: Date, actor: String, document: [UInt8]
    ) {
        self.version = version
        self.plan = plan
        self.damage = damage
        self.releasedAt = releasedAt
        self.actor = actor
        self.document = document
    }

    /// A release a store loaded: `document` parsed as a release plan as of `releasedAt` (so the value does not
    /// depend on when it is loaded); a release key `version`, which builds before the typed store kept in the
    /// document, is allowed. A document that is not a plan makes a damaged release.
    package static func loaded(version: Int, document: [UInt8], releasedAt: Date, actor: String) -> Release {
        let plan: ReleasePlan?
        let damage: String?
        do throws(JSONParseError) {
            let parsed = ReleasePlan.parse(
                try JSONValue.parse(document), file: nil, pointer: .root, allowingExtraKeys: ["version"],
                now: releasedAt)
            plan = parsed.value
            damage = plan == nil ? parsed.errors.map(\.message).joined(separator: " ") : nil
        } catch {
            (plan, damage) = (nil, "the stored release document is not JSON: \(error)")
        }
        return Release(
            version: version, plan: plan, damage: damage.map { "the release of version \(version): \($0)" },
            releasedAt: releasedAt, actor: actor, document: document)
    }
}
