import SkinModel
import SkinStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a change (`Changes`), or a read of the state changes are decided on, was refused or failed: the one error
/// of the serving core's write use cases. The server maps it to HTTP in one place (`APIError+Admin.swift`).
///
/// Each request refusal names the input it is about in `field` where the server must tell it (a path segment such
/// as `id`, a body key such as `version`, a header such as `If-Match`, or `body`). The server faults
/// (`isServerFault`) carry no file path or errno: those go to the log.
public enum ChangeError: Error, Sendable {
    // MARK: What was sent

    /// An input is unusable: `field` names it, `reason` says why.
    case invalidField(field: String, reason: String)
    /// The upload is not a readable archive of skin files.
    case upload(UploadError)
    /// The uploaded skin does not pass validation; the whole report.
    case invalidSkin(ValidationReport)
    /// A field of a release request is wrong (a version that is not a number, a missing half of a holiday's
    /// window).
    case invalidRelease(field: String, reason: String)
    /// The release plan has errors (`ReleasePlan.parse`'s issues; the first error's pointer names the field).
    case invalidReleasePlan([ValidationIssue])
    /// The release's window ended before now (`endsAt` as written, or in the plan's time zone).
    case windowInPast(endsAt: String)

    // MARK: What the state says

    /// No live skin has this id.
    case unknownSkin(String, field: String)
    /// The skin has no version with this number (a read names it).
    case unknownVersion(skinID: String, version: Int, field: String)
    /// A release names a version the skin does not have.
    case unknownReleaseVersion(skinID: String, version: Int)
    /// The version holds no file at this path.
    case unknownFile(skinID: String, version: Int, path: String, field: String)
    /// The change needs a current release and the skin has none; `fix` says what to do instead.
    case notReleased(skinID: String, fix: String)
    /// A rollback from the oldest version.
    case noPreviousVersion(skinID: String, released: Int)
    /// An upload's skin id exists under another app (`force` moves it).
    case appMismatch(skinID: String, stored: String, uploaded: String)
    /// An app no stored skin belongs to (`force` acts anyway); `known` are the apps the state has seen.
    case unknownApp(String, field: String, known: Set<String>)
    /// The skin is released (deleting it needs `force`).
    case skinReleased(skinID: String, version: Int, field: String)
    /// `If-Match` names another revision than `current`.
    case preconditionFailed(current: Int)
    /// The stored version no longer passes validation (limits lowered since it was stored): it cannot be released.
    case versionNotServable(ValidationReport)
    /// The version is damaged in the store: neither served nor read.
    case versionDamaged(skinID: String, version: Int)
    /// A stored file (`path`, in the version read) does not hold the bytes its content address names.
    case storedFileCorrupt(path: String)

    // MARK: The server

    /// The store is closed: the server is shutting down.
    case shuttingDown
    /// The store cannot be reached; nothing was changed.
    case storeUnavailable(field: String)
    /// The process (or the system) is out of file descriptors for a moment; nothing was changed.
    case serverBusy
    /// The data folder (`dataDirectory`, as configured) is full or cannot be written.
    case storage(StorageFault, dataDirectory: String)
    /// Anything else: a bug, or a storage failure the log names.
    case internalError

    /// Whether the server, not the request, is at fault (the log says why; the client sees a 5xx).
    public var isServerFault: Bool {
        switch self {
        case .shuttingDown, .storeUnavailable, .serverBusy, .storage, .internalError, .versionDamaged,
            .storedFileCorrupt:
            true
        default: false
        }
    }

    /// The change error for a store error. `field` names the input a request error is about when the store cannot
    /// know (the path segment or body key the value came from); `dataDirectory` is named when the data folder is
    /// at fault.
    public init(_ error: StoreError, field: String? = nil, dataDirectory: String) {
        switch error {
        case .invalidName(_, let reason): self = .invalidField(field: field ?? "id", reason: reason)
        case .invalidPath(_, let reason): self = .invalidField(field: field ?? "path", reason: reason)
        case .invalidDigest: self = .invalidField(field: field ?? "digest", reason: "not 64 lowercase hex characters")
        case .invalidDocument(let reason): self = .invalidField(field: field ?? "body", reason: reason)
        case .invalidText(let textField, let reason): self = .invalidField(field: field ?? textField, reason: reason)
        case .unknownSkin(let id): self = .unknownSkin(id, field: field ?? "id")
        case .unknownVersion(let id, let version):
            self = .unknownVersion(skinID: id, version: version, field: field ?? "version")
        case .unknownFile(let id, let version, let path):
            self = .unknownFile(skinID: id, version: version, path: path, field: field ?? "path")
        case .skinReleased(let id, let version):
            self = .skinReleased(skinID: id, version: version, field: field ?? "force")
        case .revisionMismatch(let current): self = .preconditionFailed(current: current)
        case .closed: self = .shuttingDown
        case .unavailable: self = .storeUnavailable(field: field ?? "store")
        case .damagedVersion(let id, let version, _): self = .versionDamaged(skinID: id, version: version)
        case .io(_, _, let code) where code == EMFILE || code == ENFILE: self = .serverBusy
        case .io(_, _, let code):
            self = StorageFault(errno: code).map { .storage($0, dataDirectory: dataDirectory) } ?? .internalError
        case .corruptFile, .locked: self = .internalError
        }
    }

    /// The change error for a stored version that cannot be served (found while preparing its release).
    init(_ error: ServingError) {
        switch error {
        case .invalidVersion(let report): self = .versionNotServable(report)
        case .storeUnavailable: self = .storeUnavailable(field: "store")
        case .damaged(let damage): self = .versionDamaged(skinID: damage.skinID, version: damage.version)
        case .unreadable, .invalidRelease, .packaging: self = .internalError
        }
    }
}
