import LiveryJSON

/// The contents of `skin.json`: who the skin is and when it is served.
public struct SkinManifest: Sendable, Equatable {
    /// The skin's id (unique in a catalog).
    public var id: SkinID
    /// A human title, non-empty.
    public var title: String
    /// The app the skin is for; same character rule as ``SkinID``.
    public var app: String
    /// Free text for operators; `""` when absent.
    public var description: String
    /// The schedule and targeting, or `nil`: a skin without a release is stored but not served.
    public var release: ReleasePlan?
    /// How packaged `config.json` files spell image references. Default ``ImageReferenceStyle/asWritten``.
    public var imageReferences: ImageReferenceStyle
    /// The preview images theme lists show, if any (checked against the skin's files by ``SkinValidator``).
    public var preview: PreviewImages?

    public init(
        id: SkinID, title: String, app: String, description: String = "", release: ReleasePlan? = nil,
        imageReferences: ImageReferenceStyle = .asWritten, preview: PreviewImages? = nil
    ) {
        self.preview = preview
        self.id = id
        self.title = title
        self.app = app
        self.description = description
        self.release = release
        self.imageReferences = imageReferences
    }

    /// The keys `skin.json` may hold; others are reported as warnings and ignored.
    public static let knownKeys = ["id", "title", "app", "description", "release", "imageReferences", "preview"]

    /// Parses `skin.json`'s value. `id`, `title` and `app` are required; `description` and `release` optional.
    public static func parse(_ value: JSONValue, file: String = "skin.json") -> ParseResult<SkinManifest> {
        var issues = IssueCollector(file: file)
        let root = JSONPointer.root
        guard let object = value.objectValue else {
            issues.error(
                .manifestNotObject, root, value: nil,
                "\(file) must be a JSON object, not a \(value.kindName).",
                fix:
                    "Write \(file) as {\"id\": \"spring-festival-2027\", \"title\": \"Spring Festival 2027\", \"app\": \"demo\"}."
            )
            return ParseResult(value: nil, issues: issues.issues)
        }
        for member in object where !knownKeys.contains(member.key) {
            let suggestion = closestMatch(to: member.key, among: knownKeys).map { "Did you mean \"\($0)\"? " } ?? ""
            issues.warning(
                .manifestKeyUnknown, root.appending(member.key), value: .string(member.key),
                "\(file) has an unknown key \"\(member.key)\"; it is ignored.",
                fix: "\(suggestion)Known keys are \(knownKeys.joined(separator: ", ")).")
        }

        func requiredString(_ key: String, example: String) -> String? {
            guard let field = object[key] else {
                issues.error(
                    .manifestFieldMissing, root, value: nil, "\(file) has no \"\(key)\".",
                    fix: "Add \"\(key)\": \"\(example)\".")
                return nil
            }
            guard let text = field.stringValue, !text.isEmpty else {
                issues.error(
                    .manifestFieldInvalid, root.appending(key), value: field,
                    "\"\(key)\" must be a non-empty string, not \(field.compactText).",
                    fix: "Write \"\(key)\": \"\(example)\".")
                return nil
            }
            return text
        }

        var id: SkinID?
        if let text = requiredString("id", example: "spring-festival-2027") {
            id = SkinID(text)
            if id == nil {
                issues.error(
                    .manifestFieldInvalid, root.appending("id"), value: .string(text),
                    "\"\(text)\" is not a valid skin id.",
                    fix: "Use \(SkinID.ruleDescription), such as \"spring-festival-2027\".")
            }
        }
        let title = requiredString("title", example: "Spring Festival 2027")
        var app = requiredString("app", example: "demo")
        if let name = app, !SkinID.isValid(name) {
            issues.error(
                .manifestFieldInvalid, root.appending("app"), value: .string(name),
                "\"\(name)\" is not a valid app id.", fix: "Use \(SkinID.ruleDescription), such as \"demo\".")
            app = nil
        }
        var description = ""
        if let field = object["description"], !field.isNull {
            if let text = field.stringValue {
                description = text
            } else {
                issues.error(
                    .manifestFieldInvalid, root.appending("description"), value: field,
                    "\"description\" must be a string, not a \(field.kindName).",
                    fix: "Write the description as a string.")
            }
        }
        var imageReferences = ImageReferenceStyle.asWritten
        if let field = object["imageReferences"], !field.isNull {
            if let text = field.stringValue, let style = ImageReferenceStyle(rawValue: text) {
                imageReferences = style
            } else {
                issues.error(
                    .manifestFieldInvalid, root.appending("imageReferences"), value: field,
                    "\"imageReferences\" must be \"as-written\" or \"file-path\", not \(field.compactText).",
                    fix:
                        "Write \"imageReferences\": \"file-path\" for clients that open path + \"/\" + value, or remove it to keep references as written."
                )
            }
        }
        var preview: PreviewImages?
        if let field = object["preview"], !field.isNull { preview = PreviewImages.parse(field, issues: &issues) }
        var release: ReleasePlan?
        if let field = object["release"], !field.isNull {
            let parsed = ReleasePlan.parse(field, file: file, pointer: root.appending("release"))
            if let paused = field.objectValue?["paused"], !paused.isNull {
                issues.error(
                    .releaseFieldInvalid, root.appending("release").appending("paused"), value: paused,
                    "paused is written by the release's guard when it trips, never by skin.json.",
                    fix: "Remove paused from skin.json's release.")
            }
            issues.append(contentsOf: parsed.issues)
            release = parsed.value
        }
        guard !issues.hasErrors, let id, let title, let app else {
            return ParseResult(value: nil, issues: issues.issues)
        }
        return ParseResult(
            value: SkinManifest(
                id: id, title: title, app: app, description: description, release: release,
                imageReferences: imageReferences,
                preview: preview),
            issues: issues.issues)
    }

    /// `skin.json`'s value: keys in the order id, title, app, description, release (omitted when `nil`),
    /// imageReferences (omitted when it is the default), preview (omitted when `nil`).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id.rawValue)
        object["title"] = .string(title)
        object["app"] = .string(app)
        object["description"] = .string(description)
        if let release { object["release"] = release.jsonValue }
        if imageReferences != .asWritten { object["imageReferences"] = .string(imageReferences.rawValue) }
        if let preview { object["preview"] = preview.jsonValue }
        return .object(object)
    }
}
