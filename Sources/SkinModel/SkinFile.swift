/// One entry a ``SkinSource`` lists: a file (or something posing as one) inside the skin.
public struct SkinFile: Sendable, Hashable {
    /// What the entry is on its storage.
    public enum Kind: Sendable, Hashable {
        /// A regular file: the only kind a valid skin contains.
        case regular
        /// A symbolic link (never followed).
        case symlink
        /// A FIFO, socket, device or anything else that is not a regular file.
        case other
    }

    /// The `/`-separated path relative to the skin root. When the name is not valid UTF-8, the invalid bytes
    /// are shown as U+FFFD and `nameIsValidUTF8` is `false`.
    public var path: String
    /// Size in bytes (of the link itself for symlinks).
    public var size: Int
    public var kind: Kind
    /// Whether every segment of the stored name is valid UTF-8.
    public var nameIsValidUTF8: Bool

    public init(path: String, size: Int, kind: Kind = .regular, nameIsValidUTF8: Bool = true) {
        self.path = path
        self.size = size
        self.kind = kind
        self.nameIsValidUTF8 = nameIsValidUTF8
    }

    /// Whether the entry is a symbolic link.
    public var isSymlink: Bool { kind == .symlink }
}
