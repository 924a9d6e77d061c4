import Foundation
import HTTPTestSupport
import ZipArchive
import ZipReading

/// Skin folders as file maps, and zips of them, for upload tests.
enum SkinArchives {
    /// A minimal valid skin: `skin.json` (with `release` when given) and a `config.json` holding one color and a
    /// marker value, so two markers give two versions with different packages.
    static func tiny(
        id: String = "tiny", app: String = "demo", marker: String = "1", release: String? = nil
    ) -> [String: [UInt8]] {
        let releasePart = release.map { #","release":\#($0)"# } ?? ""
        return [
            "skin.json": Array(#"{"id":"\#(id)","title":"Tiny \#(marker)","app":"\#(app)"\#(releasePart)}"#.utf8),
            "config.json": Array(
                ##"{"home":{"colors":{"color_background":"#FFFFFF"},"values":{"value_marker":"\##(marker)"}}}"##.utf8)
        ]
    }

    /// The files of the repository's sample skin `name`, without its `release` (so uploads of it are not
    /// scheduled by accident).
    static func sample(_ name: String) throws -> [String: [UInt8]] {
        let root = LiveryHarness.repository.path + "/skins/" + name
        var files: [String: [UInt8]] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            throw TestClientError("no sample \(name)")
        }
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            files[relative] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
        }
        guard let manifest = files["skin.json"],
            var object = try JSONSerialization.jsonObject(with: Data(manifest)) as? [String: Any]
        else { throw TestClientError("sample \(name) has no skin.json") }
        object["release"] = nil
        files["skin.json"] = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        return files
    }

    /// A deterministic zip of `files`, each under `folder/` when given (as "compress folder" makes them).
    static func zip(_ files: [String: [UInt8]], folder: String? = nil) throws -> [UInt8] {
        var output = ZipMemoryOutput()
        let entries = try files.map { path, bytes in
            ZipEntry(name: try ZipEntryName(folder.map { $0 + "/" + path } ?? path), source: .bytes(bytes))
        }
        try ZipArchiveWriter.write(entries, to: &output)
        return output.bytes
    }
}
