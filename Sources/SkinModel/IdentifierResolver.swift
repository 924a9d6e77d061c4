import LiveryJSON

/// Resolves a ``ConfigKey`` the way apps do (AUUTheme): the identifier itself, then each dotted parent
/// (`color.background.tableview` → `color.background` → `color`), then `__default__`, all within the same
/// module and section. The first key that is set wins.
public struct IdentifierResolver: Sendable {
    /// The document looked up (an effective `config.json`, see ``SkinConfig/effectiveDocument(for:)``).
    public let document: JSONValue

    public init(document: JSONValue) { self.document = document }

    /// The keys tried for `key`, in order, ending with `__default__` (which is tried once, even for itself).
    public static func fallbackChain(for key: ConfigKey) -> [ConfigKey] {
        var chain: [ConfigKey] = []
        var identifier = Substring(key.identifier)
        if key.identifier != ConfigKey.defaultIdentifier {
            while true {
                if let step = key.with(identifier: String(identifier)) { chain.append(step) }
                guard let dot = identifier.lastIndex(of: ".") else { break }
                identifier = identifier[..<dot]
            }
        }
        if let fallback = key.with(identifier: ConfigKey.defaultIdentifier) { chain.append(fallback) }
        return chain
    }

    /// Walks the fallback chain of `key` and stops at the first key that is set.
    public func resolve(_ key: ConfigKey) -> IdentifierResolution {
        var walked: [ConfigKey] = []
        let section = document.objectValue?[key.module]?.objectValue?[key.section.rawValue]?.objectValue
        for step in IdentifierResolver.fallbackChain(for: key) {
            walked.append(step)
            if let value = section?[step.identifier] {
                return IdentifierResolution(key: key, chain: walked, value: value, resolvedKey: step)
            }
        }
        return IdentifierResolution(key: key, chain: walked, value: nil, resolvedKey: nil)
    }

    /// Resolves `key` in `document`; see ``resolve(_:)``.
    public static func resolve(key: ConfigKey, in document: JSONValue) -> IdentifierResolution {
        IdentifierResolver(document: document).resolve(key)
    }
}

/// The outcome of resolving one key: the chain of keys walked and the value found, if any.
public struct IdentifierResolution: Sendable, Equatable {
    /// The key asked for.
    public let key: ConfigKey
    /// Every key tried, in order; the last one is `resolvedKey` when a value was found.
    public let chain: [ConfigKey]
    /// The value found, or `nil` when nothing on the chain is set (the app then uses its own default).
    public let value: JSONValue?
    /// The key that supplied `value`.
    public let resolvedKey: ConfigKey?

    /// Whether the value came from a parent or `__default__` rather than the key itself.
    public var isFallback: Bool { resolvedKey.map { $0 != key } ?? false }
}
