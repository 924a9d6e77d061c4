extension ValidationIssue {
    /// A stable issue code: a dotted lowercase string that clients may match on. Codes are never renamed.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public var description: String { rawValue }

        // MARK: Files and paths
        /// The source could not be listed or a file could not be read.
        public static let sourceUnreadable: Code = "source.unreadable"
        /// A file name is not valid UTF-8.
        public static let pathNotUTF8: Code = "path.not-utf8"
        /// A file is a symbolic link (never followed: it could point outside the skin).
        public static let pathSymlink: Code = "path.symlink"
        /// A path or reference climbs out of the skin with `..`.
        public static let pathEscape: Code = "path.escape"
        /// A path or reference is absolute.
        public static let pathAbsolute: Code = "path.absolute"
        /// A path or reference is malformed (empty or `.` segment, backslash, control character).
        public static let pathInvalid: Code = "path.invalid"
        /// An entry is neither a regular file nor a directory (a FIFO, socket or device).
        public static let pathSpecialFile: Code = "path.special-file"
        /// Two paths differ only by letter case, which collide on case-insensitive phone file systems.
        public static let pathCaseCollision: Code = "path.case-collision"
        /// A reference names `skin.json` or `config.json`, which are not assets.
        public static let pathReserved: Code = "path.reserved"
        /// One file is larger than ``ValidationLimits/maxFileBytes``.
        public static let fileTooLarge: Code = "file.too-large"
        /// All files together are larger than ``ValidationLimits/maxTotalBytes``.
        public static let skinTooLarge: Code = "skin.too-large"
        /// The skin has more files than ``ValidationLimits/maxFileCount``.
        public static let skinTooManyFiles: Code = "skin.too-many-files"

        // MARK: Assets
        /// A file's bytes are not the type its extension claims (PNG, JPEG, GIF, WebP or JSON).
        public static let assetTypeMismatch: Code = "asset.type-mismatch"
        /// A reference names a file the skin does not contain.
        public static let assetMissing: Code = "asset.missing"
        /// Two files give the same image the same scale (`tab.png` and `tab@1x.png`).
        public static let assetScaleConflict: Code = "asset.scale-conflict"
        /// Warning: an image has some `@2x`/`@3x` variants but not all.
        public static let assetScaleMissing: Code = "asset.scale-missing"
        /// Warning: nothing references the file; it is left out of every package.
        public static let assetUnreferenced: Code = "asset.unreferenced"

        // MARK: JSON
        /// The file is not valid JSON (`line`/`column` say where).
        public static let jsonSyntax: Code = "json.syntax"
        /// An object repeats a key.
        public static let jsonDuplicateKey: Code = "json.duplicate-key"
        /// The file is not valid UTF-8.
        public static let jsonEncoding: Code = "json.encoding"
        /// Arrays and objects are nested too deeply.
        public static let jsonTooDeep: Code = "json.too-deep"

        // MARK: skin.json
        /// The skin has no `skin.json`.
        public static let manifestMissing: Code = "manifest.missing"
        /// `skin.json` is not a JSON object.
        public static let manifestNotObject: Code = "manifest.not-object"
        /// A required `skin.json` field is absent.
        public static let manifestFieldMissing: Code = "manifest.field-missing"
        /// A `skin.json` field has the wrong type or an unusable value.
        public static let manifestFieldInvalid: Code = "manifest.field-invalid"
        /// Warning: `skin.json` has a key Livery does not know (likely a typo; it is ignored).
        public static let manifestKeyUnknown: Code = "manifest.key-unknown"

        // MARK: preview
        /// `preview` in `skin.json` is not a path or `{"light", "dark"}`, or a path is unusable.
        public static let previewInvalid: Code = "preview.invalid"
        /// A preview names a file the skin does not contain.
        public static let previewMissing: Code = "preview.missing"
        /// A preview is not a PNG, JPEG or WebP file, or its header is malformed.
        public static let previewTypeUnsupported: Code = "preview.type-unsupported"
        /// A preview's declared size is outside ``PreviewImages/minimumSide``…``PreviewImages/maximumSide`` per side.
        public static let previewDimensions: Code = "preview.dimensions"

        // MARK: release
        /// `release` is not an object.
        public static let releaseNotObject: Code = "release.not-object"
        /// A required release field (`startsAt`, `endsAt`) is absent.
        public static let releaseFieldMissing: Code = "release.field-missing"
        /// A release field has the wrong type or range.
        public static let releaseFieldInvalid: Code = "release.field-invalid"
        /// A release has a key Livery does not know.
        public static let releaseKeyUnknown: Code = "release.key-unknown"
        /// A date-time is not ISO 8601 (`2027-02-05T00:00:00+08:00` or `2027-02-05T00:00:00` with `timeZone`).
        public static let releaseDateInvalid: Code = "release.date-invalid"
        /// A local date-time without an offset, and no `timeZone`.
        public static let releaseTimeZoneMissing: Code = "release.timezone-missing"
        /// `timeZone` is not an IANA time zone name.
        public static let releaseTimeZoneUnknown: Code = "release.timezone-unknown"
        /// A local date-time that does not exist in its time zone (skipped by a daylight-saving change).
        public static let releaseTimeNonexistent: Code = "release.time-nonexistent"
        /// Warning: `timeZone` is given but both date-times carry their own offset, so it changes nothing.
        public static let releaseTimeZoneUnused: Code = "release.timezone-unused"
        /// `endsAt` is not after `startsAt`.
        public static let releaseWindowEmpty: Code = "release.window-empty"
        /// `platforms` names something other than ios, android, harmony, macos, or is empty, or repeats one.
        public static let releasePlatformInvalid: Code = "release.platform-invalid"
        /// `minAppVersion` / `maxAppVersion` is not a dotted version, or min is not below max.
        public static let releaseVersionInvalid: Code = "release.version-invalid"
        /// `rollout` is not an integer from 0 to 100.
        public static let releaseRolloutInvalid: Code = "release.rollout-invalid"
        /// `recurs` names a day the calendar lacks in some year while `ifMissing` is `refuse`.
        public static let releaseRecurrenceDayMissing: Code = "release.recurrence-day-missing"
        /// `recurs` yields no occurrence at all in the years checked.
        public static let releaseRecurrenceEmpty: Code = "release.recurrence-empty"
        /// `recurs`' offsets make one year's occurrence reach into the next one's, or end before it starts.
        public static let releaseRecurrenceOverlap: Code = "release.recurrence-overlap"

        // MARK: config.json
        /// The skin has no `config.json`.
        public static let configMissing: Code = "config.missing"
        /// `config.json` is not a JSON object of modules.
        public static let configNotObject: Code = "config.not-object"
        /// Warning: `config.json` has no modules, so the skin changes nothing.
        public static let configEmpty: Code = "config.empty"
        /// `config.json` is a theme written for another client (AUUTheme's flat `colors`/`images`, Chameleon's
        /// nested `color`/`image`): one error naming the converter, `livery import --from …`.
        public static let configForeignTheme: Code = "config.foreign-theme"
        /// A module is not an object of sections.
        public static let configModuleInvalid: Code = "config.module-invalid"
        /// A module has a section other than colors, images, values, resources.
        public static let configSectionUnknown: Code = "config.section-unknown"
        /// A section is not an object of identifiers.
        public static let configSectionInvalid: Code = "config.section-invalid"
        /// An identifier is empty or has an empty dotted part (`a..b`, `.a`, `a.`).
        public static let configIdentifierInvalid: Code = "config.identifier-invalid"
        /// A color value is not one of the accepted spellings.
        public static let colorInvalid: Code = "color.invalid"
        /// An image value is not one of the accepted spellings.
        public static let imageInvalid: Code = "image.invalid"
        /// An image name without extension matches files of several types (`tab.png` and `tab.webp`).
        public static let imageAmbiguous: Code = "image.ambiguous"
        /// An image names a file that is not a PNG, JPEG, GIF or WebP.
        public static let imageTypeUnsupported: Code = "image.type-unsupported"
        /// A remote image uses plain `http://`.
        public static let imageInsecureURL: Code = "image.insecure-url"
        /// A remote image URL is malformed or uses another scheme.
        public static let imageURLInvalid: Code = "image.url-invalid"
        /// A resource value is not a relative file path string.
        public static let resourceInvalid: Code = "resource.invalid"

        // MARK: dark overrides
        /// `dark` is not an object of modules.
        public static let darkInvalid: Code = "dark.invalid"
        /// A dark override names a module, section or key that the light config does not define.
        public static let darkKeyUnknown: Code = "dark.key-unknown"

        // MARK: coverage (with a base config)
        /// Warning: the skin sets a key the app's base config does not know (a likely typo).
        public static let coverageKeyUnknown: Code = "coverage.key-unknown"
    }
}
