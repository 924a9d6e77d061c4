import Foundation
import LiveryJSON

/// Walks `config.json` (modules × sections, plus the `dark` overrides), parsing each value and resolving each
/// file reference against an ``AssetIndex``, collecting issues with their JSON pointers.
struct ConfigParser {
    let index: AssetIndex
    let file: String
    private(set) var issues: IssueCollector
    /// Image groups already warned about for a missing scale, so each is reported once.
    private var scaleWarned: Set<[AssetPath]> = []
    /// "Did you mean" searches left: each scans every file, so a config with thousands of broken references
    /// must not make validation quadratic.
    private var suggestionsLeft = 50

    init(index: AssetIndex, file: String = "config.json") {
        self.index = index
        self.file = file
        issues = IssueCollector(file: file)
    }

    /// Parses the whole document; the config is `nil` when any error was found.
    mutating func parse(_ document: JSONValue) -> SkinConfig? {
        guard let root = document.objectValue else {
            issues.error(
                .configNotObject, .root, value: nil,
                "\(file) must be a JSON object of modules, not a \(document.kindName).",
                fix: "Write \(file) as {\"home_tabbar\": {\"colors\": {\"color_background\": \"#F9F9F9\"}}}.")
            return nil
        }
        var modules: [SkinModule] = []
        modules.reserveCapacity(root.count)
        for member in root where member.key != SkinConfig.darkKey {
            if let module = parseModule(member.key, member.value, at: JSONPointer(tokens: [member.key])) {
                modules.append(module)
            }
        }
        if modules.isEmpty, root.keys.allSatisfy({ $0 == SkinConfig.darkKey }) {
            issues.warning(
                .configEmpty, .root, value: nil,
                "\(file) has no modules, so the skin changes nothing in the app.",
                fix: "Add modules such as {\"home_tabbar\": {\"colors\": {…}, \"images\": {…}}}.")
        }
        var dark: [SkinModule] = []
        if let darkValue = root[SkinConfig.darkKey] {
            dark = parseDark(darkValue, light: root)
        }
        guard !issues.hasErrors else { return nil }
        return SkinConfig(document: document, modules: modules, darkOverrides: dark)
    }

    // MARK: Modules and sections

    private mutating func parseModule(_ name: String, _ value: JSONValue, at pointer: JSONPointer) -> SkinModule? {
        guard let sections = value.objectValue else {
            issues.error(
                .configModuleInvalid, pointer, value: value,
                "The module \"\(name)\" must be an object of sections, not a \(value.kindName).",
                fix:
                    "Write \"\(name)\": {\"colors\": {…}, \"images\": {…}, \"values\": {…}, \"resources\": {…}} (any of the four)."
            )
            return nil
        }
        var module = SkinModule(name: name)
        for member in sections {
            let place = pointer.appending(member.key)
            guard let section = ConfigSection(rawValue: member.key) else {
                reportUnknownSection(member.key, module: name, at: place)
                continue
            }
            guard let entries = member.value.objectValue else {
                issues.error(
                    .configSectionInvalid, place, value: member.value,
                    "The section \"\(member.key)\" of \"\(name)\" must be an object of identifiers, not a \(member.value.kindName).",
                    fix: "Write \"\(member.key)\": {\"identifier\": value, …}.")
                continue
            }
            parseSection(section, entries, into: &module, at: place)
        }
        return module
    }

    private mutating func reportUnknownSection(_ key: String, module: String, at place: JSONPointer) {
        let names = ConfigSection.allCases.map(\.rawValue)
        var fix = "A module holds only \(names.joined(separator: ", ")); "
        if let close = closestMatch(to: key, among: names) {
            fix += "did you mean \"\(close)\"?"
        } else if ConfigSection(rawValue: module) != nil {
            fix +=
                "\"\(module)\" looks like a section at the top level: wrap it in a module, as {\"app\": {\"\(module)\": {…}}}."
        } else {
            fix += "move \"\(key)\" under one of them."
        }
        issues.error(
            .configSectionUnknown, place, value: .string(key),
            "\"\(key)\" is not a section (in module \"\(module)\").", fix: fix)
    }

