import Foundation
import SkinModel

/// What one app install tells Livery about itself, and where the SDK keeps its files.
public struct LiveryConfiguration: Sendable {
    /// The server's base URL, such as `https://skins.example.com`; the API paths (`/api/v1/skin`, …) are appended.
    public var serverURL: URL
    /// The app id the skins are released for (`app` in `skin.json`).
    public var appID: String
    /// The platform polled for.
    public var platform: Platform
    /// The app's version, dotted numbers such as `7.2.0`.
    public var appVersion: String
    /// The screen scale whose images the packages carry: 1, 2 or 3. Default 3.
    public var scale: Int
    /// The appearance(s) the packages carry: `.light` (default), `.dark`, or `.any` (both, for apps that switch
    /// appearance without the network).
    public var appearance: PackageAppearance
    /// The device id that decides rollouts. `nil` (default): one is generated on first use and kept in the storage
    /// folder, so the device stays in its rollout bucket across launches.
    public var deviceID: String?
    /// The public keys answers must be signed with: key id → base64 SubjectPublicKeyInfo (DER), as
    /// `livery keys create` prints them. Several for rotation. With at least one key an unsigned answer is refused;
    /// with none, answers are taken unsigned.
    public var trustedKeys: [String: String]
    /// The folder the SDK owns (state, packages, downloads). Created if missing.
    public var storage: URL
    /// The clock every window and `expiresAt` is judged by. Default: the system clock; tests inject one.
    public var clock: @Sendable () -> Date
    /// How long one request may wait for the server, in seconds. Default 30.
    public var timeout: TimeInterval
    /// Largest package accepted, in bytes, whatever an answer says. Default 256 MiB.
    public var maximumPackageSize: Int64
    /// Whether each skin's outcome (applied, or failed and at which stage) is reported to the server
    /// (`POST /api/v1/reports`, under a random install id). Default true; false records and sends nothing.
    public var reportsOutcomes: Bool

    public init(
        serverURL: URL, appID: String, platform: Platform, appVersion: String, scale: Int = 3,
        appearance: PackageAppearance = .light, deviceID: String? = nil, trustedKeys: [String: String] = [:],
        storage: URL, clock: @escaping @Sendable () -> Date = { Date() }, timeout: TimeInterval = 30,
        maximumPackageSize: Int64 = 256 << 20, reportsOutcomes: Bool = true
    ) {
        self.serverURL = serverURL
        self.appID = appID
        self.platform = platform
        self.appVersion = appVersion
        self.scale = scale
        self.appearance = appearance
        self.deviceID = deviceID
        self.trustedKeys = trustedKeys
        self.storage = storage
        self.clock = clock
        self.timeout = timeout
        self.maximumPackageSize = maximumPackageSize
        self.reportsOutcomes = reportsOutcomes
    }
}
