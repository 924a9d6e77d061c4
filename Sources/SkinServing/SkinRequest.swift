import Foundation
import LiveryProtocol
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
    public enum Parameter: Int, CaseIterable, Sendable {
        case app, platform, appVersion, deviceId, sign, scale, appearance
    }

    /// The query parameters a poll reads, in the order of `Parameter`.
    public static let parameterNames = Parameter.allCases.map { "\($0)" }

    /// Parses parameters (`app`, `platform`, `appVersion`, `deviceId`, `sign`, `scale`, `appearance`) looked up by
    /// name.
    ///
    /// - Parameter value: looks a parameter up by name (first value wins).
    /// - Throws: `InvalidParameter` naming the first bad or missing parameter and why.
    public static func parse(_ value: (String) -> String?) throws(InvalidParameter) -> SkinRequest {
        func lookUp<Value>(_ parameter: Parameter, _ read: (UnsafeBufferPointer<UInt8>) -> Value?) -> Value?? {
            guard let text = value(parameter.name) else { return nil }
            return .some(Array(text.utf8).withUnsafeBufferPointer(read))
        }
        return try checked(
            app: value(Parameter.app.name), platform: lookUp(.platform, platform(in:)),
            appVersion: value(Parameter.appVersion.name), deviceID: value(Parameter.deviceId.name),
            sign: value(Parameter.sign.name), scale: lookUp(.scale, scale(in:)),
            appearance: lookUp(.appearance, appearance(in:)), sent: { value($0.name) })
    }

    /// The request that a poll's parameter values make, with every rule checked in one fixed order (`app`,
    /// `platform`, `appVersion`, `deviceId`, `sign`, `scale`, `appearance`). Adapters read the values however their
    /// protocol carries them (the server reads the query in place) and leave the rules to this function.
    ///
    /// - Parameters:
    ///   - platform, scale, appearance: nil when the parameter is absent; `.some(nil)` when it is present but names
    ///     no value (`platform(in:)`, `scale(in:)`, `appearance(in:)` read them from their bytes).
    ///   - sent: the value of a parameter as sent, echoed in the error; called only for a rejected parameter.
    /// - Throws: `InvalidParameter` naming the first bad or missing parameter and why.
    public static func checked(
        app: String?, platform: Platform??, appVersion: String?, deviceID: String?, sign: String?, scale: Int??,
        appearance: PackageAppearance??, sent: (Parameter) -> String?
    ) throws(InvalidParameter) -> SkinRequest {
        guard let app, !app.isEmpty else { throw InvalidParameter("app", "is required") }
        guard isAppID(app) else {
            throw InvalidParameter("app", "must be 1–64 characters of letters, digits, '.', '_' or '-'", value: app)
        }
        guard let platform else { throw InvalidParameter("platform", "is required") }
        guard let platform else {
            throw InvalidParameter(
                "platform", "must be one of ios, android, harmony, macos (in any case)", value: sent(.platform))
        }
        guard let versionText = appVersion else { throw InvalidParameter("appVersion", "is required") }
        guard let appVersion = AppVersion(versionText) else {
            throw InvalidParameter("appVersion", "must be dotted numbers such as 7.2.0", value: versionText)
        }
        let deviceID = deviceID.flatMap { $0.isEmpty ? nil : $0 }
        if let deviceID, deviceID.utf8.count > 128 || !allBytes(of: deviceID, satisfy: { $0 > 0x20 && $0 < 0x7F }) {
            throw InvalidParameter(
                "deviceId", "must be at most 128 printable ASCII characters without spaces", value: deviceID)
        }
        let sign = sign.flatMap { $0.isEmpty ? nil : $0 }
        if let sign, sign.utf8.count > 128 { throw InvalidParameter("sign", "is too long") }
        guard let scale = scale ?? 3 else { throw InvalidParameter("scale", "must be 1, 2 or 3", value: sent(.scale)) }
        guard let appearance = appearance ?? .light else {
            throw InvalidParameter(
                "appearance", "must be light, dark, unspecified or any (in any case)", value: sent(.appearance))
        }
        return SkinRequest(
            app: app, platform: platform, appVersion: appVersion, deviceID: deviceID, sign: sign,
            variant: PackageVariant(scale: scale, contents: appearance) ?? .standard)
    }

    /// The platform named by `bytes` in any ASCII case (`iOS`, `Android`), or nil; reads the bytes in place.
    public static func platform(in bytes: UnsafeBufferPointer<UInt8>) -> Platform? { named(bytes, in: platformNames) }

    /// The appearance named by `bytes` in any ASCII case (`Dark`, `unspecified` meaning light, `any` meaning both
    /// in one package), or nil.
    public static func appearance(in bytes: UnsafeBufferPointer<UInt8>) -> PackageAppearance? {
        named(bytes, in: appearanceNames)
    }

    /// The scale 1, 2 or 3 spelled by `bytes` as `Int(_:)` reads a decimal integer (an optional `+`, leading zeros
    /// allowed), or nil.
    public static func scale(in bytes: UnsafeBufferPointer<UInt8>) -> Int? { scaleValue(bytes) }

    /// Platforms and appearances by the bytes of their lowercase names, for matching query values without making
    /// strings. `unspecified` is iOS's `UIUserInterfaceStyleUnspecified`, which means light.
    private static let platformNames = Platform.allCases.map { (name: Array($0.rawValue.utf8), value: $0) }
    private static let appearanceNames =
        PackageAppearance.allCases.map { (name: Array($0.rawValue.utf8), value: $0) }
        + [(name: Array("unspecified".utf8), value: PackageAppearance.light)]

    /// The value whose lowercase name is spelled by `bytes` in any ASCII case (`iOS`, `Android`, `Dark`), or nil.
    private static func named<Value>(
        _ bytes: UnsafeBufferPointer<UInt8>, in table: [(name: [UInt8], value: Value)]
    ) -> Value? {
        for entry in table where entry.name.count == bytes.count {
            var equal = true
            for index in 0..<bytes.count {
                let byte = bytes[index]
                let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                if lowered != entry.name[index] {
                    equal = false
                    break
                }
            }
            if equal { return entry.value }
        }
        return nil
    }

    /// 1, 2 or 3 from a decimal integer as `Int(_:)` reads it (an optional `+`, leading zeros allowed); nil for
    /// anything else.
    private static func scaleValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var digits = bytes[...]
        if digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), 10)
        }
        return (1...3).contains(value) ? value : nil
    }

    /// Whether every UTF-8 byte of `text` passes `test`, read in place when the bytes are contiguous (as they are
    /// for strings made from request bytes): cheaper than walking `String.UTF8View` on every poll.
    private static func allBytes(of text: String, satisfy test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? text.utf8.allSatisfy(test)
    }

    /// Whether `text` is a valid app id: 1–64 characters of ASCII letters, digits, `.`, `_` or `-`.
    public static func isAppID(_ text: String) -> Bool { PlainName.isValid(text) }
}

extension SkinRequest.Parameter {
    /// The parameter's name in a query.
    public var name: String { SkinRequest.parameterNames[rawValue] }
}

/// A query parameter that is missing or malformed.
public struct InvalidParameter: Error, Equatable, Sendable {
    /// The parameter's name as the client sent it.
    public let parameter: String
    /// Why it was rejected, as a phrase following the name ("is required").
    public let reason: String
    /// The value received, when there was one (echoed in the answer so the sender sees what arrived).
    public let value: String?

    public init(_ parameter: String, _ reason: String, value: String? = nil) {
        self.parameter = parameter
        self.reason = reason
        // Echoed, not trusted: bounded so a huge value cannot inflate the answer.
        self.value = value.map { String($0.prefix(200)) }
    }

    public var message: String {
        guard let value else { return "\(parameter) \(reason)" }
        return "\(parameter) \(reason); got \"\(value)\""
    }
}
