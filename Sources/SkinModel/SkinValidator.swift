import LiveryJSON

/// Checks a skin completely — files, `skin.json`, `config.json`, every reference and every file's content —
/// and reports all problems at once, so an author fixes a skin in one round.
///
/// Pure apart from reading through the ``SkinSource``: no network, no clock. Never traps on bad input.
public struct SkinValidator: Sendable {
    public let limits: ValidationLimits

    public init(limits: ValidationLimits = .standard) { self.limits = limits }

    /// Validates the skin in `source`.
    ///
    /// - Parameter base: the app's base config (`localConfig.json`, same shape as `config.json`); when given,
    ///   the report carries ``CoverageReport`` and a `coverage.key-unknown` warning per key the base does not know.
    /// - Returns: a report; its ``ValidationReport/skin`` is present iff no error was found.
    public func validate(_ source: some SkinSource, base: JSONValue? = nil) -> ValidationReport {
        var issues: [ValidationIssue] = []
        let files: [SkinFile]
        do {
            files = try source.listFiles()
        } catch {
            issues.append(unreadable(nil, error))
            return ValidationReport(issues: issues, skin: nil, manifest: nil, coverage: nil)
        }
        guard files.count <= limits.maxFileCount else {
            issues.append(
                ValidationIssue(
                    severity: .error, code: .skinTooManyFiles, file: nil, value: .number(JSONNumber(files.count)),
                    message: "The skin has \(files.count) files, over the limit of \(limits.maxFileCount).",
                    fix:
                        "Remove files the config does not reference; a skin needs only config.json, skin.json and its assets."
                ))
            return ValidationReport(issues: issues, skin: nil, manifest: nil, coverage: nil)
        }

        let inventory = checkFiles(files, issues: &issues)
        let index = AssetIndex(inventory.present)
        for conflict in index.scaleConflicts {
            issues.append(
                ValidationIssue(
                    severity: .error, code: .assetScaleConflict, file: conflict.second.rawValue,
                    value: .string(conflict.second.rawValue),
                    message: "\"\(conflict.first)\" and \"\(conflict.second)\" are both the same scale of one image.",
                    fix: "Keep one of them; a name without @Nx already means @1x."))
        }

        // skin.json
        var manifest: SkinManifest?
        if let document = readJSON(
            "skin.json", source, inventory, issues: &issues,
            missing: (
                .manifestMissing,
                "The skin has no skin.json.",
                "Add skin.json with at least {\"id\": \"spring-festival-2027\", \"title\": \"Spring Festival 2027\", \"app\": \"demo\"}."
            ))
        {
            let parsed = SkinManifest.parse(document)
            issues.append(contentsOf: parsed.issues)
            manifest = parsed.value
            if let preview = parsed.value?.preview { checkPreview(preview, source, inventory, issues: &issues) }
        }

        // config.json
        var config: SkinConfig?
        var configDocument: JSONValue?
        if let document = readJSON(
            "config.json", source, inventory, issues: &issues,
            missing: (
                .configMissing,
                "The skin has no config.json.",
                "Add config.json with the modules the app reads, such as {\"home_tabbar\": {\"colors\": {\"color_background\": \"#F9F9F9\"}}}."
            ))
        {
            if let format = ForeignThemeFormat.detect(document) {
                // One error with the way out, rather than one per top-level key suggesting to wrap it in a module.
                issues.append(
                    ValidationIssue(
                        severity: .error, code: .configForeignTheme, file: "config.json",
                        message:
                            "config.json is \(format.articleName) theme (\(format.shape)), not a Livery config of modules.",
                        fix:
                            "Convert it into a skin folder with `\(format.importCommand)` (FILE: this file; DIR: a new folder), then validate or push DIR."
                    ))
            } else {
                configDocument = document
                var parser = ConfigParser(index: index)
                config = parser.parse(document)
                issues.append(contentsOf: parser.issues.issues)
            }
        }

        checkContents(source, inventory, issues: &issues)

        if let configDocument, configDocument.objectValue != nil {
            let previews = Set(manifest?.preview?.placed.map(\.path.rawValue) ?? [])
            warnAboutUnreferenced(
                configDocument, index: index, inventory: inventory, alsoUsed: previews, issues: &issues)
        }

        var coverage: CoverageReport?
        if let base, let configDocument {
            let report = CoverageReport.compare(
                skin: SkinConfig.effectiveDocument(configDocument, for: .light), base: base)
            coverage = report
            for unknown in report.unknownToBase {
                let hint = unknown.suggestion.map { "Did you mean \"\($0.identifier)\" (\($0))? " } ?? ""
                issues.append(
                    ValidationIssue(
                        severity: .warning, code: .coverageKeyUnknown, file: "config.json",
                        pointer: unknown.key.pointer.description,
                        value: .string(unknown.key.identifier),
                        message: "\"\(unknown.key)\" is not in the app's base config, so the app never asks for it.",
                        fix: "\(hint)Rename it to a key the app reads, or add it to the app's base config first."))
            }
        }

        var skin: ValidatedSkin?
        if let manifest, let config {
            skin = ValidatedSkin(manifest: manifest, config: config, files: files)
        }
        return ValidationReport(issues: issues, skin: skin, manifest: manifest, coverage: coverage)
    }

