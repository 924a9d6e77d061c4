import Foundation
import LiveryJSON
import SkinModel
import TestSupport
import Testing

/// Small byte strings that start like each file type (the validator checks magic numbers only).
enum Bytes {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1]
    static let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0]
    static let webp: [UInt8] = Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WEBPVP8L".utf8)
    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }
}

/// Builders for test skins, in memory or as temporary folders.
enum Fixture {
    static let manifest = #"{"id": "test-skin", "title": "Test Skin", "app": "demo"}"#

    /// A skin whose `config.json` is `config` plus `files`; `skin.json` defaults to a minimal valid manifest.
    static func make(
        config: String, files: [String: [UInt8]] = [:], manifest: String? = Fixture.manifest
    ) -> InMemorySkinSource {
        var all = files
        all["config.json"] = Bytes.text(config)
        if let manifest { all["skin.json"] = Bytes.text(manifest) }
        return InMemorySkinSource(files: all)
    }

    /// A skin with one module `m` whose `section` holds `{"k": value}` (value is JSON text).
    static func make(section: String, value: String, files: [String: [UInt8]] = [:]) -> InMemorySkinSource {
        make(config: #"{"m": {"\#(section)": {"k": \#(value)}}}"#, files: files)
    }

    /// Writes `files` into a fresh scratch folder, removed when the returned value goes away (keep it in a local).
    static func makeDirectory(_ files: [String: [UInt8]]) throws -> ScratchDirectory {
        let folder = try ScratchDirectory(prefix: "skinmodel")
        try folder.write(files)
        return folder
    }

    /// The package root (three levels above this file).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}

extension ValidationReport {
    /// The codes of all issues, in order.
    var codes: [String] { issues.map(\.code.rawValue) }
    /// The first issue with `code`.
    func first(_ code: ValidationIssue.Code) -> ValidationIssue? { issues.first { $0.code == code } }
}

func validate(
    _ source: some SkinSource, base: JSONValue? = nil, limits: ValidationLimits = .standard
) -> ValidationReport {
    SkinValidator(limits: limits).validate(source, base: base)
}
