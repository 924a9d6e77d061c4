import LiveryHTTP
import SkinModel
import Testing

@testable import LiveryServer

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

    @Test(arguments: [
        ("app", nil, "app"), ("app", "", "app"), ("app", "a b", "app"), ("platform", nil, "platform"),
        ("platform", "windows", "platform"), ("appVersion", nil, "appVersion"), ("appVersion", "seven", "appVersion"),
        ("appVersion", "7..1", "appVersion"), ("scale", "4", "scale"), ("scale", "x", "scale"),
        ("appearance", "sepia", "appearance"), ("deviceId", "has space", "deviceId"),
        ("scale", "", "scale"), ("scale", "+", "scale"), ("scale", "-1", "scale"), ("scale", "0", "scale"),
        ("scale", "99999999999999999999999", "scale"), ("platform", "IOS", "platform"), ("platform", "", "platform"),
        ("appearance", "Dark", "appearance"), ("appearance", "", "appearance"),
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

    @Test func scaleIsReadAsAnIntegerWouldBe() throws {
        for (text, scale) in [("03", 3), ("+2", 2), ("0001", 1)] {
            var query = Self.valid
            query["scale"] = text
            #expect(try Self.parse(query).get().variant.scale == scale, "\(text)")
        }
    }

    @Test func escapedValuesAreDecodedBeforeTheyAreRead() throws {
        let query = QueryParameters(parsing: "app=demo&platform=i%6Fs&appVersion=7%2E2&appearance=d%61rk&scale=%32&sign=a+b")
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
        #expect(SkinRequest.parameterNames == ["app", "platform", "appVersion", "deviceId", "sign", "scale", "appearance"])
    }
}