    // MARK: Files

    /// What the file checks learned: files that exist under a usable name, and those safe to read.
    struct Inventory {
        var present: [AssetPath] = []
        var readable: [AssetPath] = []
        var readableSet: Set<String> = []
        var rejected: Set<String> = []
    }

    private func checkFiles(_ files: [SkinFile], issues: inout [ValidationIssue]) -> Inventory {
        var inventory = Inventory()
        var total = 0
        var byLowercase: [String: String] = [:]
        for file in files {
            let name = file.path
            guard file.nameIsValidUTF8 else {
                issues.append(
                    fileIssue(
                        .pathNotUTF8, name,
                        "The file name \"\(name)\" is not valid UTF-8 (invalid bytes shown as \u{FFFD}).",
                        "Rename the file with a UTF-8 name; ASCII letters, digits, '-' and '_' are safest on every phone."
                    ))
                continue
            }
            let path: AssetPath
            do {
                path = try AssetPath(validating: name)
            } catch {
                switch error {
                case .absolute:
                    issues.append(
                        fileIssue(
                            .pathAbsolute, name, "The entry \"\(name)\" has an absolute path.",
                            "Store files relative to the skin folder."))
                case .parentSegment:
                    issues.append(
                        fileIssue(
                            .pathEscape, name, "The entry \"\(name)\" climbs out of the skin folder with '..'.",
                            "Store files inside the skin folder, with no '..' in their paths."))
                case .malformed(let reason):
                    issues.append(
                        fileIssue(
                            .pathInvalid, name, "The entry \"\(name)\" is not a usable path: \(reason).",
                            "Rename it to a plain relative path such as \"images/tab_home.png\"."))
                }
                continue
            }
            inventory.present.append(path)
            if let other = byLowercase[name.lowercased()] {
                issues.append(
                    fileIssue(
                        .pathCaseCollision, name,
                        "\"\(other)\" and \"\(name)\" differ only in letter case; on case-insensitive phone file systems one overwrites the other.",
                        "Rename one of them so the names differ by more than case."))
            } else {
                byLowercase[name.lowercased()] = name
            }
            switch file.kind {
            case .symlink:
                inventory.rejected.insert(name)
                issues.append(
                    fileIssue(
                        .pathSymlink, name,
                        "\"\(name)\" is a symbolic link; links are never followed because they can point outside the skin.",
                        "Replace the link with a copy of the file it points to."))
            case .other:
                inventory.rejected.insert(name)
                issues.append(
                    fileIssue(
                        .pathSpecialFile, name,
                        "\"\(name)\" is not a regular file (a FIFO, socket or device).",
                        "Remove it from the skin folder."))
            case .regular:
                total += file.size
                if file.size > limits.maxFileBytes {
                    inventory.rejected.insert(name)
                    issues.append(
                        fileIssue(
                            .fileTooLarge, name,
                            "\"\(name)\" is \(file.size) bytes, over the limit of \(limits.maxFileBytes) bytes per file.",
                            "Shrink it (export images at the size shown, compress animations), or raise the limit."))
                } else {
                    inventory.readable.append(path)
                    inventory.readableSet.insert(name)
                }
            }
        }
        if total > limits.maxTotalBytes {
            issues.append(
                ValidationIssue(
                    severity: .error, code: .skinTooLarge, file: nil, value: .number(JSONNumber(total)),
                    message: "The skin's files total \(total) bytes, over the limit of \(limits.maxTotalBytes) bytes.",
                    fix: "Remove files the config does not reference and shrink large images, or raise the limit."))
        }
        return inventory
    }

    private func fileIssue(
        _ code: ValidationIssue.Code, _ name: String, _ message: String, _ fix: String
    ) -> ValidationIssue {
        ValidationIssue(severity: .error, code: code, file: name, value: .string(name), message: message, fix: fix)
    }

