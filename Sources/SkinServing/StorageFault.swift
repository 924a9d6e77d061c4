import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A write to the data folder failed because of the folder itself: it is full, or it cannot be written
/// (read-only volume, lost permission). Such failures get their own answers (507, 503) instead of a bare 500,
/// since the operator's fix is on the volume, not in Livery.
public enum StorageFault: Sendable, Equatable {
    case full
    case notWritable

    /// The fault a system error names, or nil for any other error.
    package init?(errno code: Int32) {
        switch code {
        case ENOSPC, EDQUOT: self = .full
        case EROFS, EACCES, EPERM: self = .notWritable
        default: return nil
        }
    }

    /// Looks at `directory` after a write failed whose system error was not kept (a package build reports only a
    /// message): not writable or mounted read-only → `.notWritable`; no block left for an unprivileged writer →
    /// `.full`; otherwise nil (the failure had another cause).
    package static func probe(_ directory: String) -> StorageFault? {
        do throws(SystemCallError) {
            try SystemPath.checkAccess(directory, W_OK)
        } catch {
            return .notWritable
        }
        guard let fileSystem = try? SystemPath.fileSystem(of: directory) else { return nil }
        if fileSystem.readOnly { return .notWritable }
        return fileSystem.blocksAvailable == 0 ? .full : nil
    }
}
