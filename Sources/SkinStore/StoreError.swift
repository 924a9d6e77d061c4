import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything that can go wrong in `SkinStore`.
///
/// The server maps these to HTTP in one place: the request errors (`invalidName` … `revisionMismatch`)
/// describe what the caller asked for; the storage errors (`corruptFile`, `io`, `locked`, `closed`) name files
/// and errno values and are meant for the operator's log, never for a client.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A skin id, app id or actor name is unusable (empty, `.`, `..`, contains `/`, NUL or a control character,
    /// or longer than `StoreNames.maximumNameLength` bytes). `reason` says which rule failed.
    case invalidName(String, reason: String)
    /// A file path inside a version is unusable (empty, absolute, a `.`/`..`/empty component, NUL, or too long).
    case invalidPath(String, reason: String)
    /// A digest is not 64 lowercase hex characters.
    case invalidDigest(String)
    /// A change lacks what it describes (an `addUpload` edit given no upload).
    case invalidDocument(reason: String)
    /// A free-text field (such as a kill switch's reason) is unusable: too long or holding NUL.
    case invalidText(field: String, reason: String)
    /// No live skin has this id (it never existed or was deleted).
    case unknownSkin(String)
    /// The skin exists but has no version with this number.
    case unknownVersion(skinID: String, version: Int)
    /// The version exists but holds no file at this path.
    case unknownFile(skinID: String, version: Int, path: String)
    /// The skin cannot be deleted without `force` because this version of it is released.
    case skinReleased(skinID: String, version: Int)
    /// Optimistic concurrency failed: the caller's revision is stale. `current` is the revision now.
    case revisionMismatch(current: Int)
    /// The version was found damaged when the store loaded it (`SkinVersion.damage`): it cannot be released,
    /// served or read until an operator restores what it names. Other versions and skins are not affected.
    case damagedVersion(skinID: String, version: Int, reason: String)
    /// A file of the store does not hold what the store wrote there. The store refuses to open (or to go on)
    /// rather than reset anything: an operator must look at `path`.
    case corruptFile(path: String, reason: String)
    /// A system call failed. `operation` names the call, `path` the file it was about.
    case io(operation: String, path: String, errno: Int32)
    /// Another process (or another `FileSkinStore` in this one) has the directory open.
    case locked(path: String)
    /// `close()` was called; the store accepts no more changes.
    case closed
    /// The store's database cannot be reached or failed the request (a network store's connection broke, the
    /// server is down). Nothing was changed; retry later. `reason` never holds a password.
    case unavailable(reason: String)

    public var description: String {
        switch self {
        case .invalidName(let name, let reason): "invalid name \(quoted(name)): \(reason)"
        case .invalidPath(let path, let reason): "invalid path \(quoted(path)): \(reason)"
        case .invalidDigest(let digest): "invalid digest \(quoted(digest)): expected 64 lowercase hex characters"
        case .invalidDocument(let reason): "invalid change: \(reason)"
        case .invalidText(let field, let reason): "invalid \(field): \(reason)"
        case .unknownSkin(let id): "no skin \(quoted(id))"
        case .unknownVersion(let id, let version): "skin \(quoted(id)) has no version \(version)"
        case .unknownFile(let id, let version, let path):
            "version \(version) of skin \(quoted(id)) has no file \(quoted(path))"
        case .skinReleased(let id, let version): "skin \(quoted(id)) is released (version \(version))"
        case .revisionMismatch(let current): "revision mismatch: the current revision is \(current)"
        case .damagedVersion(let id, let version, let reason):
            "version \(version) of skin \(quoted(id)) is damaged: \(reason)"
        case .corruptFile(let path, let reason): "corrupt store file \(path): \(reason)"
        case .io(let operation, let path, let code):
            "\(operation) \(path): \(SystemCallError.text(code)) (errno \(code))"
        case .locked(let path): "store \(path) is in use by another process"
        case .closed: "the store is closed"
        case .unavailable(let reason): "the store is unavailable: \(reason)"
        }
    }

    /// `text` in quotes, cut to 200 characters, with control characters shown as `?` so a hostile name cannot
    /// forge log lines.
    private func quoted(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(200) {
            scalars.append(scalar.properties.generalCategory == .control ? "?" : scalar)
        }
        return "\"" + String(scalars) + "\""
    }
}
