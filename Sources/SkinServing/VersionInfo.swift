import LiveryJSON
import SkinStore

/// The parts of a stored version's metadata that the admin API shows and the change rules read: from `skin` (the
/// `skin.json` value) its title and app, the report's warning count, and where the version came from. Each part is
/// nil when the metadata does not hold it.
public struct VersionInfo: Sendable {
    public var title: String?
    public var app: String?
    public var warnings: Int?
    public var source: String?

    public init(_ version: SkinVersion) {
        guard let root = try? JSONValue.parse(version.metadata).objectValue else { return }
        let skin = root["skin"]?.objectValue
        title = skin?["title"]?.stringValue
        app = skin?["app"]?.stringValue
        warnings = root["report"]?.objectValue?["warnings"]?.intValue
        source = root["source"]?.stringValue
    }
}
