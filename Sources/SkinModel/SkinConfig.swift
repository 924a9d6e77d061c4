import LiveryJSON

/// A parsed, checked `config.json`: modules × sections, plus optional dark-mode overrides.
///
/// Dark overrides live under the reserved top-level key `"dark"`, which mirrors the modules:
/// `{"dark": {"home_tabbar": {"colors": {"color_background": "#1C1C1E"}}}}`. Every module, section and
/// identifier it names must exist in the light config, and its values are checked like light ones.
/// The light package's `config.json` is the document without `"dark"`; the dark package's is the same with
/// each overridden value replaced in place (key order unchanged). Apps therefore never see `"dark"`.
public struct SkinConfig: Sendable, Equatable {
    /// The reserved top-level key holding dark overrides.
    public static let darkKey = "dark"

    /// `config.json` exactly as parsed (including `"dark"`).
    public let document: JSONValue
    /// The light modules in source order.
    public let modules: [SkinModule]
    /// The dark overrides, holding only the overridden entries.
    public let darkOverrides: [SkinModule]

    init(document: JSONValue, modules: [SkinModule], darkOverrides: [SkinModule]) {
        self.document = document
        self.modules = modules
        self.darkOverrides = darkOverrides
    }

    /// Whether the skin changes anything in dark mode.
    public var hasDarkOverrides: Bool {
        darkOverrides.contains {
            !$0.colors.isEmpty || !$0.images.isEmpty || !$0.values.isEmpty || !$0.resources.isEmpty
        }
    }

    /// The modules an app sees in `appearance`.
    public func modules(for appearance: Appearance) -> [SkinModule] {
        guard appearance == .dark else { return modules }
        return Array(lazyModules(for: appearance))
    }

    /// ``modules(for:)`` one at a time, each dark one merged when it is reached: no array of them all is made,
    /// which for a large config would be a copy of every module.
    public func lazyModules(for appearance: Appearance) -> LazyMapSequence<[SkinModule], SkinModule> {
        let overrides =
            appearance == .dark
            ? Dictionary(darkOverrides.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last }) : [:]
        return modules.lazy.map { module in overrides[module.name].map(module.merging) ?? module }
    }

    /// The `config.json` document an app gets for `appearance` (see the type's documentation).
    public func effectiveDocument(for appearance: Appearance) -> JSONValue {
        SkinConfig.effectiveDocument(document, for: appearance)
    }

    /// ``effectiveDocument(for:)`` on an unchecked document: unknown dark entries are ignored.
    public static func effectiveDocument(_ document: JSONValue, for appearance: Appearance) -> JSONValue {
        guard var root = document.objectValue else { return document }
        let dark = root[darkKey]?.objectValue
        root[darkKey] = nil
        if appearance == .dark, let dark {
            for module in dark {
                guard var sections = root[module.key]?.objectValue, let darkSections = module.value.objectValue else {
                    continue
                }
                for section in darkSections {
                    guard var entries = sections[section.key]?.objectValue, let darkEntries = section.value.objectValue
                    else { continue }
                    for entry in darkEntries where entries[entry.key] != nil { entries[entry.key] = entry.value }
                    sections[section.key] = .object(entries)
                }
                root[module.key] = .object(sections)
            }
        }
        return .object(root)
    }

    /// The bytes of the effective `config.json`: pretty-printed (two-space indent, final newline), deterministic.
    public func effectiveConfigBytes(for appearance: Appearance) -> [UInt8] {
        effectiveDocument(for: appearance).serialized(.pretty)
    }
}
