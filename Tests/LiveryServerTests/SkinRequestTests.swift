import LiveryHTTP
import SkinModel
import Testing

@testable import LiveryServer
@testable import SkinServing

@Suite struct SkinRequestTests {
    static func parse(_ pairs: [String: String]) -> Result<SkinRequest, InvalidParameter> {
        Result { () throws(InvalidParameter) in try SkinRequest.parse { pairs[$0] } }
    }

    static let valid = ["app": "demo", "platform": "ios", "appVersion": "7.2.0"]

    @Test func parsesDefaults() throws {
        let request = try Self.parse(Self.valid).get()
        #expect(request.app == "demo")
        #expect(request.platform == .ios)
        #expect(request.variant == PackageVariant(scale: 3, appearance: .light))
        #expect(request.deviceID == nil && request.sign == nil)
    }

    @Test func parsesEveryOptionalParameter() throws {
        var query = Self.valid
        query["deviceId"] = "device-1"
        query["sign"] = "abc"
        query["scale"] = "2"
        query["appearance"] = "dark"
        let request = try Self.parse(query).get()
        #expect(request.deviceID == "device-1" && request.sign == "abc")
        #expect(request.variant == PackageVariant(scale: 2, appearance: .dark))
    }

    @Test(
        arguments: [
            ("app", nil, "app"), ("app", "", "app"), ("app", "a b", "app"), ("platform", nil, "platform"),
            ("platform", "windows", "platform"), ("appVersion", nil, "appVersion"),
            ("appVersion", "seven", "appVersion"),
            ("appVersion", "7..1", "appVersion"), ("scale", "4", "scale"), ("scale", "x", "scale"),
            ("appearance", "sepia", "appearance"), ("deviceId", "has space", "deviceId"),
            ("scale", "", "scale"), ("scale", "+", "scale"), ("scale", "-1", "scale"), ("scale", "0", "scale"),
            ("scale", "99999999999999999999999", "scale"), ("platform", "i0s", "platform"),
            ("platform", "", "platform"),
            ("appearance", "Darker", "appearance"), ("appearance", "", "appearance")
        ] as [(String, String?, String)])
    func namesTheBadParameter(name: String, value: String?, expected: String) {
        var query = Self.valid
        query[name] = value
        guard case .failure(let error) = Self.parse(query) else {
            Issue.record("accepted \(name)=\(value ?? "nil")")
            return
        }
        #expect(error.parameter == expected)
    }

    /// What real apps send: `UIDevice.systemName` is "iOS", Android apps often send "Android", and iOS's
    /// `UIUserInterfaceStyle` names are "Light", "Dark" and "Unspecified" (which means light).
    @Test(arguments: [
        ("platform", "iOS", "ios"), ("platform", "IOS", "ios"), ("platform", "Android", "android"),
        ("platform", "Harmony", "harmony"), ("appearance", "Dark", "dark"),
        ("appearance", "DARK", "dark"), ("appearance", "Light", "light"), ("appearance", "unspecified", "light"),
        ("appearance", "Unspecified", "light"), ("platform", "macOS", "macos"), ("platform", "macos", "macos")
    ])
    func acceptsPlatformAndAppearanceInAnyCase(name: String, value: String, expected: String) throws {
        var query = Self.valid
        query[name] = value
        let request = try Self.parse(query).get()
        let parsed = name == "platform" ? request.platform.rawValue : request.variant.appearance.rawValue
        #expect(parsed == expected)
    }

    @Test func aRefusalEchoesTheValueReceived() throws {
        var query = Self.valid
        query["platform"] = "Windows Phone"
        guard case .failure(let error) = Self.parse(query) else {
            Issue.record("accepted a bad platform")
            return
        }
        #expect(error.parameter == "platform" && error.value == "Windows Phone")
        #expect(error.message.contains(#""Windows Phone""#))
        guard case .bytes(let bytes) = APIError.invalidParameter(error).response.body else {
            Issue.record("expected a JSON body")
            return
        }
        let body = String(decoding: bytes, as: UTF8.self)
        #expect(body.contains(#""field":"platform""#) && body.contains(#""value":"Windows Phone""#))
    }

    @Test func scaleIsReadAsAnIntegerWouldBe() throws {
        for (text, scale) in [("03", 3), ("+2", 2), ("0001", 1)] {
            var query = Self.valid
            query["scale"] = text
            #expect(try Self.parse(query).get().variant.scale == scale, "\(text)")
        }
    }

    @Test func escapedValuesAreDecodedBeforeTheyAreRead() throws {
        let query = QueryParameters(
            parsing: "app=demo&platform=i%6Fs&appVersion=7%2E2&appearance=d%61rk&scale=%32&sign=a+b")
        let request = try SkinRequest.parse(query.firstValues(of: SkinRequest.queryNames))
        #expect(request.platform == .ios && request.appVersion == AppVersion("7.2"))
        #expect(request.variant == PackageVariant(scale: 2, appearance: .dark))
        #expect(request.sign == "a b")
    }

    @Test func aRawQueryParsesLikeTheSameParametersLookedUpByName() throws {
        let raw = "deviceId=d%2D1&app=demo&platform=android&appVersion=7.10.2&app=other&scale=1&appearance=dark&x=y"
        let query = QueryParameters(parsing: raw[...])
        let direct = try SkinRequest.parse(query.firstValues(of: SkinRequest.queryNames))
        let byName = try SkinRequest.parse { query[$0] }
        #expect(direct == byName)
        #expect(direct.app == "demo" && direct.deviceID == "d-1" && direct.platform == .android)
        #expect(direct.variant == PackageVariant(scale: 1, appearance: .dark))
    }

    @Test func parameterNamesAreTheQueryNamesAppsSend() {
        #expect(
            SkinRequest.parameterNames == ["app", "platform", "appVersion", "deviceId", "sign", "scale", "appearance"])
    }
}
