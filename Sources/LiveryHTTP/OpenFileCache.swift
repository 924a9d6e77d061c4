import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An open, read-only regular file, closed when the last holder lets go of it.
///
/// The cache holds one reference per entry and every response being sent holds one, so an entry evicted while a
/// send is in flight is closed only once that send is done.
public final class OpenFile: Sendable {
    let descriptor: Int32
    /// The file's size when it was opened.
    public let size: UInt64
    let identity: OpenFileCache.Identity

    init(descriptor: Int32, identity: OpenFileCache.Identity) {
        self.descriptor = descriptor
        self.size = identity.size
        self.identity = identity
    }

    deinit { Syscall.close(descriptor) }
}

/// Open descriptors of immutable files, kept across responses as nginx's `open_file_cache` does, so a download
/// of a file sent before costs no `open`, `fstat` or `close`.
///
/// For files whose content at a path never changes while the file exists: they are replaced only by `rename`
/// or removed. The cache is keyed by path and
/// - revalidates an entry at most once per `validity` (default 1 s): one `stat` of the path, compared with the
///   open file's device, inode, size and modification time; a file replaced or removed since is never served
///   after that window (a replaced one is reopened, a removed one fails like an uncached open);
/// - forgets a path at once when told (`invalidate(_:)`), as the package cache does when it removes or rebuilds
///   a package, so its own changes are never served stale at all;
/// - holds at most `capacity` entries, evicting the least recently used;
/// - gives every descriptor back on `removeAll()` (the server calls it when the process runs out of
///   descriptors).
///
/// Thread-safe: used by every event loop of a server.
public final class OpenFileCache: Sendable {
    /// The most files kept open.
    public let capacity: Int
    private let validity: UInt64
    private let clock: @Sendable () -> UInt64
    private let state = Mutex<State>(State())

    /// What identifies one version of a file: a replaced file differs in at least one field.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: UInt64
        var modified: timespec

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = UInt64(max(0, info.st_size))
            modified = info.st_mtim
        }

        static func == (left: Identity, right: Identity) -> Bool {
            left.device == right.device && left.inode == right.inode && left.size == right.size
                && left.modified.tv_sec == right.modified.tv_sec && left.modified.tv_nsec == right.modified.tv_nsec
        }
    }

    /// A reference, so a hit costs one hash of the path; its fields change only under the cache's lock.
    private final class Entry: @unchecked Sendable {
        let file: OpenFile
        /// Monotonic nanoseconds of the last check that the path still names `file`.
        var checkedAt: UInt64
        var lastUse: UInt64

        init(file: OpenFile, checkedAt: UInt64, lastUse: UInt64) {
            self.file = file
            self.checkedAt = checkedAt
            self.lastUse = lastUse
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var uses: UInt64 = 0
    }

    /// Why a file could not be opened.
    enum Failure: Error {
        case system(SystemCallError)
        case notRegularFile
    }

    /// - Parameters:
    ///   - capacity: the most files kept open (at least 1). Default 1,024.
    ///   - validity: how long an entry is served without checking its path again. Default 1 s.
    ///   - clock: monotonic nanoseconds (injected by tests); default the system's monotonic clock.
    public init(
        capacity: Int = 1024, validity: Duration = .seconds(1),
        clock: (@Sendable () -> UInt64)? = nil
    ) {
        self.capacity = max(1, capacity)
        self.validity = validity.nanoseconds
        self.clock = clock ?? { Syscall.monotonicNanoseconds() }
    }

    /// Files held open now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Forgets `path` (its descriptor closes once no response is sending it). Call after replacing or removing
    /// the file.
    public func invalidate(_ path: String) {
        let removed = state.withLock { $0.entries.removeValue(forKey: path) }
        _ = removed  // released outside the lock
    }

    /// Forgets every file; descriptors not being sent close now. Returns how many entries there were.
    @discardableResult
    public func removeAll() -> Int {
        let removed = state.withLock { state -> [String: Entry] in
            defer { state.entries = [:] }
            return state.entries
        }
        return removed.count
    }

    /// The open regular file at `path`: the cached one while it is known to be current, otherwise opened afresh
    /// (and cached). Without `mayOpen`, a file that would have to be opened fails as for want of descriptors
    /// (`EMFILE`) instead: what the server does while its descriptor reserve is with the runtime.
    func open(_ path: String, mayOpen: Bool = true) throws(Failure) -> OpenFile {
        let now = clock()
        let validity = self.validity
        let cached: (file: OpenFile, fresh: Bool)? = state.withLock { state in
            guard let entry = state.entries[path] else { return nil }
            state.uses &+= 1
            entry.lastUse = state.uses
            return (entry.file, now &- entry.checkedAt < validity)
        }
        if let cached {
            if cached.fresh { return cached.file }
            // Due for a check: is the path still the file we hold open?
            if let info = try? Syscall.pathStatus(path), Identity(info) == cached.file.identity {
                state.withLock { state in
                    if let entry = state.entries[path], entry.file === cached.file { entry.checkedAt = now }
                }
                return cached.file
            }
            invalidate(path)
        }
        let file = try Self.openRegular(path, mayOpen: mayOpen)
        let evicted: Entry? = state.withLock { state in
            state.uses &+= 1
            state.entries[path] = Entry(file: file, checkedAt: now, lastUse: state.uses)
            guard state.entries.count > capacity else { return nil }
            // A miss with the cache full: drop the least recently used entry (O(capacity), misses only).
            guard let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { return nil }
            return state.entries.removeValue(forKey: oldest)
        }
        _ = evicted  // its descriptor closes here, outside the lock, unless a send still holds it
        return file
    }

    /// Opens `path` without the cache: a regular file, or a failure (as for want of descriptors without `mayOpen`).
    static func openRegular(_ path: String, mayOpen: Bool = true) throws(Failure) -> OpenFile {
        guard mayOpen else { throw .system(SystemCallError("open", path: path, errno: EMFILE)) }
        let descriptor: Int32
        do {
            descriptor = try Syscall.openForReading(path)
        } catch {
            throw .system(error)
        }
        let info: stat
        do {
            info = try Syscall.fileStatus(descriptor)
        } catch {
            Syscall.close(descriptor)
            throw .system(error)
        }
        let file = OpenFile(descriptor: descriptor, identity: Identity(info))
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }  // `file` closes it
        return file
    }
}
