import LiveryJSON

/// One module of `config.json` (such as `home_tabbar`) with its parsed sections, in source order.
public struct SkinModule: Sendable, Equatable {
    public var name: String
    public var colors: [ConfigEntry<ConfigColor>]
    public var images: [ConfigEntry<ImageReference>]
    public var values: [ConfigEntry<JSONValue>]
    public var resources: [ConfigEntry<AssetPath>]

    public init(
        name: String, colors: [ConfigEntry<ConfigColor>] = [], images: [ConfigEntry<ImageReference>] = [],
        values: [ConfigEntry<JSONValue>] = [], resources: [ConfigEntry<AssetPath>] = []
    ) {
        self.name = name
        self.colors = colors
        self.images = images
        self.values = values
        self.resources = resources
    }

    /// `self` with every entry of `overrides` replacing the entry of the same identifier.
    func merging(_ overrides: SkinModule) -> SkinModule {
        func merge<V>(_ base: [ConfigEntry<V>], _ replacing: [ConfigEntry<V>]) -> [ConfigEntry<V>] {
            let byIdentifier = Dictionary(replacing.map { ($0.identifier, $0) }, uniquingKeysWith: { _, last in last })
            return base.map { byIdentifier[$0.identifier] ?? $0 }
        }
        return SkinModule(
            name: name, colors: merge(colors, overrides.colors), images: merge(images, overrides.images),
            values: merge(values, overrides.values), resources: merge(resources, overrides.resources))
    }
}

/// One identifier of a section with its parsed value. The value exactly as written stays in
/// ``SkinConfig/document``, which packages are generated from: a copy here would cost every entry of a large
/// config its size again.
public struct ConfigEntry<Value: Sendable & Equatable>: Sendable, Equatable {
    public var identifier: String
    public var value: Value

    public init(identifier: String, value: Value) {
        self.identifier = identifier
        self.value = value
    }
}
