import LiveryJSON

/// How a skin's `config.json` covers the app's base config (its bundled `localConfig.json`, same shape).
///
/// Keys are compared per module, section and identifier; `dark` overrides are not part of coverage (they may
/// only name keys the light config defines).
public struct CoverageReport: Sendable, Equatable {
    /// A base key the skin does not set itself, and where its value comes from instead.
    public struct Fallback: Sendable, Equatable {
        public let key: ConfigKey
        /// The skin key that supplies the value through the dotted fallback (a parent or `__default__`), or `nil`
        /// when nothing in the skin applies and the app keeps its own default.
        public let resolvedBy: ConfigKey?
    }

    /// A key the skin sets that the base config does not know, with the closest base key when one is near.
    public struct Unknown: Sendable, Equatable {
        public let key: ConfigKey
        public let suggestion: ConfigKey?
    }

    /// Base keys the skin sets exactly, in base order.
    public var overridden: [ConfigKey]
    /// Base keys the skin does not set, in base order.
    public var fallingBack: [Fallback]
    /// Skin keys the base does not know (neither the key, nor a key it is a dotted parent of, nor
    /// `__default__`), in skin order: most likely typos such as `color.background.viewcontroll`.
    public var unknownToBase: [Unknown]

    /// Compares `skin` (an effective config document) with `base`. Parts of `base` that are not objects of
    /// objects are ignored, so a loosely shaped base still gives a useful report.
    public static func compare(skin: JSONValue, base: JSONValue) -> CoverageReport {
        let baseKeys = keys(of: base)
        let skinKeys = keys(of: skin)
        let skinSet = Set(skinKeys)
        let resolver = IdentifierResolver(document: skin)
        var overridden: [ConfigKey] = []
        var fallingBack: [Fallback] = []
        for key in baseKeys {
            if skinSet.contains(key) {
                overridden.append(key)
            } else {
                fallingBack.append(Fallback(key: key, resolvedBy: resolver.resolve(key).resolvedKey))
            }
        }
        let baseSet = Set(baseKeys)
        var parents = Set<ConfigKey>()
        for key in baseKeys {
            for step in IdentifierResolver.fallbackChain(for: key) { parents.insert(step) }
        }
        var unknown: [Unknown] = []
        for key in skinKeys where !baseSet.contains(key) && !parents.contains(key) {
            let sameSection = baseKeys.filter { $0.module == key.module && $0.section == key.section }
            let pool = sameSection.isEmpty ? baseKeys.filter { $0.section == key.section } : sameSection
            let suggestion = closestMatch(to: key.identifier, among: pool.map(\.identifier))
                .flatMap { identifier in pool.first { $0.identifier == identifier } }
            unknown.append(Unknown(key: key, suggestion: suggestion))
        }
        return CoverageReport(overridden: overridden, fallingBack: fallingBack, unknownToBase: unknown)
    }

    /// Every module/section/identifier of a config-shaped document, in document order (`dark` excluded).
    static func keys(of document: JSONValue) -> [ConfigKey] {
        guard let modules = document.objectValue else { return [] }
        var result: [ConfigKey] = []
        for module in modules where module.key != SkinConfig.darkKey {
            guard let sections = module.value.objectValue else { continue }
            for section in sections {
                guard let kind = ConfigSection(rawValue: section.key), let entries = section.value.objectValue else {
                    continue
                }
                for entry in entries {
                    if let key = ConfigKey(module: module.key, section: kind, identifier: entry.key) {
                        result.append(key)
                    }
                }
            }
        }
        return result
    }

    /// The report as JSON: `{"overridden": [...], "fallingBack": [{"key", "resolvedBy"}], "unknownToBase": [{"key", "suggestion"}]}`.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["overridden"] = .array(overridden.map { .string($0.description) })
        object["fallingBack"] = .array(
            fallingBack.map { entry in
                var item = JSONObject()
                item["key"] = .string(entry.key.description)
                item["resolvedBy"] = entry.resolvedBy.map { .string($0.description) } ?? .null
                return .object(item)
            })
        object["unknownToBase"] = .array(
            unknownToBase.map { entry in
                var item = JSONObject()
                item["key"] = .string(entry.key.description)
                item["suggestion"] = entry.suggestion.map { .string($0.description) } ?? .null
                return .object(item)
            })
        return .object(object)
    }
}
