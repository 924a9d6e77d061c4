import Foundation
import SkinModel
import SkinPackage
import TestSupport
import Testing
import ZipReading

/// `PackageConfig`: a built package's configs, read back as an app reads them, with the rules the server used.
@Suite struct PackageConfigTests {
    /// The package's files, unpacked one at a time by the portable reader into memory.
    static func unpack(_ path: String) throws -> InMemorySkinSource {
        var files: [String: [UInt8]] = [:]
        try ZipArchiveReader.forEachFile(inArchiveAt: URL(fileURLWithPath: path)) { files[$0.name.rawValue] = $0.bytes }
        return InMemorySkinSource(files: files)
    }

    static let variants = PackageVariant.all + PackageVariant.bothAppearances

    @Test(arguments: Samples.names)
    func readsBackEveryVariantOfTheSamplesAsTheServerValidatedThem(_ name: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-config")
        let skin = try validatedSkin(at: Samples.folder(name))
        for variant in Self.variants {
            let package = try await buildPackage(of: Samples.folder(name), variant, in: scratch, name: "\(variant).zip")
            let read = try PackageConfig.read(try Self.unpack(package.path), contents: variant.appearance)
            #expect(read.contents == variant.appearance)
            for appearance in Appearance.allCases {
                guard variant.appearance.appearances.contains(appearance) else {
                    #expect(read.modules(for: appearance) == nil, "\(name) \(variant) holds no \(appearance) config")
                    continue
                }
                let modules = try #require(read.modules(for: appearance), "\(name) \(variant) \(appearance)")
                let expected = skin.config.modules(for: appearance)
                #expect(modules.map(\.name) == expected.map(\.name))
                #expect(modules.map(\.colors) == expected.map(\.colors), "\(name) \(variant) \(appearance)")
                #expect(modules.map(\.values) == expected.map(\.values), "\(name) \(variant) \(appearance)")
                #expect(modules.map { $0.images.map(\.identifier) } == expected.map { $0.images.map(\.identifier) })
                #expect(modules.map(\.resources) == expected.map(\.resources), "\(name) \(variant) \(appearance)")
            }
            let configs = Set(["config.json", ValidatedSkin.darkConfigName])
            #expect(
                read.files.map(\.rawValue)
                    == package.contents.files.keys.filter { !configs.contains($0) }.sorted {
                        Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
                    })
        }
    }

    @Test func namesTheConfigOfEachAppearanceAsThePackagerWritesIt() {
        #expect(PackageConfig.configName(for: .light, in: .light) == "config.json")
        #expect(PackageConfig.configName(for: .dark, in: .dark) == "config.json")
        #expect(PackageConfig.configName(for: .dark, in: .light) == nil)
        #expect(PackageConfig.configName(for: .light, in: .any) == "config.json")
        #expect(PackageConfig.configName(for: .dark, in: .any) == "config-dark.json")
    }

    @Test func refusesAConfigThatIsNotStrictJSONNamingTheFileAndPlace() throws {
        let source = InMemorySkinSource(files: [
            "config.json": Array("{\"home\": {\"colors\": {\"bg\": \"#FFFFFF\",}}}".utf8)
        ])
        let error = #expect(throws: PackageConfigError.self) { try PackageConfig.read(source, contents: .light) }
        guard case .invalid(let issues) = error else {
            Issue.record("expected .invalid, got \(String(describing: error))"); return
        }
        #expect(issues.map(\.code) == [.jsonSyntax])
        #expect(issues.first?.file == "config.json" && issues.first?.line == 1)
    }

    @Test func refusesAReferenceToAFileThePackageDoesNotHold() throws {
        let config = #"{"home": {"images": {"banner": "file://images/banner.png"}}}"#
        let source = InMemorySkinSource(files: ["config.json": Array(config.utf8)])
        let error = #expect(throws: PackageConfigError.self) { try PackageConfig.read(source, contents: .light) }
        guard case .invalid(let issues) = error else {
            Issue.record("expected .invalid, got \(String(describing: error))"); return
        }
        #expect(issues.count == 1)
        #expect(issues.first?.file == "config.json" && issues.first?.pointer == "/home/images/banner")
    }

    @Test func refusesAPackageMissingTheDarkConfigItWasBuiltToHold() throws {
        let source = InMemorySkinSource(files: [
            "config.json": Array(##"{"home": {"colors": {"bg": "#FFFFFF"}}}"##.utf8)
        ])
        #expect(try PackageConfig.read(source, contents: .light).modules(for: .light)?.first?.colors.count == 1)
        let error = #expect(throws: PackageConfigError.self) { try PackageConfig.read(source, contents: .any) }
        guard case .invalid(let issues) = error else {
            Issue.record("expected .invalid, got \(String(describing: error))"); return
        }
        #expect(issues.map(\.code) == [.configMissing])
        #expect(issues.first?.file == "config-dark.json")
    }
}
