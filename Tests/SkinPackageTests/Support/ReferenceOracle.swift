import Foundation

/// An independent reading of what a package's `config.json` needs, written for the tests from the documented
/// rules rather than from Livery's resolver: which files the config names, and which scale of each image a
/// package for a given screen scale must carry.
enum ReferenceOracle {
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp"]

    /// The local image references and resource paths in a parsed `config.json` (remote URLs and solid colors
    /// need no file).
    static func references(in config: [String: Any]) -> (images: [String], resources: [String]) {
        var images: [String] = []
        var resources: [String] = []
        for (_, module) in config {
            guard let sections = module as? [String: Any] else { continue }
            for (_, value) in (sections["images"] as? [String: Any]) ?? [:] {
                if let name = localImageName(value) { images.append(name) }
            }
            for (_, value) in (sections["resources"] as? [String: Any]) ?? [:] {
                if let path = value as? String { resources.append(path) }
            }
        }
        return (images.sorted(), resources.sorted())
    }

    /// `tab_home`, `file://tab_home.png`, `{"name"|"file": …}`, `{"type": 0|1, "name"|"path": …}` name a file;
    /// `https://…`, `{"color": …}` and types 2 and 3 do not.
    private static func localImageName(_ value: Any) -> String? {
        var name: String?
        if let text = value as? String {
            name = text
        } else if let object = value as? [String: Any] {
            if object["color"] != nil { return nil }
            if let type = object["type"] as? Int, type == 2 || type == 3 { return nil }
            name = (object["name"] ?? object["file"] ?? object["path"]) as? String
        }
        guard var name, !name.hasPrefix("https://") else { return nil }
        if name.hasPrefix("file://") { name.removeFirst("file://".count) }
        return name
    }

    /// A file name split as images are named: `icons/tab@2x.png` → stem `icons/tab`, scale 2 (pinned), `png`.
    struct ImageName: Equatable {
        var stem: String
        var scale: Int?
        var fileExtension: String?

        init(_ path: String) {
            var base = path
            let fileName = path.split(separator: "/").last.map(String.init) ?? path
            if let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex,
                ReferenceOracle.imageExtensions.contains(fileName[fileName.index(after: dot)...].lowercased())
            {
                fileExtension = String(fileName[fileName.index(after: dot)...])
                base = String(path.dropLast(fileExtension.map { $0.count + 1 } ?? 0))
            }
            for candidate in 1...3 where base.hasSuffix("@\(candidate)x") {
                scale = candidate
                base.removeLast(3)
            }
            stem = base
        }
    }

    /// The one file of image `reference` that a package for `scale` must hold, chosen among `files` (all the
    /// skin's relative paths): the pinned file when the reference names a scale; else the file for `scale`, or the
    /// nearest scale available, the higher one on a tie.
    static func expectedFile(for reference: String, scale: Int, among files: [String]) -> String? {
        let wanted = ImageName(reference)
        let candidates = files.compactMap { file -> (scale: Int, path: String)? in
            let name = ImageName(file)
            guard name.fileExtension != nil, name.stem == wanted.stem else { return nil }
            if let fileExtension = wanted.fileExtension, name.fileExtension != fileExtension { return nil }
            return (name.scale ?? 1, file)
        }
        if let pinned = wanted.scale { return candidates.first { $0.scale == pinned }?.path }
        return candidates.min { a, b in
            let da = abs(a.scale - scale)
            let db = abs(b.scale - scale)
            return da != db ? da < db : a.scale > b.scale
        }?.path
    }

    /// Every file under `folder`, relative to it, sorted.
    static func files(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + next, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(next)
            }
        }
        return files.sorted()
    }
}