    private mutating func parseSection(
        _ section: ConfigSection, _ entries: JSONObject, into module: inout SkinModule, at pointer: JSONPointer
    ) {
        // Room for every entry at once: arrays grown one append at a time keep spare capacity, which adds up
        // over the thousands of modules of a large config.
        switch section {
        case .colors: module.colors.reserveCapacity(module.colors.count + entries.count)
        case .images: module.images.reserveCapacity(module.images.count + entries.count)
        case .values: module.values.reserveCapacity(module.values.count + entries.count)
        case .resources: module.resources.reserveCapacity(module.resources.count + entries.count)
        }
        for member in entries {
            let place = pointer.appending(member.key)
            guard ConfigKey.isValidIdentifier(member.key) else {
                issues.error(
                    .configIdentifierInvalid, place, value: .string(member.key),
                    "\"\(member.key)\" is not a usable identifier: it is empty or has an empty dotted part.",
                    fix: "Use parts separated by single dots, such as \"color.background.tableview\".")
                continue
            }
            switch section {
            case .colors:
                if let color = parseColor(member.value, at: place) {
                    module.colors.append(ConfigEntry(identifier: member.key, value: color))
                }
            case .images:
                if let image = parseImage(member.value, at: place) {
                    module.images.append(ConfigEntry(identifier: member.key, value: image))
                }
            case .values:
                module.values.append(ConfigEntry(identifier: member.key, value: member.value))
            case .resources:
                if let path = parseResource(member.value, at: place) {
                    module.resources.append(ConfigEntry(identifier: member.key, value: path))
                }
            }
        }
    }

    // MARK: Values

    mutating func parseColor(_ value: JSONValue, at place: JSONPointer) -> ConfigColor? {
        guard let text = value.stringValue else {
            issues.error(
                .colorInvalid, place, value: value,
                "A color must be a string, not \(value.compactText).",
                fix: "Write it as a string in one of: \(ConfigColor.acceptedSpellings).")
            return nil
        }
        guard let color = ConfigColor(parsing: text) else {
            var fix = "Write it as one of: \(ConfigColor.acceptedSpellings)."
            if text != text.trimmingCharacters(in: .whitespaces) { fix = "Remove the surrounding spaces. " + fix }
            if text.utf8.count == 9, text.hasPrefix("#") {
                fix += " Note #RRGGBBAA puts alpha last."
            } else if text.utf8.count == 8, SkinColor(parsing: "#" + text) != nil {
                fix += " Eight hex digits need a leading '#' (#RRGGBBAA, alpha last)."
            }
            issues.error(.colorInvalid, place, value: value, "\"\(text)\" is not a color.", fix: fix)
            return nil
        }
        return color
    }

