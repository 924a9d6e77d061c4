import LiveryHTTP
import SkinModel
import SkinServing

/// Reading a poll's query into a `SkinRequest`: the HTTP side of the request value, whose rules live in the serving
/// core (`SkinRequest.checked`).
extension SkinRequest {
    /// `parameterNames`, encoded for `QueryParameters.firstValues(of:)`.
    public static let queryNames = QueryParameterNames(parameterNames)

    /// Parses the first values of `queryNames` in a poll's query.
    ///
    /// Reads the bytes of the values in place, all in one visit of the query: a poll makes strings only for `app`,
    /// `appVersion`, `deviceId` and `sign`.
    /// - Throws: `InvalidParameter` naming the first bad or missing parameter and why.
    public static func parse(_ values: FirstQueryValues) throws(InvalidParameter) -> SkinRequest {
        var app: String?
        var platform: Platform??
        var appVersion: String?
        var deviceID: String?
        var sign: String?
        var scale: Int??
        var appearance: PackageAppearance??
        values.visitPresent { index, bytes in
            switch Parameter(rawValue: index) {
            case .app: app = String(decoding: bytes, as: UTF8.self)
            case .platform: platform = .some(Self.platform(in: bytes))
            case .appVersion: appVersion = String(decoding: bytes, as: UTF8.self)
            case .deviceId: deviceID = String(decoding: bytes, as: UTF8.self)
            case .sign: sign = String(decoding: bytes, as: UTF8.self)
            case .scale: scale = .some(Self.scale(in: bytes))
            case .appearance: appearance = .some(Self.appearance(in: bytes))
            case nil: break
            }
        }
        return try checked(
            app: app, platform: platform, appVersion: appVersion, deviceID: deviceID, sign: sign, scale: scale,
            appearance: appearance, sent: { values[$0.rawValue] })
    }
}
