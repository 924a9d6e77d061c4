import LiveryJSON

/// Theme files written for other clients, which `livery import` converts into a Livery skin folder.
///
/// - AUUTheme: one flat object, `{"colors": {"color.text": "363535", …}, "images": {"image.head": {"type": 0,
///   "name": "7.jpeg"}, …}, "appearance": {…}}`, dotted identifiers falling back to their parents.
/// - Chameleon: nested objects, `{"color": {"text": {"C001": "B17936 0.9"}}, "image": {"no01": "name"},
///   "others": {"border": {"width": 2}}}`, looked up by slash paths such as `color/text/C001`.
public enum ForeignThemeFormat: String, Sendable, Hashable, CaseIterable {
    case auutheme
    case chameleon

    /// The keys whose presence at the top level of a `config.json` betray the format: AUUTheme's sections are
    /// plural, Chameleon's singular.
    var markerKeys: [String] {
        switch self {
        case .auutheme: ["colors", "images"]
        case .chameleon: ["color", "image"]
        }
    }

    /// The format `document` is written in when it is not a Livery config but one of these themes: a marker key
    /// whose value is an object holding something other than Livery's sections (a Livery module named `colors`
    /// holds only `colors`, `images`, `values` and `resources`). `nil` for anything else.
    public static func detect(_ document: JSONValue) -> ForeignThemeFormat? {
        guard let root = document.objectValue else { return nil }
        for format in allCases {
            for key in format.markerKeys {
                guard let members = root[key]?.objectValue, !members.isEmpty else { continue }
                if members.contains(where: { ConfigSection(rawValue: $0.key) == nil || $0.value.objectValue == nil }) {
                    return format
                }
            }
        }
        return nil
    }

    /// "an AUUTheme" / "a Chameleon", for messages.
    var articleName: String {
        switch self {
        case .auutheme: "an AUUTheme"
        case .chameleon: "a Chameleon"
        }
    }

    /// How the format's files look, for messages.
    var shape: String {
        switch self {
        case .auutheme: "flat top-level \"colors\" and \"images\" of dotted identifiers"
        case .chameleon: "nested top-level \"color\" and \"image\" objects"
        }
    }

    /// The module every converted value lands in.
    public static let moduleName = "theme"

    /// The command that converts a file of this format.
    public var importCommand: String { "livery import --from \(rawValue) FILE DIR" }

    /// What ``convert(_:)`` makes of a theme: a Livery `config.json` document, where each of its entries came
    /// from, and the source values that could not be carried over.
    public struct Conversion: Sendable {
        /// `{"theme": {"colors": …, "images": …, "values": …}}`.
        public var config: JSONValue
        /// For each `section/identifier` of the config, the source's name for it (`images/image.head.head1`,
        /// `color/text/C001`), so later drops are reported in the source's terms.
        public var sourceNames: [String: String]
        /// Values left out, each naming the source value and why.
        public var dropped: [ImportNote]
    }

    /// Converts a theme document (see the type's documentation for the mapping rules).
    ///
    /// AUUTheme: `colors` → `colors`, `images` → `images` (AUUTheme's `{"type", …}` objects are Livery image
    /// spellings already), `appearance` → `values` (each component's object passed through), identifiers kept.
    /// Chameleon: `color` → `colors` and `image` → `images`, the path below them joined with dots
    /// (`color/text/C001` → `text.C001`); every other top-level key → `values`, its leaves named by their whole
    /// dotted path (`others/border/width` → `others.border.width`). Anything else is dropped and reported.
    public func convert(_ document: JSONValue) -> Conversion {
        var colors = JSONObject()
        var images = JSONObject()
        var values = JSONObject()
        var sourceNames: [String: String] = [:]
        var dropped: [ImportNote] = []
        guard let root = document.objectValue else {
            dropped.append(ImportNote(name: "/", reason: "the theme is a \(document.kindName), not an object"))
            return Conversion(config: .object(JSONObject()), sourceNames: [:], dropped: dropped)
        }
        func put(_ section: ConfigSection, _ identifier: String, _ value: JSONValue, from name: String) {
            guard ConfigKey.isValidIdentifier(identifier) else {
                dropped.append(
                    ImportNote(
                        name: name, reason: "\"\(identifier)\" is not a usable identifier (an empty dotted part)"))
                return
            }
            switch section {
            case .colors: colors[identifier] = value
            case .images: images[identifier] = value
            case .values, .resources: values[identifier] = value
            }
            sourceNames["\(section.rawValue)/\(identifier)"] = name
        }
        switch self {
        case .auutheme:
            for member in root {
                let sections: [String: ConfigSection] = ["colors": .colors, "images": .images, "appearance": .values]
                guard let section = sections[member.key] else {
                    dropped.append(ImportNote(name: member.key, reason: "AUUTheme has no \"\(member.key)\" section"))
                    continue
                }
                guard let entries = member.value.objectValue else {
                    dropped.append(
                        ImportNote(
                            name: member.key, reason: "\"\(member.key)\" is a \(member.value.kindName), not an object"))
                    continue
                }
                for entry in entries { put(section, entry.key, entry.value, from: "\(member.key)/\(entry.key)") }
            }
        case .chameleon:
            for member in root {
                let section: ConfigSection = member.key == "color" ? .colors : member.key == "image" ? .images : .values
                for leaf in Self.leaves(member.value, path: []) {
                    let name = ([member.key] + leaf.path).joined(separator: "/")
                    let identifier = (section == .values ? [member.key] + leaf.path : leaf.path).joined(separator: ".")
                    if section != .values, leaf.value.objectValue == nil, leaf.value.stringValue == nil {
                        dropped.append(
                            ImportNote(
                                name: name,
                                reason:
                                    "a \(section == .colors ? "color" : "image") must be a string, not \(leaf.value.compactText)"
                            ))
                        continue
                    }
                    put(section, identifier, leaf.value, from: name)
                }
            }
        }
        var sections = JSONObject()
        if !colors.isEmpty { sections[ConfigSection.colors.rawValue] = .object(colors) }
        if !images.isEmpty { sections[ConfigSection.images.rawValue] = .object(images) }
        if !values.isEmpty { sections[ConfigSection.values.rawValue] = .object(values) }
        var config = JSONObject()
        config[Self.moduleName] = .object(sections)
        return Conversion(config: .object(config), sourceNames: sourceNames, dropped: dropped)
    }

    /// Chameleon's values below a top-level key: nested objects are walked, anything else is a leaf. An image
    /// object (`{"name"|"file"|"color": …}`) is a leaf too, as Chameleon reads it.
    private static func leaves(_ value: JSONValue, path: [String]) -> [(path: [String], value: JSONValue)] {
        guard let object = value.objectValue, !path.isEmpty || !object.isEmpty,
            !object.keys.contains(where: { ["name", "file", "color"].contains($0) }) || path.isEmpty
        else { return [(path, value)] }
        return object.flatMap { leaves($0.value, path: path + [$0.key]) }
    }
}

/// One value of a foreign theme that `livery import` could not carry over, or a file it could not copy.
public struct ImportNote: Sendable, Hashable, CustomStringConvertible {
    /// The source's name for it: `images/image.head.head3`, `image/no03`, or a file name.
    public var name: String
    public var reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    public var description: String { "\(name): \(reason)" }
}
