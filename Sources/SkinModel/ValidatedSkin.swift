import LiveryJSON

/// A skin that passed validation: its manifest, parsed config and files. Only a `ValidatedSkin` can be planned
/// into packages, so an invalid skin can never be packed.
public struct ValidatedSkin: Sendable, Equatable {
    public let manifest: SkinManifest
    public let config: SkinConfig
    /// Every file the source listed (all regular, with valid names, within limits).
    public let files: [SkinFile]

    init(manifest: SkinManifest, config: SkinConfig, files: [SkinFile]) {
        self.manifest = manifest
        self.config = config
        self.files = files
    }

    /// The files referenced in `appearance` by images (all scales) and resources, sorted bytewise.
    public func referencedFiles(for appearance: Appearance) -> [AssetPath] {
        var found = Set<AssetPath>()
        for module in config.lazyModules(for: appearance) {
            for entry in module.images {
                if case .asset(let asset) = entry.value { found.formUnion(asset.variants.map(\.path)) }
            }
            for entry in module.resources { found.insert(entry.value) }
        }
        return found.sorted()
    }

    /// The package for `variant`: the effective `config.json` for its appearance (deterministic, pretty-printed;
    /// for ``PackageAppearance/any`` the light `config.json` and the dark `config-dark.json`) plus every file
    /// those configs reference, with each image reduced to one file, the one for the variant's scale, or the
    /// nearest available scale, preferring the higher (see ``ImageAsset/file(forScale:)``). Images named with an
    /// explicit `@Nx` keep that file. Unreferenced files are left out.
    public func packagePlan(for variant: PackageVariant) -> PackagePlan {
        var entries = generatedConfigs(for: variant).map {
            PlannedEntry(name: $0.name, content: .bytes($0.document.serialized(.pretty)))
        }
        for path in referencedFiles(for: variant) {
            entries.append(PlannedEntry(name: path.rawValue, content: .sourceFile(relativePath: path.rawValue)))
        }
        return PackagePlan(skinID: manifest.id, variant: variant, entries: entries)
    }

    /// `packagePlan(for: variant).contentDigestInput(fileIdentity:)`, passed to `consume` in pieces, without the
    /// generated configs ever being held whole: each is serialized twice, once to count its bytes and once
    /// into `consume`, from a document made for that serialization and dropped after it (a generated document
    /// copies the config's top level, and a package holding both appearances has two). Package signs hash this,
    /// so signing a skin whose `config.json` is large costs little memory in proportion to it.
    public func feedContentDigestInput<Failure: Error>(
        for variant: PackageVariant, fileIdentity: (String) throws(Failure) -> [UInt8],
        into consume: (UnsafeRawBufferPointer) -> Void
    ) throws(Failure) {
        var parts = generatedConfigNames(for: variant).map { generated in
            PackagePlan.DigestPart.generated(
                name: generated.name,
                count: packagedConfig(for: generated.appearance, scale: variant.scale).serializedCount(.pretty),
                write: { packagedConfig(for: generated.appearance, scale: variant.scale).serialize(.pretty, into: $0) })
        }
        for path in referencedFiles(for: variant) {
            parts.append(.file(name: path.rawValue, identity: try fileIdentity(path.rawValue)))
        }
        PackagePlan.feedContentDigestInput(parts, into: consume)
    }

    /// The entry name of the dark config in a package holding both appearances (reserved: no skin file may
    /// take it).
    public static let darkConfigName = "config-dark.json"

    /// The configs `variant`'s package holds, by entry name: `config.json` for its appearance, or for
    /// ``PackageAppearance/any`` the light `config.json` and the dark ``darkConfigName``.
    func generatedConfigs(for variant: PackageVariant) -> [(name: String, document: JSONValue)] {
        generatedConfigNames(for: variant).map { ($0.name, packagedConfig(for: $0.appearance, scale: variant.scale)) }
    }

    /// The entry names of `variant`'s configs, with the appearance each is generated for.
    func generatedConfigNames(for variant: PackageVariant) -> [(name: String, appearance: Appearance)] {
        variant.appearance.appearances.map { appearance in
            (variant.appearance == .any && appearance == .dark ? Self.darkConfigName : "config.json", appearance)
        }
    }

    /// The `config.json` document a package of `scale` holds for `appearance`: the effective document, with
    /// each reference to an image file rewritten to the file that package holds when the manifest asks for
    /// ``ImageReferenceStyle/filePath`` (a string becomes the path, `file://` dropped; an image object's
    /// `name` or `file` value becomes the path; solid colors and remote images stay as written).
    public func packagedConfig(for appearance: Appearance, scale: Int) -> JSONValue {
        let document = config.effectiveDocument(for: appearance)
        guard manifest.imageReferences == .filePath, var root = document.objectValue else { return document }
        for module in config.lazyModules(for: appearance) where !module.images.isEmpty {
            guard var sections = root[module.name]?.objectValue,
                var images = sections[ConfigSection.images.rawValue]?.objectValue
            else { continue }
            for entry in module.images {
                guard case .asset(let asset) = entry.value, let file = asset.file(forScale: scale),
                    let written = images[entry.identifier]
                else { continue }
                images[entry.identifier] = Self.reference(written, rewrittenTo: file.rawValue)
            }
            sections[ConfigSection.images.rawValue] = .object(images)
            root[module.name] = .object(sections)
        }
        return .object(root)
    }

    /// An image value naming `path` instead of the file it named: a string is replaced; in an object the key
    /// holding the file name (`name` or `file`, AUUTheme's `name` for types 0 and 1) is.
    private static func reference(_ written: JSONValue, rewrittenTo path: String) -> JSONValue {
        guard var object = written.objectValue else { return .string(path) }
        for key in ["name", "file"] where object[key] != nil { object[key] = .string(path) }
        return .object(object)
    }

    /// The skin files `variant`'s package holds besides its configs, each once, in config order (light first): the
    /// plan's file entries without generating the configs (each as large as the skin's `config.json`).
    public func referencedFiles(for variant: PackageVariant) -> [AssetPath] {
        var names = Set<String>()
        var files: [AssetPath] = []
        func add(_ path: AssetPath) {
            if names.insert(path.rawValue).inserted { files.append(path) }
        }
        for appearance in variant.appearance.appearances {
            for module in config.lazyModules(for: appearance) {
                for entry in module.images {
                    if case .asset(let asset) = entry.value, let file = asset.file(forScale: variant.scale) {
                        add(file)
                    }
                }
                for entry in module.resources { add(entry.value) }
            }
        }
        return files
    }
}
