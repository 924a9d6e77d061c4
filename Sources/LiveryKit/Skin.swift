import Foundation
import LiveryJSON
import SkinModel

/// An applied skin: a verified package unpacked in its own folder, read the way the seeds' apps read skins.
///
/// Every lookup walks AUUTheme's dotted fallback (`a.b.c` → `a.b` → `a` → `__default__`, within the module and
/// section), the chain `livery resolve` prints; `nil` means nothing on the chain is set and the app uses its own
/// default. A package built for both appearances (`appearance: .any`) answers each lookup from the config of the
/// appearance asked for; a single-appearance package answers from its one config.
public struct Skin: Sendable, Equatable {
    /// Whether the skin is a holiday skin the server chose or a theme the user chose.
    public enum Kind: String, Sendable, Equatable {
        /// The skin the poll answered, applying inside its window.
        case holiday
        /// The theme the user chose, applying while no holiday skin does.
        case theme
    }

    /// The skin's id (`skinId`; a theme's `id`).
    public let id: String
    /// The package's sign: it names the package's bytes, and changes when they do.
    public let sign: String
    public let kind: Kind
    /// When a holiday skin starts and stops applying (nil for themes, which apply until the user changes them).
    public let startsAt: Date?
    public let endsAt: Date?
    /// The unpacked package's folder.
    public let folder: URL
    /// The screen scale the package was built for (image files are looked up at it).
    public let scale: Int
    /// The configs the package holds: one, or light and dark.
    let configs: [Appearance: SkinConfig]

    init(entry: PackageEntry, kind: Kind, folder: URL, scale: Int, configs: [Appearance: SkinConfig]) {
        id = entry.skinID
        sign = entry.sign
        self.kind = kind
        startsAt = entry.startsAt
        endsAt = entry.endsAt
        self.folder = folder
        self.scale = scale
        self.configs = configs
    }

    /// Whether the package holds a config for each appearance (so the app can switch without the network).
    public var holdsBothAppearances: Bool { configs.count > 1 }

    /// What a key resolves to, as the app draws it.
    public enum Value: Sendable, Equatable {
        /// A colour (`colors`): a fixed RGBA colour or Chameleon's `random`.
        case color(ConfigColor)
        /// An image file inside the package, at the device's scale (`images`, by name or as a file).
        case imageFile(URL)
        /// A solid-colour image the app draws itself (`{"color": …}`).
        case imageColor(ConfigColor)
        /// A remote image the app downloads itself (`https://…`), as written.
        case remoteImage(String)
        /// A value (`values`), as written in JSON.
        case value(JSONValue)
        /// A file inside the package (`resources`).
        case resource(URL)
    }

    /// Resolves `module/section/identifier` (as `livery resolve` and `livery-phone --get` spell keys) for
    /// `appearance`; nil when the key is malformed or nothing on its fallback chain is set.
    public func resolve(_ key: String, appearance: Appearance = .light) -> Value? {
        guard let parsed = ConfigKey(parsing: key) else { return nil }
        return resolve(parsed, appearance: appearance)
    }

    /// Resolves `key` for `appearance` through the fallback chain.
    public func resolve(_ key: ConfigKey, appearance: Appearance = .light) -> Value? {
        guard let config = configs[appearance] ?? configs[.light] ?? configs.values.first else { return nil }
        guard let resolved = IdentifierResolver(document: config.document).resolve(key).resolvedKey else { return nil }
        guard let module = config.modules.first(where: { $0.name == key.module }) else { return nil }
        switch key.section {
        case .colors:
            return module.colors.first { $0.identifier == resolved.identifier }.map { .color($0.value) }
        case .images:
            guard let image = module.images.first(where: { $0.identifier == resolved.identifier })?.value else {
                return nil
            }
            switch image {
            case .asset(let asset):
                return asset.file(forScale: scale).map { .imageFile(file($0)) }
            case .solidColor(let color): return .imageColor(color)
            case .remote(let url): return .remoteImage(url)
            }
        case .values:
            return module.values.first { $0.identifier == resolved.identifier }.map { .value($0.value) }
        case .resources:
            return module.resources.first { $0.identifier == resolved.identifier }.map { .resource(file($0.value)) }
        }
    }

    /// The colour of `module`'s `colors` entry `identifier` (with fallback); nil when unset or not a colour.
    public func color(_ module: String, _ identifier: String, appearance: Appearance = .light) -> ConfigColor? {
        guard let key = ConfigKey(module: module, section: .colors, identifier: identifier),
            case .color(let color) = resolve(key, appearance: appearance)
        else { return nil }
        return color
    }

    /// What to draw for `module`'s `images` entry `identifier` (with fallback): `.imageFile`, `.imageColor` or
    /// `.remoteImage`; nil when unset.
    public func image(_ module: String, _ identifier: String, appearance: Appearance = .light) -> Value? {
        guard let key = ConfigKey(module: module, section: .images, identifier: identifier) else { return nil }
        return resolve(key, appearance: appearance)
    }

    /// `module`'s `values` entry `identifier` (with fallback), as written.
    public func value(_ module: String, _ identifier: String, appearance: Appearance = .light) -> JSONValue? {
        guard let key = ConfigKey(module: module, section: .values, identifier: identifier),
            case .value(let value) = resolve(key, appearance: appearance)
        else { return nil }
        return value
    }

    /// The file of `module`'s `resources` entry `identifier` (with fallback).
    public func resource(_ module: String, _ identifier: String, appearance: Appearance = .light) -> URL? {
        guard let key = ConfigKey(module: module, section: .resources, identifier: identifier),
            case .resource(let url) = resolve(key, appearance: appearance)
        else { return nil }
        return url
    }

    private func file(_ path: AssetPath) -> URL { folder.appendingPathComponent(path.rawValue) }

    public static func == (lhs: Skin, rhs: Skin) -> Bool {
        lhs.sign == rhs.sign && lhs.kind == rhs.kind && lhs.id == rhs.id && lhs.startsAt == rhs.startsAt
            && lhs.endsAt == rhs.endsAt && lhs.folder == rhs.folder
    }
}
