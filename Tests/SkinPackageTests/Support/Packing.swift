import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing
import ZipArchive

/// A package built in a test, with what the independent readers found in it.
struct BuiltPackage {
    var path: String
    var summary: ZipArchiveSummary
    var contents: ArchiveContents
}

/// Validates the skin at `folder`, builds `variant` into `scratch` as `name`, and reads it back with the
/// independent readers.
func buildPackage(
    of folder: String, _ variant: PackageVariant, in scratch: ScratchDirectory, name: String = "package.zip",
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> BuiltPackage {
    let skin = try validatedSkin(at: folder, sourceLocation: sourceLocation)
    let packager = try SkinPackager(skin: skin, source: DirectorySkinSource(path: folder))
    let path = scratch.path(name)
    let summary = try packager.build(variant, to: path)
    let contents = try await IndependentReaders.read(path, sourceLocation: sourceLocation)
    return BuiltPackage(path: path, summary: summary, contents: contents)
}

/// The package's `config.json` parsed by Foundation (not by Livery's own JSON parser).
func parsedConfig(
    _ contents: ArchiveContents, sourceLocation: SourceLocation = #_sourceLocation
) throws -> [String: Any] {
    let bytes = try #require(
        contents.files["config.json"], "the package has no config.json", sourceLocation: sourceLocation)
    let document = try JSONSerialization.jsonObject(with: Data(bytes))
    return try #require(document as? [String: Any], "config.json is not an object", sourceLocation: sourceLocation)
}

/// Reads a string at a path of object keys (`["home_navi", "colors", "color_background"]`).
func string(in document: [String: Any], _ keys: String...) -> String? {
    var current: Any? = document
    for key in keys { current = (current as? [String: Any])?[key] }
    return current as? String
}
