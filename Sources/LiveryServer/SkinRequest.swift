import LiveryHTTP
import SkinModel

/// A client's poll, checked: every field is valid by construction.
public struct SkinRequest: Sendable, Equatable {
    /// The app's id as configured by ops (`[A-Za-z0-9._-]`, 1–64 characters).
    public var app: String
    public var platform: Platform
    public var appVersion: AppVersion
    /// Optional stable device or install id used only for rollout bucketing (1–128 printable ASCII characters).
    public var deviceID: String?
    /// The skinSign the app already holds, if any.
    public var sign: String?
    public var variant: PackageVariant

    public init(
        app: String, platform: Platform, appVersion: AppVersion, deviceID: String? = nil, sign: String? = nil,
        variant: PackageVariant = .standard
    ) {
        self.app = app
        self.platform = platform
        self.appVersion = appVersion
        self.deviceID = deviceID
        self.sign = sign
        self.variant = variant
    }

    /// The query parameters a poll reads; each case is spelled as its parameter, and indexes `parameterNames`.
    private enum Parameter: Int, CaseIterable {
        case app, platform, appVersion, deviceId, sign, scale, appearance
    }

    /// The query parameters a poll reads, in the order `parse(values:)` takes them.
    public static let parameterNames = Parameter.allCases.map { "\($0)" }
    /// `parameterNames`, encoded for `QueryParameters.firstValues(of:)`.
    public static let queryNames = QueryParameterNames(parameterNames)

    /// Parses query parameters (`app`, `platform`, `appVersion`, `deviceId`, `sign`, `scale`, `appearance`).
    ///
    /// - Parameter value: looks a parameter up by name (first value wins).
    /// - Throws: `InvalidParameter` naming the first bad or missing parameter and why.
    public static func parse(_ value: (String) -> String?) throws(InvalidParameter) -> SkinRequest {
        try parse(values: parameterNames.map(value))
    }

    /// Parses the values of `parameterNames`, given in that order (nil where absent).
    ///
    /// - Throws: `InvalidParameter` naming the first bad or missing parameter and why.
    public static func parse(values: [String?]) throws(InvalidParameter) -> SkinRequest {
        func value(_ parameter: Parameter) -> String? {
            parameter.rawValue < values.count ? values[parameter.rawValue] : nil
        }
        guard let app = value(.app), !app.isEmpty else { throw InvalidParameter("app", "is required") }
        guard isAppID(app) else {
            throw InvalidParameter("app", "must be 1–64 characters of letters, digits, '.', '_' or '-'")
        }
        guard let platformText = value(.platform) else { throw InvalidParameter("platform", "is required") }
        guard let platform = Platform(rawValue: platformText) else {
            throw InvalidParameter("platform", "must be one of ios, android, harmony")
        }
        guard let versionText = value(.appVersion) else { throw InvalidParameter("appVersion", "is required") }
        guard let appVersion = AppVersion(versionText) else {
            throw InvalidParameter("appVersion", "must be dotted numbers such as 7.2.0")
        }
        let deviceID = value(.deviceId).flatMap { $0.isEmpty ? nil : $0 }
        if let deviceID, deviceID.utf8.count > 128 || !deviceID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            throw InvalidParameter("deviceId", "must be at most 128 printable ASCII characters without spaces")
        }
        let sign = value(.sign).flatMap { $0.isEmpty ? nil : $0 }
        if let sign, sign.utf8.count > 128 { throw InvalidParameter("sign", "is too long") }
        var scale = 3
        if let scaleText = value(.scale) {
            guard let parsed = Int(scaleText), (1...3).contains(parsed) else {
                throw InvalidParameter("scale", "must be 1, 2 or 3")
            }
            scale = parsed
        }
        var appearance = Appearance.light
        if let appearanceText = value(.appearance) {
            guard let parsed = Appearance(rawValue: appearanceText) else {
                throw InvalidParameter("appearance", "must be light or dark")
            }
            appearance = parsed
        }
        return SkinRequest(
            app: app, platform: platform, appVersion: appVersion, deviceID: deviceID, sign: sign,
            variant: PackageVariant(scale: scale, appearance: appearance) ?? .standard)
    }

    static func isAppID(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}

/// A query parameter that is missing or malformed.
public struct InvalidParameter: Error, Equatable, Sendable {
    /// The parameter's name as the client sent it.
    public let parameter: String
    /// Why it was rejected, as a phrase following the name ("is required").
    public let reason: String

    public init(_ parameter: String, _ reason: String) {
        self.parameter = parameter
        self.reason = reason
    }

    public var message: String { "\(parameter) \(reason)" }
}
