import LiveryJSON

/// The preview images `skin.json` names for theme lists: one for every appearance, or one per appearance.
///
/// `"preview": "preview.png"` or `"preview": {"light": "preview.png", "dark": "preview-dark.png"}` (`dark`
/// optional: light's is shown in dark mode too). Each must be a PNG, JPEG or WebP file of the skin whose header
/// declares a size from ``minimumSide`` to ``maximumSide`` pixels per side. Previews are not packed into packages.
public struct PreviewImages: Sendable, Hashable {
    /// The preview for light mode, and for dark mode when ``dark`` is `nil`.
    public var light: AssetPath
    /// The preview for dark mode, if it differs.
    public var dark: AssetPath?

    public init(light: AssetPath, dark: AssetPath? = nil) {
        self.light = light
        self.dark = dark
    }

    /// Fewest pixels per side.
    public static let minimumSide = 16
    /// Most pixels per side.
    public static let maximumSide = 4096

    /// Each preview with its place in `skin.json` (`/preview`, `/preview/light`, `/preview/dark`).
    var placed: [(pointer: JSONPointer, path: AssetPath)] {
        let root = JSONPointer(tokens: ["preview"])
        guard let dark else { return [(isSingle ? root : root.appending("light"), light)] }
        return [(root.appending("light"), light), (root.appending("dark"), dark)]
    }

    /// Whether it was written as one string (set by the parser, so issues point at `/preview` rather than
    /// `/preview/light`); not part of equality.
    var isSingle = false

    /// Equal when they name the same files, however they were written.
    public static func == (lhs: PreviewImages, rhs: PreviewImages) -> Bool {
        lhs.light == rhs.light && lhs.dark == rhs.dark
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(light)
        hasher.combine(dark)
    }

    /// Parses `skin.json`'s `preview` value, reporting problems with the shape or a path into `issues`.
    static func parse(_ value: JSONValue, issues: inout IssueCollector) -> PreviewImages? {
        let root = JSONPointer(tokens: ["preview"])
        let errorsBefore = issues.issues.filter { $0.severity == .error }.count
        func path(_ field: JSONValue, at place: JSONPointer) -> AssetPath? {
            guard let text = field.stringValue else {
                issues.error(
                    .previewInvalid, place, value: field,
                    "A preview must be the path of an image file of the skin, not \(field.compactText).",
                    fix: "Write it as a path such as \"preview.png\".")
                return nil
            }
            do {
                return try AssetPath(validating: text)
            } catch {
                issues.error(
                    .previewInvalid, place, value: field,
                    "\"\(text)\" is not a usable path inside the skin.",
                    fix: "Write a relative path without '..', such as \"images/preview.png\".")
                return nil
            }
        }
        if value.stringValue != nil {
            guard let light = path(value, at: root) else { return nil }
            var images = PreviewImages(light: light)
            images.isSingle = true
            return images
        }
        guard let object = value.objectValue else {
            issues.error(
                .previewInvalid, root, value: value,
                "preview must be a path or an object {\"light\", \"dark\"}, not a \(value.kindName).",
                fix:
                    "Write \"preview\": \"preview.png\", or {\"light\": \"preview.png\", \"dark\": \"preview-dark.png\"}."
            )
            return nil
        }
        for member in object where member.key != "light" && member.key != "dark" {
            issues.error(
                .previewInvalid, root.appending(member.key), value: .string(member.key),
                "preview has an unknown key \"\(member.key)\".", fix: "preview holds only \"light\" and \"dark\".")
        }
        guard let lightValue = object["light"] else {
            issues.error(
                .previewInvalid, root, value: value,
                "preview has no \"light\" image.", fix: "Add \"light\": \"preview.png\"; \"dark\" is optional.")
            return nil
        }
        let light = path(lightValue, at: root.appending("light"))
        let dark = object["dark"].flatMap { $0.isNull ? nil : path($0, at: root.appending("dark")) }
        guard let light, issues.issues.filter({ $0.severity == .error }).count == errorsBefore else { return nil }
        return PreviewImages(light: light, dark: dark)
    }

    /// `skin.json`'s `preview` value: a string, or `{"light", "dark"}`.
    var jsonValue: JSONValue {
        guard let dark else { return .string(light.rawValue) }
        return .object(
            JSONObject([
                .init(key: "light", value: .string(light.rawValue)), .init(key: "dark", value: .string(dark.rawValue))
            ]))
    }
}
