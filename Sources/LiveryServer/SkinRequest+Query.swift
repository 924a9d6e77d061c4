import LiveryHTTP
import SkinServing

/// Reading a poll's query into a `SkinRequest`: the HTTP side of the request value, whose rules live in the serving
/// core (`SkinRequest.checked`).
extension SkinRequest {
    /// `parameterNames`, encoded for `QueryParameters.firstValues(of:)`.
    public static let queryNames = QueryParameterNames(parameterNames)

    /// Parses the first values of `queryNames` in a poll's query.
    ///
    /// Reads the bytes of the values in place where it can: a poll makes strings only for `app`, `appVersion`,
    /// `deviceId` and `sign`.
    /// - Throws: `InvalidParameter` naming the first bad or missing parameter and why.
    public static func parse(_ values: FirstQueryValues) throws(InvalidParameter) -> SkinRequest {
        try checked(
            app: values[Parameter.app.rawValue],
            platform: values.withBytes(Parameter.platform.rawValue, platform(in:)),
            appVersion: values[Parameter.appVersion.rawValue], deviceID: values[Parameter.deviceId.rawValue],
            sign: values[Parameter.sign.rawValue], scale: values.withBytes(Parameter.scale.rawValue, scale(in:)),
            appearance: values.withBytes(Parameter.appearance.rawValue, appearance(in:)),
            sent: { values[$0.rawValue] })
    }
}
