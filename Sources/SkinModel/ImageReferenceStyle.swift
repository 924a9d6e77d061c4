/// How packaged `config.json` files spell references to the skin's image files (`skin.json`'s `imageReferences`).
public enum ImageReferenceStyle: String, Sendable, Hashable, CaseIterable {
    /// Each reference as the author wrote it (`"tab_home"`, `"file://images/banner.png"`): apps that look
    /// images up by name, as `UIImage(named:)` does. The default.
    case asWritten = "as-written"
    /// Each reference rewritten to the exact path of the file in that package (`"tab_home@3x.png"`,
    /// `"images/banner@3x.png"`: `file://` dropped; in image objects the `name`/`file` value), so a client
    /// that opens `path + "/" + value` (Ziroom's) finds the file.
    case filePath = "file-path"
}