    /// Whether `text` contains `://`, as Foundation's `contains` decides it; ASCII text (where that search
    /// and a byte search agree) is searched bytewise, since this runs for every image reference.
    static func containsSchemeSeparator(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return text.contains("://") }
        var matched = 0
        for byte in bytes {
            if byte == UInt8(ascii: "/"), matched >= 1 {
                if matched == 2 { return true }
                matched = 2
            } else {
                matched = byte == UInt8(ascii: ":") ? 1 : 0
            }
        }
        return false
    }

    private static let imageForms =
        "\"tab_home\", \"tab_home.png\", \"file://tab_home.png\", {\"name\": …}, {\"file\": …}, {\"color\": \"ffffff\"}, {\"type\": 0|1|2|3, …} or \"https://…\""

    mutating func parseImage(_ value: JSONValue, at place: JSONPointer) -> ImageReference? {
        switch value {
        case .string(let text):
            if text.hasPrefix("file://") {
                return resolveImage(String(text.dropFirst("file://".count)), loading: .file, at: place, value: value)
            }
            if ConfigParser.containsSchemeSeparator(text) { return parseRemote(text, at: place, value: value) }
            return resolveImage(text, loading: .named, at: place, value: value)
        case .object(let object):
            if let type = object["type"] { return parseTypedImage(type, object, at: place, value: value) }
            let forms = ["name", "file", "color"]
            let present = object.keys.filter(forms.contains)
            let unknown = object.keys.filter { !forms.contains($0) }
            guard present.count == 1, unknown.isEmpty else {
                let detail =
                    present.count > 1
                    ? "it has several of name, file, color"
                    : !unknown.isEmpty ? "it has the unknown key \"\(unknown[0])\"" : "it has none of name, file, color"
                issues.error(
                    .imageInvalid, place, value: value,
                    "The image object \(value.compactText) is not usable: \(detail).",
                    fix:
                        "Use exactly one of {\"name\": \"tab_home\"}, {\"file\": \"tab_home.png\"} or {\"color\": \"ffffff\"}, or AUUTheme's {\"type\": 0|1|2|3, …}."
                )
                return nil
            }
            let key = present[0]
            let inner = object[key] ?? .null
            guard let text = inner.stringValue, !text.isEmpty else {
                issues.error(
                    .imageInvalid, place.appending(key), value: inner,
                    "\"\(key)\" must be a non-empty string, not \(inner.compactText).",
                    fix: key == "color"
                        ? "Write a color such as \"ffffff\"." : "Write the image's file name, such as \"tab_home.png\"."
                )
                return nil
            }
            switch key {
            case "name": return resolveImage(text, loading: .named, at: place.appending(key), value: inner)
            case "file": return resolveImage(text, loading: .file, at: place.appending(key), value: inner)
            default: return parseColor(inner, at: place.appending(key)).map(ImageReference.solidColor)
            }
        default:
            issues.error(
                .imageInvalid, place, value: value,
                "An image must be a string or an object, not \(value.compactText).",
                fix: "Write it as one of \(ConfigParser.imageForms).")
            return nil
        }
    }

    /// AUUTheme's `{"type": 0|1|2|3, …}`: 0 bundled `name`, 1 sandbox-file `name`, 2 solid `color`, 3 remote `path`.
    /// Other keys are allowed (AUUTheme lets themes carry their own).
    private mutating func parseTypedImage(
        _ type: JSONValue, _ object: JSONObject, at place: JSONPointer, value: JSONValue
    ) -> ImageReference? {
        guard let number = type.intValue, (0...3).contains(number) else {
            issues.error(
                .imageInvalid, place.appending("type"), value: type,
                "The image type \(type.compactText) is not one of AUUTheme's 0, 1, 2, 3.",
                fix:
                    "Use type 0 with \"name\" (bundled image), 1 with \"name\" (file), 2 with \"color\", or 3 with \"path\" (https URL)."
            )
            return nil
        }
        let key = ["name", "name", "color", "path"][number]
        guard let inner = object[key], let text = inner.stringValue, !text.isEmpty else {
            issues.error(
                .imageInvalid, place, value: value,
                "An AUUTheme image of type \(number) needs a non-empty string \"\(key)\".",
                fix:
                    "Add \"\(key)\": \(["\"tab_home.png\"", "\"tab_home.png\"", "\"ffffff\"", "\"https://cdn.example.com/banner.png\""][number])."
            )
            return nil
        }
        switch number {
        case 0: return resolveImage(text, loading: .named, at: place.appending(key), value: inner)
        case 1: return resolveImage(text, loading: .file, at: place.appending(key), value: inner)
        case 2: return parseColor(inner, at: place.appending(key)).map(ImageReference.solidColor)
        default:
            guard text.contains("://") else {
                issues.error(
                    .imageURLInvalid, place.appending(key), value: inner,
                    "\"\(text)\" is not a URL; AUUTheme type 3 is a remote image.",
                    fix: "Write an https:// URL, or use type 0 or 1 for an image in the skin.")
                return nil
            }
            return parseRemote(text, at: place.appending(key), value: inner)
        }
    }

    private mutating func parseRemote(_ text: String, at place: JSONPointer, value: JSONValue) -> ImageReference? {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") {
            issues.error(
                .imageInsecureURL, place, value: value,
                "\"\(text)\" uses plain http://, which apps block (App Transport Security) and networks can tamper with.",
                fix:
                    "Serve the image over https:// and write \"https://\(text.dropFirst("http://".count))\", or ship it inside the skin."
            )
            return nil
        }
        guard lowered.hasPrefix("https://"), let url = URL(string: text), let host = url.host, !host.isEmpty,
            !text.contains(where: \.isWhitespace)
        else {
            issues.error(
                .imageURLInvalid, place, value: value,
                "\"\(text)\" is not a usable remote image URL.",
                fix:
                    "Write a full https:// URL such as \"https://cdn.example.com/banner.png\" (no spaces), or ship the image in the skin."
            )
            return nil
        }
        return .remote(url: text)
    }

    /// Checks a file reference's path; `nil` (with an issue) when it is unsafe or names a reserved file.
    private mutating func checkedPath(_ text: String, at place: JSONPointer, value: JSONValue) -> AssetPath? {
        let path: AssetPath
        do {
            path = try AssetPath(validating: text)
        } catch {
            switch error {
            case .absolute:
                issues.error(
                    .pathAbsolute, place, value: value,
                    "\"\(text)\" is an absolute path; a skin may only reference its own files.",
                    fix: "Write the path relative to the skin folder, such as \"images/tab_home.png\".")
            case .parentSegment:
                issues.error(
                    .pathEscape, place, value: value,
                    "\"\(text)\" climbs out of the skin folder with '..'.",
                    fix: "Copy the file into the skin and reference it relative to the skin folder.")
            case .malformed(let reason):
                issues.error(
                    .pathInvalid, place, value: value,
                    "\"\(text)\" is not a usable path: \(reason).",
                    fix: "Write a plain relative path such as \"images/tab_home.png\".")
            }
            return nil
        }
        if AssetIndex.reservedPaths.contains(path.rawValue) {
            issues.error(
                .pathReserved, place, value: value,
                "\"\(text)\" is the skin's own \(text), not an asset.",
                fix:
                    "Reference an asset file instead; skin.json, config.json and config-dark.json (the dark config of packages holding both appearances) are not shipped as assets."
            )
            return nil
        }
        return path
    }

    private mutating func resolveImage(
        _ text: String, loading: ImageAsset.Loading, at place: JSONPointer, value: JSONValue
    ) -> ImageReference? {
        guard let path = checkedPath(text, at: place, value: value) else { return nil }
        switch index.resolveImage(path.rawValue) {
        case .success(let found):
            let asset = ImageAsset(loading: loading, reference: text, variants: found.variants, isPinned: found.pinned)
            warnAboutMissingScale(asset, at: place, value: value)
            return .asset(asset)
        case .failure(.missing):
            let hint = suggestion(for: text).map { "Did you mean \"\($0)\"? " } ?? ""
            issues.error(
                .assetMissing, place, value: value,
                "The image \"\(text)\" is not in the skin (looked for \(AssetIndex.lookedFor(text))).",
                fix: "\(hint)Add the file to the skin folder, or correct the name (names are case-sensitive).")
        case .failure(.ambiguous(let files)):
            issues.error(
                .imageAmbiguous, place, value: value,
                "\"\(text)\" matches images of several types: \(files.joined(separator: ", ")).",
                fix: "Write the name with its extension, such as \"\(files.first ?? text)\".")
        case .failure(.unsupportedType):
            issues.error(
                .imageTypeUnsupported, place, value: value,
                "\"\(text)\" is not a PNG, JPEG, GIF or WebP image.",
                fix: "Convert it to PNG (or JPEG, GIF, WebP), or list it under resources if the app loads it itself.")
        }
        return nil
    }

    private mutating func suggestion(for reference: String) -> String? {
        guard suggestionsLeft > 0 else { return nil }
        suggestionsLeft -= 1
        return index.suggestion(for: reference)
    }

    private mutating func warnAboutMissingScale(_ asset: ImageAsset, at place: JSONPointer, value: JSONValue) {
        guard !asset.isPinned else { return }
        let scales = Set(asset.variants.map(\.scale))
        guard !scales.isDisjoint(with: [2, 3]), !scales.isSuperset(of: [2, 3]) else { return }
        let key = asset.variants.map(\.path)
        guard scaleWarned.insert(key).inserted, let present = asset.variants.last else { return }
        let missing = scales.contains(2) ? 3 : 2
        let name = AssetIndex.split(present.path.rawValue)
        let expected = "\(name.stem)@\(missing)x" + (name.fileExtension.map { ".\($0)" } ?? "")
        issues.warning(
            .assetScaleMissing, place, value: value,
            "The image \"\(asset.reference)\" has @\(present.scale)x but no @\(missing)x (\(expected)); @\(missing)x devices get the nearest scale.",
            fix: "Add \(expected) so every device gets a sharp image.")
    }

    private mutating func parseResource(_ value: JSONValue, at place: JSONPointer) -> AssetPath? {
        guard let text = value.stringValue, !text.isEmpty else {
            issues.error(
                .resourceInvalid, place, value: value,
                "A resource must be a file name string, not \(value.compactText).",
                fix: "Write the path of a file in the skin, such as \"refresh.gif\".")
            return nil
        }
        if text.contains("://") {
            issues.error(
                .resourceInvalid, place, value: value,
                "\"\(text)\" is a URL; resources must be files inside the skin so the package is complete offline.",
                fix: "Put the file in the skin folder and reference it by its relative path.")
            return nil
        }
        guard let path = checkedPath(text, at: place, value: value) else { return nil }
        guard index.contains(path.rawValue) else {
            let hint = suggestion(for: text).map { "Did you mean \"\($0)\"? " } ?? ""
            issues.error(
                .assetMissing, place, value: value,
                "The resource \"\(text)\" is not in the skin.",
                fix:
                    "\(hint)Add the file to the skin folder, or correct the path (paths are case-sensitive and need the extension)."
            )
            return nil
        }
        return path
    }

    // MARK: Dark overrides

    /// Parses `dark`: an object mirroring modules whose every module, section and identifier exists in the
    /// light config; values are checked like light ones.
    private mutating func parseDark(_ value: JSONValue, light: JSONObject) -> [SkinModule] {
        let darkPointer = JSONPointer(tokens: [SkinConfig.darkKey])
        guard let modules = value.objectValue else {
            issues.error(
                .darkInvalid, darkPointer, value: value,
                "\"dark\" must be an object mirroring the modules, not a \(value.kindName).",
                fix:
                    "Write \"dark\": {\"home_tabbar\": {\"colors\": {\"color_background\": \"#1C1C1E\"}}} with only the keys that change in dark mode."
            )
            return []
        }
        var result: [SkinModule] = []
        for member in modules {
            let modulePlace = darkPointer.appending(member.key)
            guard member.key != SkinConfig.darkKey, let lightSections = light[member.key]?.objectValue else {
                issues.error(
                    .darkKeyUnknown, modulePlace, value: .string(member.key),
                    "The dark override names the module \"\(member.key)\", which the light config does not define.",
                    fix: unknownFix(member.key, among: light.keys.filter { $0 != SkinConfig.darkKey }, what: "module"))
                continue
            }
            guard let sections = member.value.objectValue else {
                issues.error(
                    .darkInvalid, modulePlace, value: member.value,
                    "The dark module \"\(member.key)\" must be an object of sections, not a \(member.value.kindName).",
                    fix: "Write it like the light module, with only the keys that change.")
                continue
            }
            var module = SkinModule(name: member.key)
            for sectionMember in sections {
                let sectionPlace = modulePlace.appending(sectionMember.key)
                guard let section = ConfigSection(rawValue: sectionMember.key) else {
                    reportUnknownSection(sectionMember.key, module: member.key, at: sectionPlace)
                    continue
                }
                guard let entries = sectionMember.value.objectValue else {
                    issues.error(
                        .configSectionInvalid, sectionPlace, value: sectionMember.value,
                        "The dark section \"\(sectionMember.key)\" must be an object of identifiers, not a \(sectionMember.value.kindName).",
                        fix: "Write \"\(sectionMember.key)\": {\"identifier\": value, …}.")
                    continue
                }
                let lightEntries = lightSections[section.rawValue]?.objectValue ?? JSONObject()
                var known = JSONObject()
                for entry in entries {
                    if lightEntries[entry.key] != nil {
                        known[entry.key] = entry.value
                    } else {
                        issues.error(
                            .darkKeyUnknown, sectionPlace.appending(entry.key), value: .string(entry.key),
                            "The dark override \"\(entry.key)\" has no light value in \(member.key)/\(section.rawValue).",
                            fix: unknownFix(entry.key, among: lightEntries.keys, what: "identifier"))
                    }
                }
                parseSection(section, known, into: &module, at: sectionPlace)
            }
            result.append(module)
        }
        return result
    }

    private func unknownFix(_ name: String, among candidates: [String], what: String) -> String {
        let hint = closestMatch(to: name, among: candidates).map { "Did you mean \"\($0)\"? " } ?? ""
        return
            "\(hint)Dark overrides only replace values the light config defines; add the \(what) to the light config first, or remove the override."
    }
}

extension AssetIndex {
    /// The file names a reference could have meant, for the "missing" message.
    static func lookedFor(_ reference: String) -> String {
        let name = split(reference)
        if let fileExtension = name.fileExtension, imageExtensions.contains(fileExtension.lowercased()) {
            if name.scale != nil { return reference }
            return "\(name.stem).\(fileExtension), \(name.stem)@2x.\(fileExtension), \(name.stem)@3x.\(fileExtension)"
        }
        return "\(reference).png, \(reference)@2x.png, \(reference)@3x.png and the same with .jpg, .jpeg, .gif, .webp"
    }
}
