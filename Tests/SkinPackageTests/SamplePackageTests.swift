import Foundation
import SkinModel
import SkinPackage
import TestSupport
import Testing

/// Every sample skin in every variant, checked by readers we did not write against the source folder.
@Suite struct SamplePackageTests {
    @Test(arguments: Samples.names, PackageVariant.all)
    func packageOpensInIndependentReadersAndHoldsTheSourceBytes(sample: String, variant: PackageVariant) async throws {
        let folder = Samples.folder(sample)
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(of: folder, variant, in: scratch)
        let plan = try validatedSkin(at: folder).packagePlan(for: variant)

        #expect(package.contents.names == plan.names)
        #expect(package.summary.entryCount == plan.entries.count)
        let digest = try await ExternalTool.sha256(ofFile: package.path)
        #expect(package.summary.sha256 == digest)
        #expect(package.summary.size == UInt64(readFile(package.path)?.count ?? -1))
        for name in package.contents.names {
            let expected: [UInt8]?
            if case .bytes(let generated) = plan.entries.first(where: { $0.name == name })?.content,
                name == "config.json"
            {
                expected = generated
            } else {
                expected = readFile(folder + "/" + name)
            }
            #expect(expected != nil, "\(name) is neither the generated config nor a source file")
            #expect(ByteString(package.contents.files[name]) == ByteString(expected), "\(name) differs from its source")
        }
    }

    @Test(arguments: Samples.names, PackageVariant.all)
    func packageHoldsExactlyWhatItsConfigReferencesAtTheChosenScale(
        sample: String, variant: PackageVariant
    ) async throws {
        let folder = Samples.folder(sample)
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(of: folder, variant, in: scratch)
        let config = try parsedConfig(package.contents)
        #expect(config["dark"] == nil, "apps never see the dark overrides object")

        let sourceFiles = ReferenceOracle.files(under: folder)
        let references = ReferenceOracle.references(in: config)
        var expected: Set<String> = ["config.json"]
        for resource in references.resources {
            #expect(package.contents.files[resource] != nil, "resource \(resource) is not in the package")
            expected.insert(resource)
        }
        for image in references.images {
            let file = try #require(
                ReferenceOracle.expectedFile(for: image, scale: variant.scale, among: sourceFiles),
                "the source has no file for image \(image)")
            #expect(package.contents.files[file] != nil, "image \(image) needs \(file) in the \(variant) package")
            expected.insert(file)
        }
        #expect(Set(package.contents.names) == expected, "files nothing references were packed, or files are missing")
        #expect(references.images.count > 0 && references.resources.count > 0, "the sample exercises both kinds")
    }

    @Test(arguments: Samples.names)
    func imagesAreStoredAndJSONIsDeflated(sample: String) async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(of: Samples.folder(sample), .standard, in: scratch)
        for (name, method) in package.contents.methods {
            let lowered = name.lowercased()
            if lowered.hasSuffix(".png") || lowered.hasSuffix(".gif") {
                #expect(method == 0, "\(name) is already compressed and should be stored")
            } else if lowered.hasSuffix(".json") {
                #expect(method == 8, "\(name) is text and should be deflated")
            }
        }
    }
}