    private func unreadable(_ file: String?, _ error: SkinSourceError) -> ValidationIssue {
        ValidationIssue(
            severity: .error, code: .sourceUnreadable, file: file,
            message: "The skin could not be read: \(error).",
            fix: "Check that the skin folder exists and that its files are readable.")
    }

    /// Reads and parses `name` when it is present and readable; reports it missing or unparsable otherwise.
    private func readJSON(
        _ name: String, _ source: some SkinSource, _ inventory: Inventory, issues: inout [ValidationIssue],
        missing: (ValidationIssue.Code, String, String)
    ) -> JSONValue? {
        guard inventory.present.contains(where: { $0.rawValue == name }) else {
            issues.append(
                ValidationIssue(severity: .error, code: missing.0, file: name, message: missing.1, fix: missing.2))
            return nil
        }
        guard inventory.readableSet.contains(name) else { return nil }
        switch loadJSON(name, source) {
        case .success(let document): return document
        case .failure(let problem): issues.append(problem.issue)
        }
        return nil
    }

    /// A file that could not be loaded as JSON, as the issue to report.
    private struct LoadProblem: Error {
        var issue: ValidationIssue
    }

    private func loadJSON(_ name: String, _ source: some SkinSource) -> Result<JSONValue, LoadProblem> {
        let bytes: [UInt8]
        do {
            bytes = try source.read(name)
        } catch {
            return .failure(LoadProblem(issue: unreadable(name, error)))
        }
        do {
            return .success(try JSONValue.parse(bytes))
        } catch {
            return .failure(LoadProblem(issue: ValidationIssue.jsonParseFailure(error, file: name)))
        }
    }

    /// The issue for a JSON asset that is unreadable or not strict JSON; `nil` when it is fine. Only syntax
    /// matters for assets (apps hand them to Lottie and the like), so no tree is built: the same errors as a
    /// full parse, without its cost.
    private func checkJSONSyntax(_ name: String, _ source: some SkinSource) -> ValidationIssue? {
        let bytes: [UInt8]
        do {
            bytes = try source.read(name)
        } catch {
            return unreadable(name, error)
        }
        do {
            try JSONValue.validateSyntax(bytes)
            return nil
        } catch {
            return ValidationIssue.jsonParseFailure(error, file: name)
        }
    }

    // MARK: Contents

    /// Checks each readable file against the type its extension claims: magic numbers for images, a strict
    /// syntax check for JSON (other than `skin.json` and `config.json`, parsed on their own).
    private func checkContents(_ source: some SkinSource, _ inventory: Inventory, issues: inout [ValidationIssue]) {
        for path in inventory.readable where !AssetIndex.reservedPaths.contains(path.rawValue) {
            guard let expected = FileSignature(fileExtension: path.lowercasedExtension) else { continue }
            let name = path.rawValue
            if expected == .json {
                if let issue = checkJSONSyntax(name, source) { issues.append(issue) }
                continue
            }
            let prefix: [UInt8]
            do {
                prefix = try source.readPrefix(name, maxBytes: FileSignature.prefixLength)
            } catch {
                issues.append(unreadable(name, error))
                continue
            }
            guard !expected.matches(prefix) else { continue }
            let actual: String
            if prefix.isEmpty {
                actual = "the file is empty"
            } else if let detected = FileSignature.detect(prefix) {
                actual = "its bytes are a \(detected.rawValue)"
            } else {
                actual =
                    "its bytes are not a \(expected.rawValue) (they start with \(prefix.prefix(8).map(hex2).joined(separator: " ")))"
            }
            let rename =
                FileSignature.detect(prefix).map {
                    " or rename it to ." + ($0 == .jpeg ? "jpg" : $0.rawValue.lowercased())
                } ?? ""
            issues.append(
                ValidationIssue(
                    severity: .error, code: .assetTypeMismatch, file: name, value: .string(name),
                    message:
                        "\"\(name)\" is named as a \(expected.rawValue) but \(actual); apps would fail to decode it.",
                    fix: "Re-export it as a real \(expected.rawValue)\(rename)."))
        }
    }

    // MARK: Previews

