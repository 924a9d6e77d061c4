import LiveryJSON

/// A foreign theme (``ForeignThemeFormat``) turned into the files of a Livery skin folder that validates.
///
/// The converted `config.json` is validated like any skin; every entry the validator refuses (a color no app
/// reads, an image whose file was not found, an `http://` image) is taken out and reported by the source's
/// name, and so is every copied file the validator refuses (a `.png` that is not a PNG). Copied images that
/// nothing references are left out silently. Pure: the caller reads the theme and its images and writes the
/// result.
public struct ThemeImport: Sendable {
    /// The skin folder's files: `skin.json`, `config.json` (both pretty-printed) and the images kept.
    public let files: [String: [UInt8]]
    /// The validation report of ``files``.
    public let report: ValidationReport
    /// Every source value or file that was not carried over, in the order found.
    public let dropped: [ImportNote]

    /// Converts `document` (a theme in `format`) into a skin named by `manifest`, with `images` (skin-relative
    /// names, such as the files found beside the theme) available to its references.
    public init(
        format: ForeignThemeFormat, document: JSONValue, manifest: SkinManifest, images: [String: [UInt8]],
        limits: ValidationLimits = .standard
    ) {
        let conversion = format.convert(document)
        var config = conversion.config.objectValue ?? JSONObject()
        var dropped = conversion.dropped
        var files = images
        files["skin.json"] = manifest.jsonValue.serialized(.pretty)
        var report: ValidationReport
        var removed = Set<String>()
        // Each round takes out what the last one refused; a removal cannot create a new refusal except an image
        // whose file was taken out, which the next round catches.
        var rounds = 0
        repeat {
            files["config.json"] = JSONValue.object(config).serialized(.pretty)
            report = SkinValidator(limits: limits).validate(InMemorySkinSource(files: files))
            var changed = false
            for issue in report.errors {
                if issue.file == "config.json", let tokens = JSONPointer(parsing: issue.pointer)?.tokens,
                    tokens.count >= 3,
                    tokens[0] == ForeignThemeFormat.moduleName, var sections = config[tokens[0]]?.objectValue,
                    var entries = sections[tokens[1]]?.objectValue, entries[tokens[2]] != nil
                {
                    let key = "\(tokens[1])/\(tokens[2])"
                    entries[tokens[2]] = nil
                    sections[tokens[1]] = .object(entries)
                    config[tokens[0]] = .object(sections)
                    if removed.insert(key).inserted {
                        dropped.append(ImportNote(name: conversion.sourceNames[key] ?? key, reason: issue.message))
                    }
                    changed = true
                } else if let file = issue.file, !AssetIndex.reservedPaths.contains(file), files[file] != nil {
                    files[file] = nil
                    dropped.append(ImportNote(name: file, reason: issue.message))
                    changed = true
                }
            }
            rounds += 1
            guard changed, rounds < 4 else { break }
        } while true
        let unreferenced = report.warnings.filter { $0.code == .assetUnreferenced }.compactMap(\.file)
        if !unreferenced.isEmpty {
            for file in unreferenced { files[file] = nil }
            report = SkinValidator(limits: limits).validate(InMemorySkinSource(files: files))
        }
        self.files = files
        self.report = report
        self.dropped = dropped
    }
}
