import Foundation
import SkinDirectory
import SkinModel
import Testing

/// The sample skins under `skins/`.
enum Samples {
    static let names = ["spring-festival-2027", "christmas-2026", "double-11-2026"]

    /// The package root (the folder holding `Tests/SkinPackageTests/Support/`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path

    /// The folder of sample `name`.
    static func folder(_ name: String) -> String { packageRoot + "/skins/" + name }
}

/// Validates the skin folder at `path` and returns it, failing the test with the report when it is invalid.
func validatedSkin(at path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ValidatedSkin {
    let report = SkinValidator().validate(DirectorySkinSource(path: path))
    return try #require(report.skin, "\(path) is not valid: \(report.issues)", sourceLocation: sourceLocation)
}

/// A variant from its parts, failing the test for a scale outside 1...3.
func variant(_ scale: Int, _ appearance: Appearance) throws -> PackageVariant {
    try #require(PackageVariant(scale: scale, appearance: appearance))
}

/// A small but real PNG (a sample skin's file), made unique by `marker` bytes appended after IEND, which
/// readers ignore and the validator's magic-number check allows; distinct markers make files tell apart.
func samplePNG(marker: String) -> [UInt8] {
    (readFile(Samples.folder("spring-festival-2027") + "/tab_home.png") ?? []) + Array(marker.utf8)
}