    /// Checks each preview image: present, readable, a PNG, JPEG or WebP whose header parses, and a declared size
    /// within ``PreviewImages/minimumSide``…``PreviewImages/maximumSide`` per side. Only the header is read.
    private func checkPreview(
        _ preview: PreviewImages, _ source: some SkinSource, _ inventory: Inventory, issues: inout [ValidationIssue]
    ) {
        for (pointer, path) in preview.placed {
            let name = path.rawValue
            let value = JSONValue.string(name)
            guard inventory.present.contains(path) else {
                issues.append(
                    ValidationIssue(
                        severity: .error, code: .previewMissing, file: "skin.json", pointer: pointer.description,
                        value: value,
                        message: "The preview \"\(name)\" is not in the skin.",
                        fix: "Add the image to the skin folder, or correct the path."))
                continue
            }
            // A file refused by the file checks (too large, a link) is reported there.
            guard inventory.readableSet.contains(name) else { continue }
            let prefix: [UInt8]
            do {
                prefix = try source.readPrefix(name, maxBytes: ImageHeader.prefixLength)
            } catch {
                issues.append(unreadable(name, error))
                continue
            }
            switch ImageHeader.read(prefix) {
            case .failure(let problem):
                issues.append(
                    ValidationIssue(
                        severity: .error, code: .previewTypeUnsupported, file: "skin.json",
                        pointer: pointer.description,
                        value: value, message: "The preview \"\(name)\" cannot be shown: \(problem).",
                        fix: "Export the preview as a PNG, JPEG or WebP image."))
            case .success(let header):
                let sides = PreviewImages.minimumSide...PreviewImages.maximumSide
                guard !sides.contains(header.width) || !sides.contains(header.height) else { continue }
                issues.append(
                    ValidationIssue(
                        severity: .error, code: .previewDimensions, file: "skin.json", pointer: pointer.description,
                        value: value,
                        message:
                            "The preview \"\(name)\" is \(header.width)×\(header.height) pixels; each side must be from \(sides.lowerBound) to \(sides.upperBound).",
                        fix:
                            "Export the preview at a size within \(sides.lowerBound) to \(sides.upperBound) pixels per side, such as 750×1334."
                    ))
            }
        }
    }

    // MARK: Unreferenced files

    /// Warns about files nothing uses: neither `config.json` (light or dark) nor `alsoUsed` (the previews).
    private func warnAboutUnreferenced(
        _ document: JSONValue, index: AssetIndex, inventory: Inventory, alsoUsed: Set<String>,
        issues: inout [ValidationIssue]
    ) {
        // Work from the document rather than the parsed config, so a config with some errors still
        // reports its unreferenced files; any reference that resolves counts, light or dark.
        var referenced = alsoUsed
        var parser = ConfigParser(index: index)
        func visit(_ section: ConfigSection, _ entry: JSONObject.Member, module: String) {
            guard ConfigKey.isValidIdentifier(entry.key) else { return }
            switch section {
            case .images:
                let pointer = JSONPointer(tokens: [module, section.rawValue, entry.key])
                if case .asset(let asset)? = parser.parseImage(entry.value, at: pointer) {
                    referenced.formUnion(asset.variants.map(\.path.rawValue))
                }
            case .resources:
                if let text = entry.value.stringValue { referenced.insert(text) }
            case .colors, .values:
                break
            }
        }
        // Only the images and resources sections can reference files; the walk visits nothing else and builds
        // no list of keys nor any effective document (a large config has hundreds of thousands of keys). The
        // light document is the config without "dark"; the dark one differs only where a dark value replaces a
        // light entry that exists (`SkinConfig.effectiveDocument`), so those values are all it can add.
        let root = document.objectValue ?? JSONObject()
        let sectionsWithFiles = [ConfigSection.images, .resources]
        for module in root where module.key != SkinConfig.darkKey {
            guard let sections = module.value.objectValue else { continue }
            for section in sectionsWithFiles {
                guard let entries = sections[section.rawValue]?.objectValue else { continue }
                for entry in entries { visit(section, entry, module: module.key) }
            }
        }
        for module in root[SkinConfig.darkKey]?.objectValue ?? JSONObject() where module.key != SkinConfig.darkKey {
            guard let sections = root[module.key]?.objectValue, let darkSections = module.value.objectValue else {
                continue
            }
            for section in sectionsWithFiles {
                guard let entries = sections[section.rawValue]?.objectValue,
                    let darkEntries = darkSections[section.rawValue]?.objectValue
                else { continue }
                for entry in darkEntries where entries[entry.key] != nil { visit(section, entry, module: module.key) }
            }
        }
        for path in inventory.present {
            let name = path.rawValue
            guard !AssetIndex.reservedPaths.contains(name), !referenced.contains(name),
                !inventory.rejected.contains(name)
            else { continue }
            issues.append(
                ValidationIssue(
                    severity: .warning, code: .assetUnreferenced, file: name, value: .string(name),
                    message: "Nothing in config.json references \"\(name)\"; it is left out of every package.",
                    fix: "Reference it from config.json (images or resources), or delete it from the skin."))
        }
    }
}
