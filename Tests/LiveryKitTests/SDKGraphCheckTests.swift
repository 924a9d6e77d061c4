import Foundation
import TestSupport
import Testing

/// `.ci/check-sdk-graph` fails, naming the path, when LiveryKit's graph grows something an app cannot build, and
/// passes the clean graph. Fed package descriptions in `swift package dump-package`'s shape.
@Suite struct SDKGraphCheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".ci/check-sdk-graph").path

    static func target(
        _ name: String, _ dependencies: [String], products: [(String, String)] = [], unsafe: Bool = false
    ) -> [String: Any] {
        var deps: [[String: Any]] = dependencies.map { ["byName": [$0, NSNull()]] }
        deps += products.map { ["product": [$0.0, $0.1, NSNull(), NSNull()]] }
        let settings: [[String: Any]] =
            unsafe ? [["kind": ["unsafeFlags": ["_0": ["-Ounchecked"]]], "tool": "swift"]] : []
        return [
            "name": name, "type": "regular", "dependencies": deps, "settings": settings,
            "path": "Tests/LiveryKitTests/NoSuchFolder"
        ]
    }

    static func check(_ targets: [[String: Any]]) async throws -> ExternalProcess.Output {
        let scratch = try ScratchDirectory(prefix: "livery-kit-graph")
        let path = try scratch.write(
            "package.json", [UInt8](try JSONSerialization.data(withJSONObject: ["targets": targets])))
        return try await ExternalProcess.run("python3", [script, path])
    }

    static var clean: [[String: Any]] {
        [
            target(
                "LiveryKit", ["LiveryJSON", "LiveryProtocol", "ZipReading", "SkinModel", "LiveryCatalog"],
                products: [("Crypto", "swift-crypto")]),
            target("LiveryJSON", []), target("LiveryProtocol", []), target("ZipReading", ["CZlib"]),
            target("CZlib", []),
            target("SkinModel", ["LiveryJSON"]),
            target("LiveryCatalog", ["LiveryJSON"], products: [("Crypto", "swift-crypto")])
        ]
    }

    @Test func passesTheGraphOfPortableTargetsAndSwiftCrypto() async throws {
        let result = try await Self.check(Self.clean)
        #expect(result.status == 0, "\(result.transcript)")
    }

    @Test func failsNamingThePathToAServerTargetAProductOrUnsafeFlags() async throws {
        var bad = Self.clean
        bad[5] = Self.target("SkinModel", ["LiveryJSON", "SystemCalls"])
        bad.append(Self.target("SystemCalls", ["CSystemCalls"]))
        bad[2] = Self.target("LiveryProtocol", [], unsafe: true)
        bad[0] = Self.target(
            "LiveryKit", ["LiveryJSON", "LiveryProtocol", "ZipReading", "SkinModel"],
            products: [("Logging", "swift-log")])
        let result = try await Self.check(bad)
        #expect(result.status == 1)
        #expect(
            result.standardError.contains("LiveryKit → SkinModel → SystemCalls: SystemCalls is not a portable target"),
            "\(result.transcript)")
        #expect(result.standardError.contains("LiveryKit → Logging (swift-log) is not an allowed product"))
        #expect(result.standardError.contains("LiveryProtocol sets unsafeFlags"))
    }
}
