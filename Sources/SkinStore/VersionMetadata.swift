import LiveryJSON

/// What Livery keeps with each version besides its files: where it came from, the `skin.json` value it was
/// validated as and the validator's report.
///
/// Stored as one JSON object, a blob under `SkinVersion.metadataDigest` (so part of the version's digest): written
/// by `encoded()` when a version is added and read by `parse(_:)` when a store loads it, the only two places that
/// know its bytes; listings, the change rules and the catalog read fields. Members are written in a fixed order
/// (`source`, the archive's `archiveSha256`, `archiveBytes`, `skipped`, `strippedFolder`, `folder`, `skin`,
/// `report`), each only when set, and read leniently: members this build does not know are ignored, so metadata
/// written by another build still loads.
public struct VersionMetadata: Sendable, Hashable {
    /// The archive a pushed version was read from.
    public struct Archive: Sendable, Hashable {
        /// Lowercase hex SHA-256 of the archive's bytes.
        public var sha256: String
        /// The archive's size in bytes.
        public var size: Int
        /// The entries left out as archiver junk (`__MACOSX/…`, `.DS_Store`).
        public var skipped: [String]
        /// The one folder that wrapped every file and was stripped; nil when there was none.
        public var strippedFolder: String?

        public init(sha256: String, size: Int, skipped: [String], strippedFolder: String?) {
            self.sha256 = sha256
            self.size = size
            self.skipped = skipped
            self.strippedFolder = strippedFolder
        }
    }

    /// Where the version came from: `upload` (pushed through the admin API) or `import` (the skins folder at
    /// first start); nil when not recorded.
    public var source: String?
    /// The archive of a pushed version.
    public var archive: Archive?
    /// The folder (its name in the skins folder) an imported version was read from.
    public var folder: String?
    /// The `skin.json` value the version was validated as (`SkinManifest.jsonValue`).
    public var skin: JSONObject?
    /// The validator's report (`ValidationReport.jsonValue`).
    public var report: JSONObject?

    public init(
        source: String? = nil, archive: Archive? = nil, folder: String? = nil, skin: JSONObject? = nil,
        report: JSONObject? = nil
    ) {
        self.source = source
        self.archive = archive
        self.folder = folder
        self.skin = skin
        self.report = report
    }

    /// The skin's title, from `skin`.
    public var title: String? { skin?["title"]?.stringValue }
    /// The app the skin belongs to, from `skin`.
    public var app: String? { skin?["app"]?.stringValue }
    /// How many warnings the validator reported, from `report`.
    public var warnings: Int? { report?["warnings"]?.intValue }

    /// The metadata's bytes: one compact JSON object, members in the order the type states.
    public func encoded() -> [UInt8] {
        var object = JSONObject()
        if let source { object["source"] = .string(source) }
        if let archive {
            object["archiveSha256"] = .string(archive.sha256)
            object["archiveBytes"] = .int(archive.size)
            object["skipped"] = .array(archive.skipped.map(JSONValue.string))
            object["strippedFolder"] = archive.strippedFolder.map(JSONValue.string) ?? .null
        }
        if let folder { object["folder"] = .string(folder) }
        if let skin { object["skin"] = .object(skin) }
        if let report { object["report"] = .object(report) }
        return JSONValue.object(object).serialized(.compact)
    }

    /// Reads metadata bytes a store kept (what `encoded()` writes, or what an earlier build wrote).
    ///
    /// - Throws: what is not metadata: bytes that are not one JSON object, or a member of another kind than this
    ///   build writes (`skin` that is not an object, `archiveBytes` that is not a whole number, …).
    static func parse(_ bytes: [UInt8]) throws(StoredObject.Fault) -> VersionMetadata {
        let record = try StoredObject.parse(bytes)
        var metadata = VersionMetadata()
        metadata.source = try record.optionalString("source")
        if record.members["archiveSha256"] != nil {
            var skipped: [String] = []
            if let list = record.members["skipped"], !list.isNull {
                guard let elements = list.arrayValue else {
                    throw StoredObject.Fault(text: "skipped is \(list.kindName), not an array")
                }
                for element in elements {
                    guard let name = element.stringValue else {
                        throw StoredObject.Fault(text: "skipped holds \(element.kindName), not a string")
                    }
                    skipped.append(name)
                }
            }
            metadata.archive = Archive(
                sha256: try record.string("archiveSha256"), size: try record.int("archiveBytes"), skipped: skipped,
                strippedFolder: try record.optionalString("strippedFolder"))
        }
        metadata.folder = try record.optionalString("folder")
        metadata.skin = try record.optionalObject("skin")?.members
        metadata.report = try record.optionalObject("report")?.members
        return metadata
    }
}
