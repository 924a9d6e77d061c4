#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file kept open so that whether it is still in place can be told without walking its path.
///
/// Invariant: `isLinked` is false once the file has no name left: unlinked, or replaced by a rename over its path
/// (the held inode loses its link either way). A file that gained another name and lost the original one still
/// counts as linked; callers hold files only in folders they own. The descriptor closes when the value goes away.
public final class HeldFile: Sendable {
    private let file: SystemFile

    /// Holds `file` (its descriptor closes with this value).
    public init(_ file: consuming SystemFile) {
        self.file = file
    }

    /// Whether the file still has a name: one `fstat` on the held descriptor, no path lookup (an `access` walks
    /// every component of the path). False as well when the check itself fails.
    public var isLinked: Bool {
        var info = stat()
        return fstat(file.descriptor, &info) == 0 && info.st_nlink > 0
    }
}
