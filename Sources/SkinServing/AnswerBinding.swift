import LiveryJSON
import SkinModel

/// The question a signed body answers: the app as requested, the platform, the scale and the appearance. A signed
/// poll answer or theme list ends with these four members (then `expiresAt`), so a signature made for one question
/// cannot be passed off as the answer to another (a mis-keyed or hostile cache handing one app's answer, or "skins
/// off", to another app, platform or variant).
///
/// Rendered as `"app":"demo","platform":"ios","scale":3,"appearance":"light"`: `app` exactly as the request spelled
/// it (its characters never need escaping), `platform` lowercase (`ios`, `android`, `harmony`, `macos`), `scale` a
/// number (3 when the request gave none), `appearance` `light`, `dark` or `any` (`unspecified`, or none, is
/// `light`). The names and their order are part of the protocol: apps check them.
///
/// What it does not bind: the device's rollout bucket (`deviceId`) and the app version, which select among answers
/// without being named in them.
public struct AnswerBinding: Sendable, Hashable {
    /// The app's id as requested.
    public let app: String
    public let platform: Platform
    /// The package variant asked for: its scale and appearance.
    public let variant: PackageVariant

    public init(app: String, platform: Platform, variant: PackageVariant) {
        self.app = app
        self.platform = platform
        self.variant = variant
    }

    /// The question `request` asks.
    public init(_ request: SkinRequest) {
        self.init(app: request.app, platform: request.platform, variant: request.variant)
    }

    /// The members' names, in the order a signed body holds them (before `expiresAt`).
    public static let memberNames = ["app", "platform", "scale", "appearance"]

    /// The JSON members, without braces or a leading comma.
    public var members: [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.raw(#""app":"#.utf8)
        writer.string(app)
        writer.raw(#","platform":"#.utf8)
        writer.string(platform.rawValue)
        writer.raw(#","scale":"#.utf8)
        writer.number(variant.scale)
        writer.raw(#","appearance":"#.utf8)
        writer.string(variant.appearance.rawValue)
        return writer.bytes
    }
}
