import LiveryJSON

/// The configs of a built package, read back: what an app reads from the package it downloaded.
///
/// A package holds `config.json` for the appearance it was built for (the effective document: dark packages have
/// the dark overrides merged in and no `"dark"` key), or, for ``PackageAppearance/any``, the light `config.json`
/// and the dark ``ValidatedSkin/darkConfigName``, plus the files they reference. Each config is parsed with the same
/// strict JSON parser and the same config rules (`ConfigParser`) the server validated the skin with, its
/// references resolved against the package's own files, so what the app reads and what the server accepted cannot
/// drift. Warnings (such as a missing image scale, which packages drop on purpose) are kept, not refused.
public struct PackageConfig: Sendable, Equatable {
    /// The appearances the package holds.
    public let contents: PackageAppearance
    /// The parsed config of each appearance the package holds. Each is a whole effective document without dark
    /// overrides, so its ``SkinConfig/modules`` are what the app sees in that appearance.
    public let configs: [Appearance: SkinConfig]
    /// The package's files other than its configs, sorted bytewise.
    public let files: [AssetPath]
    /// Warnings found while reading (errors make ``read(_:contents:)`` throw instead).
    public let warnings: [ValidationIssue]

    /// The modules an app sees in `appearance`; `nil` when the package does not hold that appearance.
    public func modules(for appearance: Appearance) -> [SkinModule]? { configs[appearance]?.modules }

    /// The entry name of `appearance`'s config in a package holding `contents`, or `nil` when it holds no such
    /// config: `config.json`, or ``ValidatedSkin/darkConfigName`` for the dark config of a package holding both.
    public static func configName(for appearance: Appearance, in contents: PackageAppearance) -> String? {
        guard contents.appearances.contains(appearance) else { return nil }
        return contents == .any && appearance == .dark ? ValidatedSkin.darkConfigName : "config.json"
    }

    /// Reads the package in `source` (an unpacked folder, or its entries in memory) built for `contents`.
    ///
    /// - Throws: ``PackageConfigError/unreadable(_:)`` when the source cannot be listed or a config read;
    ///   ``PackageConfigError/invalid(_:)`` with every error found (a config missing, not JSON, or breaking a
    ///   config rule; a file name that is not a plain relative path), each with its file, JSON pointer and fix.
    public static func read(
        _ source: some SkinSource, contents: PackageAppearance
    ) throws(PackageConfigError) -> PackageConfig {
        let listed: [SkinFile]
        do {
            listed = try source.listFiles()
        } catch {
            throw .unreadable(error)
        }
        let configNames = Set(contents.appearances.compactMap { configName(for: $0, in: contents) })
        var issues: [ValidationIssue] = []
        var files: [AssetPath] = []
        var present: Set<String> = []
        for file in listed {
            present.insert(file.path)
            guard !configNames.contains(file.path) else { continue }
            guard file.kind == .regular, file.nameIsValidUTF8, let path = try? AssetPath(validating: file.path) else {
                issues.append(
                    ValidationIssue(
                        severity: .error, code: .pathInvalid, file: file.path, value: .string(file.path),
                        message: "The package entry \"\(file.path)\" is not a regular file with a plain relative path.",
                        fix: "Download the package again; packages Livery builds hold only such files."))
                continue
            }
            files.append(path)
        }
        let index = AssetIndex(files)
        var configs: [Appearance: SkinConfig] = [:]
        for appearance in contents.appearances {
            guard let name = configName(for: appearance, in: contents) else { continue }
            guard present.contains(name) else {
                issues.append(
                    ValidationIssue(
                        severity: .error, code: .configMissing, file: name,
                        message: "The package has no \(name).",
                        fix: "Download the package again; a package built for \(contents.rawValue) holds \(name)."))
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try source.read(name)
            } catch {
                throw .unreadable(error)
            }
            let document: JSONValue
            do {
                document = try JSONValue.parse(bytes)
            } catch {
                issues.append(ValidationIssue.jsonParseFailure(error, file: name))
                continue
            }
            var parser = ConfigParser(index: index, file: name)
            if let config = parser.parse(document) { configs[appearance] = config }
            issues.append(contentsOf: parser.issues.issues)
        }
        let errors = issues.filter { $0.severity == .error }
        guard errors.isEmpty else { throw .invalid(errors) }
        return PackageConfig(
            contents: contents, configs: configs, files: files.sorted(),
            warnings: issues.filter { $0.severity != .error })
    }
}

/// Why a package's configs could not be read back.
public enum PackageConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The package's files could not be listed or a config read.
    case unreadable(SkinSourceError)
    /// The errors found, in order, each naming its file and JSON pointer.
    case invalid([ValidationIssue])

    public var description: String {
        switch self {
        case .unreadable(let error): "the package cannot be read: \(error)"
        case .invalid(let issues): issues.map(\.message).joined(separator: " ")
        }
    }
}
